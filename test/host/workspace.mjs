// Prepares a throw-away notes workspace and config file for one extension-host run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A fresh temp folder with a copy of the test fixture workspace (or the demo notes) and an empty config folder. */
export function prepareRun(prefix = 'notesapp-host-') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const fixture = [path.join(repoRoot, 'test', 'fixtures', 'workspace'), path.join(repoRoot, 'media', 'demo-notes')].find((p) =>
    fs.existsSync(p),
  );
  const workspace = path.join(root, 'notes');
  if (fixture) fs.cpSync(fixture, workspace, { recursive: true });
  else fs.mkdirSync(workspace);
  const configDir = path.join(root, 'config');
  fs.mkdirSync(configDir);
  const dirs = { root, workspace, configPath: path.join(configDir, 'config.json'), userData: path.join(root, 'user-data'), extensions: path.join(root, 'extensions') };
  fs.mkdirSync(dirs.userData);
  fs.mkdirSync(dirs.extensions);
  return dirs;
}

/** Environment given to the extension host: an isolated config file and cache folder, plus test filters. */
export function hostEnv(run) {
  return {
    NOTESAPP_CONFIG_PATH: run.configPath,
    // The servers' code cache and start-up snapshots, in the run's own folder (see src/core/startup-snapshot.ts).
    NOTESAPP_CACHE_DIR: path.join(run.root, 'cache'),
    // The start-up snapshot is kept without timing it against the code cache, so that the definition started from it
    // is tested on every machine (which start is sooner is the machine's; that timing has unit tests).
    NOTESAPP_SNAPSHOT_STARTS: '0',
    NOTESAPP_TEST_WORKSPACE: run.workspace,
    NOTESAPP_TEST_GREP: process.env.NOTESAPP_TEST_GREP ?? '',
    NOTESAPP_TEST_COLOR: process.stdout.isTTY ? '1' : '0',
  };
}

export function cleanup(run) {
  if (process.env.NOTESAPP_KEEP_TEST_DIRS) {
    console.log(`[host] kept ${run.root}`);
    return;
  }
  fs.rmSync(run.root, { recursive: true, force: true, maxRetries: 3 });
}
