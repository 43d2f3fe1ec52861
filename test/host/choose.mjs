// Picks the extension-host runner: NOTESAPP_TEST_RUNNER=browser|electron forces one; otherwise see chooseRunner.
import fs from 'node:fs';
import path from 'node:path';
import { findChromium } from './browser-runner.mjs';
import { repoRoot } from './workspace.mjs';

/**
 * Automatic choice: a VS Code already downloaded by @vscode/test-electron (.vscode-test/) means electron; else,
 * on Linux with Chromium installed, the browser-hosted runner, which needs nothing beyond npm and Debian
 * packages (offline machines, CI); else electron, which downloads VS Code.
 */
export function chooseRunner(env = process.env) {
  const forced = env.NOTESAPP_TEST_RUNNER;
  if (forced) {
    if (forced !== 'browser' && forced !== 'electron') throw new Error(`NOTESAPP_TEST_RUNNER must be "browser" or "electron", got "${forced}"`);
    return { runner: forced, reason: 'forced by NOTESAPP_TEST_RUNNER' };
  }
  const cache = path.join(repoRoot, '.vscode-test');
  if (fs.existsSync(cache) && fs.readdirSync(cache).some((d) => d.startsWith('vscode-'))) {
    return { runner: 'electron', reason: 'a downloaded VS Code is in .vscode-test/' };
  }
  if (process.platform === 'linux' && findChromium()) return { runner: 'browser', reason: 'Linux with Chromium: offline VS Code server runner' };
  return { runner: 'electron', reason: 'no Chromium for the offline runner' };
}
