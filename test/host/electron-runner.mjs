// Runs the integration suite in desktop VS Code downloaded by @vscode/test-electron (machines with internet).
import { cleanup, hostEnv, prepareRun, repoRoot } from './workspace.mjs';

export async function runElectron({ testsIndex }) {
  const { runTests } = await import('@vscode/test-electron');
  const run = prepareRun();
  try {
    return await runTests({
      version: process.env.NOTESAPP_VSCODE_VERSION || 'stable',
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: testsIndex,
      extensionTestsEnv: hostEnv(run),
      launchArgs: [run.workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--user-data-dir', run.userData, '--extensions-dir', run.extensions],
    }).then(() => 0, (err) => {
      // runTests rejects when the suite fails; its output already went to the terminal.
      console.error(`[host] ${err?.message ?? err}`);
      return 1;
    });
  } finally {
    cleanup(run);
  }
}
