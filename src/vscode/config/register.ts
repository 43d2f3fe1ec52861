// Wires the configuration feature: store, invalid-file notice, VS Code settings mapping, commands.
import * as vscode from 'vscode';
import { configFilePath } from '../../core/config/paths';
import type { NotesConfig } from '../../core/config/schema';
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
  // A file that is not JSON (a comma missing in a save while it is being edited) or cannot be read gives the
  // defaults in memory; applying those would switch the theme, fonts and exclude patterns back to the defaults
  // until the file is fixed. The settings applied last stay instead.
  const applyRead = (config: NotesConfig, unusable: string | undefined): Promise<void> => {
    if (unusable === undefined) return applied.apply(config);
    if (applied.enabled) log.info(`The VS Code settings applied from the configuration are kept as they are: ${store.file} cannot be used (${unusable})`);
    return Promise.resolve();
  };
  const stop = store.watchConfig((config, _old, { unusable }) => void applyRead(config, unusable));
  context.subscriptions.push({ dispose: stop });
  // Start-up is where an older file is migrated on disk; the watcher below never writes the file.
  const ready = store.inspect({ migrate: true }).then(
    ({ config, unusable }) =>
      applied.enabled === undefined && unusable === undefined
        ? firstTimeInFolder(applied, config, async () => {
            // The file as it is when the answer comes; one that cannot be used then gives the defaults, not its settings.
            const now = await store.inspect();
            if (now.unusable !== undefined) throw new Error(`${store.file} cannot be used (${now.unusable}); nothing was applied. Fix it and run "Notes: Apply Configuration to VS Code Settings".`);
            return now.config;
          }, log)
        : applyRead(config, unusable),
    (err) => log.error(`Reading the configuration failed: ${(err as Error).message}`),
  );
  return { store, applied, ready };
}
