// The configuration commands: open, reset (modal confirmation), remove/apply VS Code settings, shortcuts.
import fs from 'node:fs';
import * as vscode from 'vscode';
import { shortcutsToKeybindings, type KeyPlatform } from '../../core/config/shortcuts';
import type { ConfigStore } from '../../core/config/store';
import type { AppliedSettings } from './applied-settings';

export const RESET_CHOICE = 'Reset to Defaults';

/** How the reset command asks; the default is VS Code's modal warning. Tests pass a recorder. */
export type Ask = (message: string, options: vscode.MessageOptions, ...items: string[]) => Thenable<string | undefined>;

export async function openConfiguration(store: ConfigStore): Promise<vscode.TextEditor> {
  // A missing file is created with the defaults so that there is something to edit, with completions.
  if (!fs.existsSync(store.file)) await store.updateConfig({});
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(store.file));
  return vscode.window.showTextDocument(doc);
}

export async function confirmAndReset(store: ConfigStore, ask: Ask = vscode.window.showWarningMessage): Promise<boolean> {
  const choice = await ask(
    'Reset the notes configuration to its defaults?',
    { modal: true, detail: `Every setting in ${store.file} goes back to its default. The current file is kept as a backup beside it.` },
    RESET_CHOICE,
  );
  if (choice !== RESET_CHOICE) return false;
  await store.resetConfig();
  return true;
}

export function registerConfigCommands(context: vscode.ExtensionContext, store: ConfigStore, applied: AppliedSettings, log: vscode.LogOutputChannel): void {
  const run =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (err) {
        log.error(`${name} failed: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(`${name} failed: ${(err as Error).message}`);
        return undefined;
      }
    };
  context.subscriptions.push(
    vscode.commands.registerCommand(
      'notesapp.openConfiguration',
      run('Open Configuration', () => openConfiguration(store)),
    ),
    vscode.commands.registerCommand(
      'notesapp.resetConfiguration',
      run('Reset Configuration', (options?: { ask?: Ask }) => confirmAndReset(store, options?.ask)),
    ),
    vscode.commands.registerCommand(
      'notesapp.removeAppliedSettings',
      run('Remove Applied VS Code Settings', async () => {
        const removed = await applied.remove();
        const left = applied.appliedKeys();
        if (left.length) {
          void vscode.window.showWarningMessage(
            `Removed ${removed.length} VS Code setting(s) applied from the notes configuration; VS Code refused to change ${left.length} (${left.join(', ')}), see the Notes log. Save or close the settings file and run "Notes: Remove Applied VS Code Settings" again.`,
          );
        } else {
          void vscode.window.showInformationMessage(
            `Removed ${removed.length} VS Code setting(s) applied from the notes configuration. Run "Notes: Apply Configuration to VS Code Settings" to apply them again.`,
          );
        }
        return removed;
      }),
    ),
    vscode.commands.registerCommand(
      'notesapp.applySettings',
      run('Apply Configuration to VS Code Settings', async () => {
        // Only folder settings are ever written: with no folder there is nothing to write to, and nothing is promised.
        if (!vscode.workspace.workspaceFolders?.length) {
          void vscode.window.showWarningMessage('Open a folder first: the notes configuration is applied to the open folder\'s settings, never to your user settings.');
          return [];
        }
        const { config, unusable } = await store.inspect();
        if (unusable !== undefined) {
          // Its defaults in memory would be written over every applied setting.
          void vscode.window.showErrorMessage(`The notes configuration cannot be applied: ${store.file} cannot be used (${unusable}). Fix it ("Notes: Open Configuration") and apply again.`);
          return [];
        }
        await applied.apply(config, { enable: true });
        return applied.appliedKeys();
      }),
    ),
    vscode.commands.registerCommand(
      'notesapp.showShortcutKeybindings',
      run('Show Shortcuts as Keybindings', async () => {
        const platform = (['darwin', 'win32'].includes(process.platform) ? process.platform : 'linux') as KeyPlatform;
        const { keybindings, skipped } = shortcutsToKeybindings((await store.readConfig()).shortcuts, platform);
        const lines = [
          '// Keybindings for the "shortcuts" of the notes configuration. An extension cannot change your',
          '// keybindings.json; copy the entries you want into it ("Preferences: Open Keyboard Shortcuts (JSON)").',
          ...skipped.map((s) => `// skipped ${s}`),
          JSON.stringify(keybindings, null, 2),
        ];
        const doc = await vscode.workspace.openTextDocument({ language: 'jsonc', content: `${lines.join('\n')}\n` });
        await vscode.window.showTextDocument(doc);
        return keybindings;
      }),
    ),
  );
}
