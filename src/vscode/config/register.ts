// Wires the configuration feature: store, invalid-file notice, VS Code settings mapping, commands.
import * as vscode from 'vscode';
import { configFilePath } from '../../core/config/paths';
import { ConfigStore } from '../../core/config/store';
import { AppliedSettings } from './applied-settings';
import { registerConfigCommands } from './commands';
import { firstTimeInFolder } from './first-run';
import { offerFix } from './invalid-notice';
import { schemaAssociation } from './schema-association';

export interface ConfigFeature {
  store: ConfigStore;
  applied: AppliedSettings;
  /** Resolves when the configuration has been read and applied once. */
  ready: Promise<void>;
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
  // Start-up is where an older file is migrated on disk; the watcher below never writes the file.
  const ready = store.readConfig({ migrate: true }).then(
    (config) => (applied.enabled === undefined ? firstTimeInFolder(applied, config, () => store.readConfig(), log) : applied.apply(config)),
    (err) => log.error(`Reading the configuration failed: ${(err as Error).message}`),
  );
  return { store, applied, ready };
}
