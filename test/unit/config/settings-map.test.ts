// The VS Code settings the configuration asks for: [markdown]-scoped editor settings, folder settings for the rest.
import * as assert from 'node:assert/strict';
import { defaultConfig, type NotesConfig } from '../../../src/core/config/schema';
import { joinSetting, unjoinSetting, vscodeSettingsFor, type SettingWrite } from '../../../src/vscode/config/settings-map';

function byKey(writes: SettingWrite[]): Record<string, SettingWrite> {
  return Object.fromEntries(writes.map((w) => [w.key, w]));
}

function config(patch: (c: NotesConfig) => void): NotesConfig {
  const c = defaultConfig();
  patch(c);
  return c;
}

describe('config -> VS Code settings', () => {
  it('editor fonts and behaviour go to the [markdown] scope with VS Code values', () => {
    const w = byKey(
      vscodeSettingsFor(
        config((c) => {
          Object.assign(c.editor, { fontSize: 20, fontFamily: 'Georgia', lineHeight: 1.8, letterSpacing: 0.5, wordWrap: false, tabSize: 4, indentSize: 4, insertSpaces: false, showLineNumbers: true, autoSave: false, autoSaveDelay: 2500 });
        }),
      ),
    );
    const md = (key: string) => (assert.equal(w[key]?.scope, 'markdown', key), w[key].value);
    assert.equal(md('editor.fontSize'), 20);
    assert.equal(md('editor.fontFamily'), 'Georgia');
    assert.equal(md('editor.lineHeight'), 1.8);
    assert.equal(md('editor.letterSpacing'), 0.5);
    assert.equal(md('editor.wordWrap'), 'off');
    assert.equal(md('editor.tabSize'), 4);
    assert.equal(md('editor.indentSize'), 4);
    assert.equal(md('editor.insertSpaces'), false);
    assert.equal(md('editor.lineNumbers'), 'on');
    assert.equal(md('files.autoSave'), 'off');
    assert.equal(md('files.autoSaveDelay'), 2500);
    assert.equal(byKey(vscodeSettingsFor(defaultConfig()))['files.autoSave'].value, 'afterDelay');
  });

  it('everything else is a folder setting; no write goes anywhere else', () => {
    for (const w of vscodeSettingsFor(defaultConfig())) assert.ok(['markdown', 'workspace'].includes(w.scope));
    const w = byKey(
      vscodeSettingsFor(
        config((c) => {
          c.files.excludePatterns = ['drafts/**'];
          c.files.showHiddenFiles = false;
          c.search.excludePatterns = ['archive/**'];
          c.ui.sidebarPosition = 'right';
          c.ui.showStatusBar = false;
          c.editor.enableMath = false;
        }),
      ),
    );
    assert.deepEqual(w['files.exclude'], { scope: 'workspace', key: 'files.exclude', value: { 'drafts/**': true, '**/.*': true }, join: 'keys' });
    assert.equal(w['search.exclude'].join, 'keys');
    assert.deepEqual(w['search.exclude'].value, { 'archive/**': true });
    assert.equal(w['workbench.sideBar.location'].value, 'right');
    assert.equal(w['workbench.statusBar.visible'].value, false);
    assert.equal(w['markdown.math.enabled'].value, false);
    const shown = byKey(vscodeSettingsFor(config((c) => (c.files.showHiddenFiles = true))))['files.exclude'].value as Record<string, boolean>;
    assert.equal(shown['**/.*'], undefined);
  });

  it('maps the theme: light, dark, system, custom with colors and syntax', () => {
    const theme = (t: NotesConfig['theme'], custom: NotesConfig['customTheme'] = null) =>
      byKey(vscodeSettingsFor(config((c) => ((c.theme = t), (c.customTheme = custom)))));
    assert.equal(theme('light')['workbench.colorTheme'].value, 'Default Light Modern');
    assert.equal(theme('dark')['workbench.colorTheme'].value, 'Default Dark Modern');
    assert.equal(theme('system')['window.autoDetectColorScheme'].value, true);
    assert.equal(theme('system')['workbench.colorTheme'], undefined);
    const custom = theme('custom', { name: 'Paper', colors: { background: '#fafafa', editor: '#ffffff', sidebar: '#eeeeee' }, syntax: { comment: '#888888' } });
    assert.equal(custom['workbench.colorTheme'].value, 'Default Light Modern', 'a light background picks the light base');
    assert.equal((custom['workbench.colorCustomizations'].value as Record<string, string>)['editor.background'], '#ffffff');
    assert.equal((custom['workbench.colorCustomizations'].value as Record<string, string>)['sideBar.background'], '#eeeeee');
    assert.deepEqual(custom['editor.tokenColorCustomizations'].value, {
      textMateRules: [{ scope: ['comment', 'punctuation.definition.comment'], settings: { foreground: '#888888' } }],
    });
    assert.equal(theme('custom', { name: 'Night', colors: { background: '#101010' }, syntax: {} })['workbench.colorTheme'].value, 'Default Dark Modern');
    assert.equal(theme('dark')['workbench.colorCustomizations'], undefined, 'custom colors only with the custom theme');
  });

  it('never names the same setting twice in one scope', () => {
    const writes = vscodeSettingsFor(config((c) => ((c.theme = 'custom'), (c.customTheme = { name: 'x', colors: { editor: '#000000' }, syntax: { keyword: '#ffffff' } }))));
    const ids = writes.map((w) => `${w.scope}:${w.key}`);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe('joining our settings with the folder\'s own (files.exclude, search.exclude, json.schemas)', () => {
  it('exclude patterns go over the folder\'s own, which stay; removal takes back only ours, restoring a key we overwrote', () => {
    const folder = { '**/node_modules': true, 'drafts/**': false };
    const ours = { 'drafts/**': true, 'archive/**': true };
    const written = joinSetting('keys', folder, ours, folder);
    assert.deepEqual(written, { '**/node_modules': true, 'drafts/**': true, 'archive/**': true });
    // The user adds a pattern of their own meanwhile; removal keeps it and gives drafts/** its earlier value back.
    const edited = { ...(written as object), 'build/**': true };
    assert.deepEqual(unjoinSetting('keys', edited, ours, folder), { value: { '**/node_modules': true, 'drafts/**': false, 'build/**': true } });
  });

  it('a pattern dropped from the config is taken back on the next apply; one the user changed since is theirs', () => {
    const before = { 'x/**': true };
    const first = joinSetting('keys', before, { 'a/**': true, 'b/**': true }, before);
    const second = joinSetting('keys', first, { 'b/**': true }, before, { 'a/**': true, 'b/**': true });
    assert.deepEqual(second, { 'x/**': true, 'b/**': true });
    assert.deepEqual(unjoinSetting('keys', { 'x/**': true, 'b/**': false }, { 'b/**': true }, before), { value: { 'x/**': true, 'b/**': false } });
    assert.deepEqual(unjoinSetting('keys', { 'b/**': true }, { 'b/**': true }, undefined), { value: undefined }, 'nothing left: the setting goes');
  });

  it('our json.schemas entry joins the folder\'s entries by url; removal keeps entries added since and forgets only ours', () => {
    const url = 'file:///ext/media/config.schema.json';
    const ours = [{ fileMatch: ['/tmp/c/config.json'], url }];
    const theirs = { fileMatch: ['*.foo.json'], url: 'https://example.test/foo.json' };
    const written = joinSetting('url', [theirs, { fileMatch: ['/old/path.json'], url }], ours, [theirs]);
    assert.deepEqual(written, [theirs, ...ours], 'a stale entry of ours is replaced, not duplicated');
    const added = { fileMatch: ['*.bar.json'], url: 'https://example.test/bar.json' };
    assert.deepEqual(unjoinSetting('url', [theirs, ...ours, added], ours, [theirs]), { value: [theirs, added] });
    assert.deepEqual(unjoinSetting('url', ours, ours, undefined), { value: undefined });
  });

  it('our json.schemas entry of before an update of the extension (another url) is replaced, and removal leaves none', () => {
    const theirs = { fileMatch: ['*.foo.json'], url: 'https://example.test/foo.json' };
    const old = [{ fileMatch: ['/cfg/config.json'], url: 'file:///ext/notesapp-1.0.0/media/config.schema.json' }];
    const next = [{ fileMatch: ['/cfg/config.json'], url: 'file:///ext/notesapp-1.1.0/media/config.schema.json' }];
    const written = joinSetting('url', [theirs, ...old], next, [theirs], old);
    assert.deepEqual(written, [theirs, ...next]);
    assert.deepEqual(unjoinSetting('url', written, next, [theirs]), { value: [theirs] });
  });

  it('a whole value is restored only while it is still ours', () => {
    assert.deepEqual(unjoinSetting('replace', 19, 19, 14), { value: 14 });
    assert.equal(unjoinSetting('replace', 20, 19, 14), 'unchanged');
  });
});
