// The mapped VS Code settings as the open folder holds them: applied, re-applied on each change of the file, taken back.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { defaultConfig, type NotesConfig } from '../../../src/core/config/schema';
import { AppliedSettings } from '../../../src/vscode/config/applied-settings';
import { registerConfigCommands } from '../../../src/vscode/config/commands';
import { registerConfiguration } from '../../../src/vscode/config/register';
import { ConfigStore } from '../../../src/core/config/store';
import { commands, fakeLog, folderSettings, resetFake, shown, Uri, window, workspace } from '../fake-vscode';
import { tempConfigDir } from './helpers';

/** workspaceState as VS Code keeps it: values go through JSON. */
class Memento {
  private readonly values = new Map<string, string>();
  keys(): string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    const v = this.values.get(key);
    return v === undefined ? fallback : (JSON.parse(v) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.stringify(value));
  }
}

function config(patch: (c: NotesConfig) => void = () => undefined): NotesConfig {
  const c = defaultConfig();
  patch(c);
  return c;
}

const markdown = () => (folderSettings.values['[markdown]'] ?? {}) as Record<string, unknown>;

describe('applied VS Code settings in the open folder', () => {
  let log: ReturnType<typeof fakeLog>;
  let applied: AppliedSettings;

  beforeEach(() => {
    resetFake();
    workspace.workspaceFolders = [{ uri: Uri.file('/notes'), name: 'notes', index: 0 }];
    log = fakeLog();
    applied = new AppliedSettings(new Memento() as never, log as never);
  });

  afterEach(() => resetFake());

  it('a setting changed by hand after it was applied stays when another field of the file changes; a change of its own field applies', async () => {
    await applied.apply(config((c) => ((c.editor.fontSize = 14), (c.files.excludePatterns = ['drafts/**']))), { enable: true });
    assert.equal(markdown()['editor.fontSize'], 14);
    assert.equal((folderSettings.values['files.exclude'] as Record<string, boolean>)['drafts/**'], true);

    // The user edits .vscode/settings.json: a bigger font for notes, and drafts shown after all.
    (folderSettings.values['[markdown]'] as Record<string, unknown>)['editor.fontSize'] = 20;
    (folderSettings.values['files.exclude'] as Record<string, boolean>)['drafts/**'] = false;

    // Then changes the theme in config.json.
    await applied.apply(config((c) => ((c.editor.fontSize = 14), (c.files.excludePatterns = ['drafts/**']), (c.theme = 'dark'))));
    assert.equal(folderSettings.values['workbench.colorTheme'], 'Default Dark Modern');
    assert.equal(markdown()['editor.fontSize'], 20, 'the font size set by hand stays');
    assert.equal((folderSettings.values['files.exclude'] as Record<string, boolean>)['drafts/**'], false, 'the pattern switched off by hand stays off');

    // A change of editor.fontSize itself in the file is applied.
    await applied.apply(config((c) => ((c.editor.fontSize = 18), (c.files.excludePatterns = ['drafts/**']), (c.theme = 'dark'))));
    assert.equal(markdown()['editor.fontSize'], 18);

    // Removal takes back what is ours and leaves what the user set.
    await applied.remove();
    assert.equal(markdown()['editor.fontSize'], undefined);
    assert.equal(folderSettings.values['workbench.colorTheme'], undefined);
    assert.deepEqual(folderSettings.values['files.exclude'], { 'drafts/**': false });
  });

  it('"Apply Configuration to VS Code Settings" (enable) applies every field again, over values set by hand', async () => {
    await applied.apply(config((c) => (c.editor.fontSize = 14)), { enable: true });
    (folderSettings.values['[markdown]'] as Record<string, unknown>)['editor.fontSize'] = 20;
    await applied.apply(config((c) => (c.editor.fontSize = 14)), { enable: true });
    assert.equal(markdown()['editor.fontSize'], 14);
  });

  it('a write VS Code refuses is tried again on the next change and leaves nothing behind after removal', async () => {
    await applied.apply(config((c) => (c.editor.fontSize = 14)), { enable: true });
    folderSettings.refuse = (key) => (key === 'editor.fontSize' ? 'Unable to write into workspace settings because the file has unsaved changes.' : undefined);
    await applied.apply(config((c) => (c.editor.fontSize = 16)));
    assert.equal(markdown()['editor.fontSize'], 14);
    assert.ok(log.lines.some((l) => /warn Could not write \[markdown\] editor\.fontSize/.test(l)));
    folderSettings.refuse = undefined;

    await applied.remove();
    assert.equal(markdown()['editor.fontSize'], undefined, 'the value written before the refused write is taken back');

    await applied.apply(config((c) => (c.editor.fontSize = 14)), { enable: true });
    folderSettings.refuse = (key) => (key === 'editor.fontSize' ? 'refused' : undefined);
    await applied.apply(config((c) => (c.editor.fontSize = 16)));
    folderSettings.refuse = undefined;
    await applied.apply(config((c) => ((c.editor.fontSize = 16), (c.theme = 'dark'))));
    assert.equal(markdown()['editor.fontSize'], 16, 'the next change of the file applies the size the refused write was for');
  });

  it('a removal VS Code refuses (unsaved settings file) is kept on record and done by the next "Remove Applied VS Code Settings"', async () => {
    await applied.apply(config((c) => ((c.editor.fontSize = 19), (c.theme = 'dark'))), { enable: true });
    const tmp = tempConfigDir();
    try {
      registerConfigCommands({ subscriptions: [] } as never, new ConfigStore({ file: tmp.file }), applied, log as never);
      folderSettings.refuse = () => 'Unable to write into workspace settings because the file has unsaved changes.';
      await commands.executeCommand('notesapp.removeAppliedSettings');
      assert.equal(markdown()['editor.fontSize'], 19);
      assert.ok(applied.appliedKeys().includes('markdown:editor.fontSize'), 'still on record as ours');
      const warning = shown.find((m) => m.kind === 'warning');
      assert.match(warning?.message ?? '', /refused to change \d+ \(.*markdown:editor\.fontSize.*\).*run "Notes: Remove Applied VS Code Settings" again/);
      folderSettings.refuse = undefined;
      const removed = (await commands.executeCommand('notesapp.removeAppliedSettings')) as string[];
      assert.ok(removed.includes('markdown:editor.fontSize'));
      assert.deepEqual(folderSettings.values, {}, 'nothing of ours is left');
      assert.equal(shown.at(-1)?.kind, 'info');
    } finally {
      tmp.cleanup();
    }
  });

  it('a setting the file no longer asks for whose removal VS Code refused is taken back on the next change', async () => {
    await applied.apply(config((c) => (c.theme = 'dark')), { enable: true });
    folderSettings.refuse = (key) => (key === 'workbench.colorTheme' ? 'refused' : undefined);
    await applied.apply(config((c) => (c.theme = 'system')));
    assert.equal(folderSettings.values['workbench.colorTheme'], 'Default Dark Modern');
    folderSettings.refuse = undefined;
    await applied.apply(config((c) => ((c.theme = 'system'), (c.editor.fontSize = 18))));
    assert.equal(folderSettings.values['workbench.colorTheme'], undefined);
    assert.equal(folderSettings.values['window.autoDetectColorScheme'], true);
  });

  it('a setting that was never there before is gone after removal, and one the folder had is put back', async () => {
    folderSettings.values['[markdown]'] = { 'editor.fontSize': 12 };
    folderSettings.values['search.exclude'] = { 'build/**': true };
    await applied.apply(config((c) => ((c.editor.fontSize = 19), (c.search.excludePatterns = ['archive/**']))), { enable: true });
    assert.equal(markdown()['editor.fontSize'], 19);
    assert.deepEqual(folderSettings.values['search.exclude'], { 'build/**': true, 'archive/**': true });
    await applied.remove();
    assert.deepEqual(folderSettings.values, { '[markdown]': { 'editor.fontSize': 12 }, 'search.exclude': { 'build/**': true } });
  });
});

