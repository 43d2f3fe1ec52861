// The VS Code settings the configuration asks for: [markdown]-scoped editor settings, folder settings for the rest.
import * as assert from 'node:assert/strict';
import { defaultConfig, type NotesConfig } from '../../../src/core/config/schema';
import { vscodeSettingsFor, type SettingWrite } from '../../../src/vscode/config/settings-map';

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
    assert.deepEqual(w['files.exclude'], { scope: 'workspace', key: 'files.exclude', value: { 'drafts/**': true, '**/.*': true } });
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
