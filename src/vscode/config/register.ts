// Wires the configuration feature: store, invalid-file notice, VS Code settings mapping, commands.
import path from 'node:path';
import * as vscode from 'vscode';
import { configFilePath } from '../../core/config/paths';
import type { NotesConfig } from '../../core/config/schema';
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

/** The notes folder of the configuration (workspace.defaultPath or a recent workspace) is the open one. */
function isNotesFolder(config: NotesConfig): boolean {
  const open = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!open) return false;
  return [config.workspace.defaultPath, ...config.workspace.recentWorkspaces].some((p) => p && path.resolve(p) === path.resolve(open));
}

/**
 * VS Code settings are written into the open folder's .vscode/settings.json, so a folder is asked once
 * before the first write (a code project opened with the extension installed must not change silently);
 * the configured notes folder is applied without asking.
 */
async function firstTimeInFolder(applied: AppliedSettings, config: NotesConfig, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) return;
  if (isNotesFolder(config)) return applied.apply(config, { enable: true });
  void vscode.window
    .showInformationMessage(
      'Apply the notes configuration (fonts, theme, exclude patterns) to this folder\'s VS Code settings?',
      'Apply',
      'Not for This Folder',
    )
    .then(async (choice) => {
      if (choice === 'Apply') await applied.apply(config, { enable: true });
      else if (choice === 'Not for This Folder') await applied.decline();
    })
    .then(undefined, (err) => log.error(`Applying the configuration failed: ${(err as Error).message}`));
}

export function registerConfiguration(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ConfigFeature {
  let file: string;
  try {
    file = configFilePath();
  } catch (err) {
    // A relative NOTESAPP_CONFIG_PATH: say so and use the platform path rather than fail the whole extension.
    file = configFilePath({ env: { ...process.env, NOTESAPP_CONFIG_PATH: undefined } });
    log.error(`${(err as Error).message}; using ${file}`);
    void vscode.window.showErrorMessage(`Notes configuration: ${(err as Error).message}. Using ${file} instead.`);
  }
  const store: ConfigStore = new ConfigStore({
    file,
    logger: log,
    onInvalid: (report) => void offerFix(store, report, log).catch((err) => log.error(`Configuration notice failed: ${(err as Error).message}`)),
  });
  const applied = new AppliedSettings(context.workspaceState, log, schemaAssociation(context.extensionUri, store.file));
  registerConfigCommands(context, store, applied, log);
  const stop = store.watchConfig((config) => void applied.apply(config));
  context.subscriptions.push({ dispose: stop });
  const ready = store.readConfig().then(
    (config) => (applied.enabled === undefined ? firstTimeInFolder(applied, config, log) : applied.apply(config)),
    (err) => log.error(`Reading the configuration failed: ${(err as Error).message}`),
  );
  return { store, applied, ready };
}
