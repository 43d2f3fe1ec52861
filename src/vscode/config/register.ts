// Wires the configuration feature: store, invalid-file notice, VS Code settings mapping, commands.
import * as vscode from 'vscode';
import { configFilePath } from '../../core/config/paths';
import { ConfigStore, type ConfigReport } from '../../core/config/store';
import { AppliedSettings } from './applied-settings';
import { confirmAndReset, openConfiguration, registerConfigCommands } from './commands';
import { schemaAssociation } from './schema-association';

export interface ConfigFeature {
  store: ConfigStore;
  applied: AppliedSettings;
  /** Resolves when the configuration has been read and applied once. */
  ready: Promise<void>;
}

async function offerFix(store: ConfigStore, report: ConfigReport, log: vscode.LogOutputChannel): Promise<void> {
  // While the file is open in an editor its problems are already underlined there (the JSON schema); a
  // notification on every save of a half-typed value would only get in the way.
  if (vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === 'file' && e.document.uri.fsPath === store.file)) {
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

export function registerConfiguration(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ConfigFeature {
  const store: ConfigStore = new ConfigStore({
    file: configFilePath(),
    logger: log,
    onInvalid: (report) => void offerFix(store, report, log).catch((err) => log.error(`Configuration notice failed: ${(err as Error).message}`)),
  });
  const applied = new AppliedSettings(context.workspaceState, log, schemaAssociation(context.extensionUri, store.file));
  registerConfigCommands(context, store, applied, log);
  const stop = store.watchConfig((config) => void applied.apply(config));
  context.subscriptions.push({ dispose: stop });
  const ready = store.readConfig().then(
    (config) => applied.apply(config),
    (err) => log.error(`Reading the configuration failed: ${(err as Error).message}`),
  );
  return { store, applied, ready };
}