describe('the configuration file while it is being edited', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  let subscriptions: { dispose(): void }[];
  const originalError = window.showErrorMessage;

  beforeEach(() => {
    resetFake();
    tmp = tempConfigDir();
    const notes = path.join(tmp.dir, 'notes');
    fs.mkdirSync(notes);
    workspace.workspaceFolders = [{ uri: Uri.file(notes), name: 'notes', index: 0 }];
    process.env.NOTESAPP_CONFIG_PATH = tmp.file;
    subscriptions = [];
  });

  afterEach(() => {
    for (const s of subscriptions) s.dispose();
    window.showErrorMessage = originalError;
    delete process.env.NOTESAPP_CONFIG_PATH;
    resetFake();
    tmp.cleanup();
  });

  const fontSize = () => (folderSettings.values['[markdown]'] as Record<string, unknown> | undefined)?.['editor.fontSize'];

  /** Resolves once the folder's [markdown] editor.fontSize is `size`. */
  const fontSizeBecomes = (size: number) =>
    new Promise<void>((resolve) => {
      if (fontSize() === size) return resolve();
      const sub = folderSettings.changed.event(() => {
        if (fontSize() !== size) return;
        sub.dispose();
        resolve();
      });
    });

  it('a save that is not JSON (a comma missing) keeps the applied theme and fonts instead of applying the defaults', async () => {
    const notes = workspace.workspaceFolders![0].uri.fsPath;
    const text = (fontSize: number, comma = ',') =>
      `{\n  "theme": "dark"${comma}\n  "editor": { "fontSize": ${fontSize} },\n  "workspace": { "defaultPath": ${JSON.stringify(notes)} }\n}\n`;
    fs.writeFileSync(tmp.file, text(20));
    const context = { subscriptions, workspaceState: new Memento(), extensionUri: Uri.file('/ext') };
    const feature = registerConfiguration(context as never, fakeLog() as never);
    await feature.ready;
    assert.equal(folderSettings.values['workbench.colorTheme'], 'Default Dark Modern');
    assert.equal(fontSize(), 20);

    const noticed = new Promise<void>((resolve) => {
      window.showErrorMessage = async (message: string) => {
        if (/configuration is invalid/.test(message)) resolve();
        return undefined;
      };
    });
    folderSettings.writes = [];
    fs.writeFileSync(tmp.file, text(20, ''));
    await noticed;
    // Applying by hand meanwhile is refused with the reason, rather than writing the defaults.
    const errors: string[] = [];
    window.showErrorMessage = async (message: string) => (errors.push(message), undefined);
    assert.deepEqual(await commands.executeCommand('notesapp.applySettings'), []);
    assert.match(errors.join('\n'), /cannot be applied: .*config\.json cannot be used \(.*\)\. Fix it/);
    // Fixed, with another size: applied once the file is JSON again.
    fs.writeFileSync(tmp.file, text(22));
    await fontSizeBecomes(22);
    assert.deepEqual(folderSettings.writes, [{ key: 'editor.fontSize', value: 22, language: 'markdown' }], 'nothing else was written meanwhile');
    assert.equal(folderSettings.values['workbench.colorTheme'], 'Default Dark Modern');
  });
});
