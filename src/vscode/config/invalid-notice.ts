// The notice for an invalid config file: "Open Configuration" / "Reset to Defaults" (spec 3, rule 2).
import * as vscode from 'vscode';
import { samePath } from '../../core/config/paths';
import type { ConfigReport, ConfigStore } from '../../core/config/store';
import { confirmAndReset, openConfiguration } from './commands';

export async function offerFix(store: ConfigStore, report: ConfigReport, log: vscode.LogOutputChannel): Promise<void> {
  // While the file is open in an editor its problems are already underlined there (the JSON schema); a
  // notification on every save of a half-typed value would only get in the way.
  if (vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === 'file' && samePath(e.document.uri.fsPath, store.file))) {
    vscode.window.setStatusBarMessage('$(warning) Notes configuration: invalid values use their defaults (see the Notes log)', 10000);
    return;
  }
  const first = report.problems.slice(0, 3).join('; ');
  const more = report.problems.length > 3 ? ` (and ${report.problems.length - 3} more, see the Notes log)` : '';
  const choice = await vscode.window.showErrorMessage(
    `The notes configuration is invalid: ${first}${more}. Defaults are used for the invalid values; the file was backed up to ${report.backupPath}.`,
    'Open Configuration',
    'Reset to Defaults',
  );
  if (choice === 'Open Configuration') await openConfiguration(store);
  else if (choice === 'Reset to Defaults' && (await confirmAndReset(store))) log.info('Configuration reset to defaults from the invalid-file notice');
}
