// How the extension launches the MCP server: with VS Code's own ripgrep when VS Code has one.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RIPGREP_ENV } from '../../../src/core/workspace/ripgrep';
import { launchCommand, vscodeRipgrep } from '../../../src/vscode/mcp/server-process';

describe('extension: launching the MCP server', () => {
  const base = { serverScript: '/ext/dist/server.js', workspaceFolder: '/notes', configPath: '/cfg/config.json', nodePath: undefined, bridge: undefined };
  let appRoot: string;
  beforeEach(() => {
    appRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-approot-'));
  });
  afterEach(() => fs.rmSync(appRoot, { recursive: true, force: true }));

  const place = (...parts: string[]) => {
    const file = path.join(appRoot, ...parts);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    return file;
  };

  it("finds VS Code's ripgrep where recent versions keep it, then where earlier ones did, else none", () => {
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), undefined);
    const unpacked = place('node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), unpacked);
    const older = place('node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), older);
    place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'darwin-arm64', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), older, 'another platform\'s binary is not taken');
    const universal = place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64', 'rg');
    assert.equal(vscodeRipgrep(appRoot, 'linux', 'x64'), universal);
    const windows = place('node_modules', '@vscode', 'ripgrep-universal', 'bin', 'win32-x64', 'rg.exe');
    assert.equal(vscodeRipgrep(appRoot, 'win32', 'x64'), windows);
  });

  it('hands the server the ripgrep it was given, and nothing when there is none', () => {
    assert.equal(launchCommand({ ...base, ripgrep: '/vscode/rg' }).env[RIPGREP_ENV], '/vscode/rg');
    assert.equal(RIPGREP_ENV in launchCommand(base).env, false);
  });

  it('starts the server from a start-up snapshot when it has one: the runtime option comes before the script', () => {
    const cmd = launchCommand({ ...base, nodePath: '/usr/bin/node', snapshot: '/home/u/.notesapp/cache/startup-0a1b2c3d.blob' });
    assert.equal(cmd.command, '/usr/bin/node');
    assert.deepEqual(cmd.args, ['--snapshot-blob', '/home/u/.notesapp/cache/startup-0a1b2c3d.blob', '/ext/dist/server.js', '--workspace', '/notes', '--config', '/cfg/config.json']);
    assert.deepEqual(launchCommand(base).args, ['/ext/dist/server.js', '--workspace', '/notes', '--config', '/cfg/config.json']);
  });

  it('empties NODE_EXTRA_CA_CERTS, which Node then takes as unset, so the server does not load certificates at start', () => {
    const { env } = launchCommand(base);
    assert.equal(env.NODE_EXTRA_CA_CERTS, '');
    // As VS Code starts a definition: its own environment, then the definition's on top. A file that is not there
    // makes Node warn at start when it tries to load it.
    const missing = path.join(appRoot, 'no-such-ca.pem');
    const start = (extra: Record<string, string>) =>
      spawnSync(process.execPath, ['-e', '0'], { env: { ...process.env, NODE_EXTRA_CA_CERTS: missing, ...extra }, encoding: 'utf8' }).stderr;
    assert.match(start({}), /Ignoring extra certs from/, 'Node loads the file named by the variable');
    assert.equal(start(env), '', 'with the launch environment on top, Node loads nothing');
  });

  it('starts a server whose bundles make no TLS connection (what emptying NODE_EXTRA_CA_CERTS relies on)', () => {
    const dist = path.join(__dirname, '../../../dist');
    for (const file of ['server.js', 'server-core.js', 'server-snapshot.js', 'note-worker.js']) {
      const bundle = fs.readFileSync(path.join(dist, file), 'utf8');
      const modules = [...bundle.matchAll(/require\("((?:node:)?[a-z0-9_/]+)"\)/g)].map((m) => m[1].replace(/^node:/, ''));
      assert.ok(modules.includes('fs'), `${file}: its modules are read (${modules.length} found)`);
      for (const tls of ['tls', 'https', 'http2']) assert.ok(!modules.includes(tls), `${file} loads ${tls}`);
      assert.doesNotMatch(bundle, /\bfetch\(/, `${file} calls fetch`);
    }
  });
});
