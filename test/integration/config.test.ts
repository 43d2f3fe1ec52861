// The configuration inside a real VS Code: schema diagnostics, mapping onto [markdown] settings, reset, removal.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { defaultConfig, type NotesConfig } from '../../src/core/config/schema';
import type { Ask } from '../../src/vscode/config/commands';
import { vscodeSettingsFor } from '../../src/vscode/config/settings-map';

const EXTENSION_ID = 'notesapp.notesapp';
const configPath = (): string => {
  const p = process.env.NOTESAPP_CONFIG_PATH;
  if (!p) throw new Error('the runner gives the host NOTESAPP_CONFIG_PATH');
  return p;
};

/** Resolves once `check` gives a value, re-checking on each `event`; the timeout only guards a hang. */
function until<T>(what: string, event: vscode.Event<unknown>, check: () => T | undefined, timeoutMs = 30000): Promise<T> {
  const now = check();
  if (now !== undefined) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const sub = event(() => {
      const value = check();
      if (value === undefined) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

function writeConfig(patch: (c: NotesConfig) => void): NotesConfig {
  const config = defaultConfig();
  patch(config);
  fs.writeFileSync(configPath(), `${JSON.stringify(config, null, 2)}\n`);
  return config;
}

const markdownFontSize = () => vscode.workspace.getConfiguration('editor', { languageId: 'markdown' }).get<number>('fontSize');

describe('configuration in VS Code', () => {
  before(async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    // Applying also associates the schema with the config file at its overridden (temporary) path.
    await vscode.commands.executeCommand('notesapp.applySettings');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('an out-of-range fontSize in the config file gets a diagnostic from the contributed schema', async () => {
    const text = JSON.stringify({ version: '1.1.0', editor: { fontSize: 99 } }, null, 2);
    fs.writeFileSync(configPath(), text);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(configPath()));
    await vscode.window.showTextDocument(doc);
    const diagnostic = await until('a schema diagnostic on editor.fontSize', vscode.languages.onDidChangeDiagnostics, () =>
      vscode.languages.getDiagnostics(doc.uri).find((d) => doc.getText(d.range) === '99'),
    );
    assert.match(diagnostic.message, /32/, `the message names the maximum: ${diagnostic.message}`);
    assert.equal(diagnostic.severity, vscode.DiagnosticSeverity.Warning);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('comments, trailing commas and a "$schema" key in the config file are not marked as errors', async () => {
    // A "$schema" takes precedence over associations in VS Code, so it names the extension's own schema here.
    const schemaUrl = vscode.Uri.joinPath(vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri, 'media', 'config.schema.json').toString();
    const text = `{\n  "$schema": ${JSON.stringify(schemaUrl)},\n  // bigger letters\n  "version": "1.1.0",\n  "editor": { "fontSize": 99, },\n}\n`;
    fs.writeFileSync(configPath(), text);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(configPath()));
    await vscode.window.showTextDocument(doc);
    // The out-of-range value shows that the schema ran; everything else must be clean.
    await until('a schema diagnostic on editor.fontSize', vscode.languages.onDidChangeDiagnostics, () =>
      vscode.languages.getDiagnostics(doc.uri).find((d) => doc.getText(d.range) === '99'),
    );
    const others = vscode.languages.getDiagnostics(doc.uri).filter((d) => doc.getText(d.range) !== '99');
    assert.deepEqual(others.map((d) => `${doc.getText(d.range)}: ${d.message}`), []);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('a config file at the platform path (.../com.notesapp.app/config.json) gets the schema through contributes.jsonValidation', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-static-'));
    try {
      const file = path.join(dir, 'com.notesapp.app', 'config.json');
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, JSON.stringify({ editor: { lineHeight: 7 } }, null, 2));
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      await vscode.window.showTextDocument(doc);
      const diagnostic = await until('a schema diagnostic on editor.lineHeight', vscode.languages.onDidChangeDiagnostics, () =>
        vscode.languages.getDiagnostics(doc.uri).find((d) => doc.getText(d.range) === '7'),
      );
      assert.match(diagnostic.message, /3/);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('changing editor.fontSize in the file changes the [markdown] editor.fontSize VS Code reports', async () => {
    writeConfig((c) => (c.editor.fontSize = 23));
    assert.equal(
      await until('[markdown] editor.fontSize 23', vscode.workspace.onDidChangeConfiguration, () => (markdownFontSize() === 23 ? 23 : undefined)),
      23,
    );
    writeConfig((c) => (c.editor.fontSize = 13));
    await until('[markdown] editor.fontSize 13', vscode.workspace.onDidChangeConfiguration, () => (markdownFontSize() === 13 ? 13 : undefined));
    const inspected = vscode.workspace.getConfiguration('editor', { languageId: 'markdown' }).inspect('fontSize');
    assert.equal(inspected?.workspaceLanguageValue, 13, 'written to the folder\'s [markdown] block');
    assert.equal(inspected?.globalLanguageValue, undefined, 'the user settings are not touched');
    assert.equal(inspected?.workspaceValue, undefined, 'other languages keep their font size');
  });

  it('reset asks in a modal dialog, does nothing when cancelled, and restores the defaults when confirmed', async () => {
    writeConfig((c) => ((c.editor.fontSize = 27), (c.theme = 'dark')));
    const before = fs.readFileSync(configPath(), 'utf8');
    const asked: { message: string; options: vscode.MessageOptions; items: string[] }[] = [];
    const answer =
      (choice: string | undefined): Ask =>
      async (message, options, ...items) => {
        asked.push({ message, options, items });
        return choice;
      };

    assert.equal(await vscode.commands.executeCommand('notesapp.resetConfiguration', { ask: answer(undefined) }), false);
    assert.equal(fs.readFileSync(configPath(), 'utf8'), before, 'cancelled: the file is untouched');

    assert.equal(await vscode.commands.executeCommand('notesapp.resetConfiguration', { ask: answer('Reset to Defaults') }), true);
    assert.equal(asked.length, 2);
    assert.equal(asked[0].options.modal, true);
    assert.deepEqual(asked[0].items, ['Reset to Defaults']);
    assert.match(asked[0].message, /Reset the notes configuration/);
    assert.deepEqual(JSON.parse(fs.readFileSync(configPath(), 'utf8')), defaultConfig());
    await until('[markdown] editor.fontSize back to 16', vscode.workspace.onDidChangeConfiguration, () => (markdownFontSize() === 16 ? true : undefined));
  });

  it('an invalid file is backed up byte for byte and the user is offered "Open Configuration" and "Reset to Defaults"', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const shown: { message: string; items: unknown[] }[] = [];
    const original = vscode.window.showErrorMessage;
    const offered = new Promise<void>((resolve) => {
      // The extension and its tests share one API object, so the notice can be observed (and left unanswered).
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...items: unknown[]) => {
        shown.push({ message, items });
        if (/configuration is invalid/.test(message)) resolve();
        return Promise.resolve(undefined);
      };
    });
    try {
      const bytes = Buffer.from(`{ "editor": { "fontSize": 7 }, "theme": "sepia", "x-${Date.now()}": 1 }`);
      fs.writeFileSync(configPath(), bytes);
      await offered;
      const notice = shown.find((s) => /configuration is invalid/.test(s.message))!;
      assert.deepEqual(notice.items, ['Open Configuration', 'Reset to Defaults']);
      assert.match(notice.message, /editor\.fontSize/);
      const dir = path.dirname(configPath());
      const backups = fs.readdirSync(dir).filter((n) => n.startsWith('config.json.invalid-'));
      assert.ok(backups.some((n) => fs.readFileSync(path.join(dir, n)).equals(bytes)), 'a backup holds the original bytes');
      assert.ok(fs.readFileSync(configPath()).equals(bytes), 'the file is left for the user to fix');
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = original;
    }
  });

  it('"Notes: Open Configuration" opens the file in use', async () => {
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('notesapp.openConfiguration');
    assert.equal(editor?.document.uri.fsPath, configPath());
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, configPath());
    assert.equal(editor?.document.languageId, 'json');
  });

  it('"Notes: Show Shortcuts as Keybindings" shows keybindings.json entries translated for this platform', async () => {
    writeConfig((c) => (c.shortcuts = { ...c.shortcuts, 'global-search': 'CommandOrControl+Alt+F', 'toggle-zen': 'Ctrl+K' }));
    const keybindings = await vscode.commands.executeCommand<{ key: string; command: string }[]>('notesapp.showShortcutKeybindings');
    const mod = process.platform === 'darwin' ? 'cmd' : 'ctrl';
    const search = keybindings?.find((k) => k.command === 'workbench.action.findInFiles');
    assert.equal(search?.key, process.platform === 'darwin' ? 'alt+cmd+f' : 'ctrl+alt+f');
    assert.ok(keybindings?.some((k) => k.command === 'workbench.action.files.save' && k.key === `${mod}+s`));
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.languageId, 'jsonc');
    assert.match(doc?.getText() ?? '', /skipped toggle-zen: no VS Code command/);
    assert.match(doc?.getText() ?? '', /"workbench\.action\.findInFiles"/);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('exclude patterns and schema associations of the folder\'s own survive applying and removing ours', async () => {
    await vscode.commands.executeCommand('notesapp.applySettings');
    const settings = () => vscode.workspace.getConfiguration();
    const theirSchema = { fileMatch: ['*.theirs.json'], url: 'https://example.test/theirs.schema.json' };
    await settings().update('files.exclude', { ...(settings().inspect('files.exclude')?.workspaceValue as object), 'their-build/**': true }, vscode.ConfigurationTarget.Workspace);
    await settings().update('json.schemas', [...((settings().inspect('json.schemas')?.workspaceValue as unknown[]) ?? []), theirSchema], vscode.ConfigurationTarget.Workspace);
    writeConfig((c) => (c.files.excludePatterns = [`ours-${Date.now()}/**`]));
    const ourPattern = await until('our pattern in files.exclude', vscode.workspace.onDidChangeConfiguration, () =>
      Object.keys((settings().inspect('files.exclude')?.workspaceValue as object) ?? {}).find((k) => k.startsWith('ours-')),
    );
    assert.equal((settings().inspect('files.exclude')?.workspaceValue as Record<string, boolean>)['their-build/**'], true, 'applying keeps the folder\'s own pattern');

    await vscode.commands.executeCommand('notesapp.removeAppliedSettings');
    const exclude = (settings().inspect('files.exclude')?.workspaceValue as Record<string, boolean>) ?? {};
    assert.equal(exclude['their-build/**'], true, 'removal keeps the folder\'s own pattern');
    assert.equal(exclude[ourPattern], undefined, 'removal takes ours back');
    const schemas = (settings().inspect('json.schemas')?.workspaceValue as { url?: string }[]) ?? [];
    assert.deepEqual(schemas.filter((e) => e.url === theirSchema.url), [theirSchema], 'the folder\'s schema entry stays');
    assert.ok(!schemas.some((e) => e.url?.endsWith('/media/config.schema.json')), 'our schema entry is gone');

    await settings().update('files.exclude', Object.keys(exclude).length > 1 ? { ...exclude, 'their-build/**': undefined } : undefined, vscode.ConfigurationTarget.Workspace);
    await settings().update('json.schemas', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('notesapp.applySettings');
  });

  it('"Notes: Remove Applied VS Code Settings" leaves no key of ours behind and stays in effect until applied again', async () => {
    const config = writeConfig((c) => {
      c.editor.fontSize = 19;
      c.theme = 'custom';
      c.customTheme = { name: 'Paper', colors: { editor: '#fdfdfd' }, syntax: { comment: '#777777' } };
      c.ui.sidebarPosition = 'right';
    });
    await until('[markdown] editor.fontSize 19', vscode.workspace.onDidChangeConfiguration, () => (markdownFontSize() === 19 ? true : undefined));
    const ours = [...vscodeSettingsFor(config), { scope: 'workspace', key: 'json.schemas' }];
    const valueOf = (scope: string, key: string) =>
      scope === 'markdown'
        ? vscode.workspace.getConfiguration(undefined, { languageId: 'markdown' }).inspect(key)?.workspaceLanguageValue
        : vscode.workspace.getConfiguration().inspect(key)?.workspaceValue;
    assert.ok(ours.some((w) => valueOf(w.scope, w.key) !== undefined), 'settings were applied before removal');

    const removed = await vscode.commands.executeCommand<string[]>('notesapp.removeAppliedSettings');
    assert.ok(removed && removed.length > 0);
    const left = ours.filter((w) => valueOf(w.scope, w.key) !== undefined).map((w) => `${w.scope}:${w.key}`);
    assert.deepEqual(left, [], 'no applied setting is left');
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const settingsFile = vscode.Uri.joinPath(folder, '.vscode', 'settings.json');
    const text = fs.existsSync(settingsFile.fsPath) ? fs.readFileSync(settingsFile.fsPath, 'utf8') : '';
    for (const key of ['editor.fontSize', 'workbench.colorCustomizations', 'json.schemas', 'workbench.sideBar.location']) {
      assert.ok(!text.includes(`"${key}"`), `${key} is gone from .vscode/settings.json`);
    }

    // Removal sticks: a change through the store (its listener queues an apply at once) applies nothing.
    const confirm: Ask = async () => 'Reset to Defaults';
    await vscode.commands.executeCommand('notesapp.resetConfiguration', { ask: confirm });
    assert.deepEqual(await vscode.commands.executeCommand('notesapp.removeAppliedSettings'), [], 'nothing was applied meanwhile');
    assert.deepEqual(ours.filter((w) => valueOf(w.scope, w.key) !== undefined), []);

    const applied = await vscode.commands.executeCommand<string[]>('notesapp.applySettings');
    assert.ok(applied?.includes('markdown:editor.fontSize'), '"Apply Configuration to VS Code Settings" brings them back');
    assert.equal(markdownFontSize(), 16);
  });
});
