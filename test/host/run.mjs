// `npm run test:integration`: builds nothing itself; runs out/test/integration in a real extension host.
import fs from 'node:fs';
import path from 'node:path';
import { runBrowserHosted } from './browser-runner.mjs';
import { chooseRunner } from './choose.mjs';
import { runElectron } from './electron-runner.mjs';
import { repoRoot } from './workspace.mjs';

const testsIndex = path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
if (!fs.existsSync(testsIndex) || !fs.existsSync(path.join(repoRoot, 'dist', 'extension.js'))) {
  console.error('[host] the extension and its integration suite are not built: run `npm run build` first.');
  process.exit(2);
}
const { runner, reason } = chooseRunner();
console.log(`[host] runner: ${runner} (${reason})`);
const started = Date.now();
try {
  const code = runner === 'browser' ? await runBrowserHosted({ testsIndex }) : await runElectron({ testsIndex });
  console.log(`[host] extension-host suite ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code === 0 ? 0 : 1);
} catch (err) {
  console.error(`[host] the extension host could not run the suite: ${err.message}`);
  process.exit(1);
}
