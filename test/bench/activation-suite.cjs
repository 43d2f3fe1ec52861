// Runs inside the extension host (as its test suite): activates the extension and prints how long activation took.
// test/bench/run.mjs starts it through the browser-hosted runner and reads the NOTESAPP_BENCH line.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the extension host loads suites as CommonJS
const vscode = require('vscode');

exports.run = async function run() {
  const ext = vscode.extensions.getExtension('notesapp.notesapp');
  if (!ext) throw new Error('the notesapp extension is not installed in this host');
  const started = Date.now();
  const api = await ext.activate();
  const waitedMs = Date.now() - started;
  if (typeof api?.activationMs !== 'number') throw new Error('the extension API does not report activationMs');
  // waitedMs: how long this suite waited for activation (near 0 when onStartupFinished had already activated it).
  console.log(`NOTESAPP_BENCH ${JSON.stringify({ activationMs: api.activationMs, waitedMs })}`);
};
