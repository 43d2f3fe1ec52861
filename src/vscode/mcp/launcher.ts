// The server's launcher: a small script in the extension's global storage that MCP client configurations name
// instead of the extension's own dist/server.js. VS Code installs each version of an extension in a folder of its
// own (`notesapp.notesapp-0.1.0`) and removes the old one after an update, so a configuration naming the old folder
// would stop working; the launcher's folder stays, and the extension points it at its current version each time it
// starts.
import fs from 'node:fs';
import path from 'node:path';

/** The launcher's file name in the extension's global storage folder. */
export const LAUNCHER_FILE = 'notesapp-mcp-server.js';

/**
 * The launcher's source: it runs `serverScript` with the arguments it was given. When that file is gone (the
 * version that wrote the launcher was removed before the next one started), it runs the newest other version of
 * the extension `extensionId` installed beside it, and otherwise exits with a message saying what to do.
 * Self-contained CommonJS: any Node runs it.
 */
export function launcherSource(serverScript: string, extensionId: string): string {
  return `// Starts the MCP server of the notesapp VS Code extension. Written by the extension each time it starts; edits are
// lost. MCP clients name this file rather than the extension's folder, which changes with every update.
'use strict';
const fs = require('fs');
const path = require('path');
/** dist/server.js of the version that wrote this file. */
const SERVER = ${JSON.stringify(serverScript)};
/** VS Code keeps each installed version in <extensions folder>/<id>-<version>[-<platform>]. */
const ID = ${JSON.stringify(extensionId.toLowerCase())};

function newestInstalled() {
  const root = path.dirname(path.dirname(path.dirname(SERVER)));
  let names;
  try {
    names = fs.readdirSync(root);
  } catch {
    return undefined;
  }
  let obsolete = {};
  try {
    obsolete = JSON.parse(fs.readFileSync(path.join(root, '.obsolete'), 'utf8')) || {};
  } catch {
    // no versions waiting to be removed
  }
  const found = [];
  for (const name of names) {
    if (!name.toLowerCase().startsWith(ID + '-') || obsolete[name]) continue;
    const version = name.slice(ID.length + 1).split('-')[0].split('.').map(Number);
    const server = path.join(root, name, 'dist', 'server.js');
    if (version.length === 3 && version.every(Number.isInteger) && fs.existsSync(server)) found.push({ version, server });
  }
  found.sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1] || b.version[2] - a.version[2]);
  return found.length ? found[0].server : undefined;
}

const server = fs.existsSync(SERVER) ? SERVER : newestInstalled();
if (!server) {
  process.stderr.write(
    'notesapp: the MCP server is not installed any more: ' + SERVER + ' is gone and no other version of the notesapp ' +
      'extension is beside it. Install the notesapp extension in VS Code again and start VS Code once, or point your ' +
      'MCP client at the dist/server.js of a notesapp you have.\\n',
  );
  process.exit(1);
}
require(server);
`;
}

/**
 * Writes the launcher into `folder` (made if missing) pointing at `serverScript`, unless it says that already;
 * resolves to its path. Written whole and renamed into place, so a client starting it meanwhile never reads half
 * of it.
 */
export async function writeLauncher(folder: string, serverScript: string, extensionId: string): Promise<string> {
  const file = path.join(folder, LAUNCHER_FILE);
  const source = launcherSource(serverScript, extensionId);
  const current = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
  if (current === source) return file;
  await fs.promises.mkdir(folder, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fs.promises.writeFile(tmp, source);
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  return file;
}

/**
 * Points a launcher written before at `serverScript` (after an update, the new version), when there is one; a
 * launcher is made only when a configuration is copied. Resolves to whether one was there.
 */
export async function refreshLauncher(folder: string, serverScript: string, extensionId: string): Promise<boolean> {
  if (!fs.existsSync(path.join(folder, LAUNCHER_FILE))) return false;
  await writeLauncher(folder, serverScript, extensionId);
  return true;
}
