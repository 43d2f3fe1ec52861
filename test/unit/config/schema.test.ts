// Every constraint and stated default of the config schema (spec 2.1), checked through validation.
import * as assert from 'node:assert/strict';
import { CONFIG_VERSION, configSchema, defaultConfig } from '../../../src/core/config/schema';

/** Builds a config object with `value` at the dotted `path`. */
function at(path: string, value: unknown): Record<string, unknown> {
  // A custom theme needs its name; it is added so that the field under test is the only thing wrong.
  if (path.startsWith('customTheme.')) return { customTheme: { name: 'T', ...(at(path.slice('customTheme.'.length), value) as object) } };
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

function accepts(path: string, value: unknown): void {
  const r = configSchema.safeParse(at(path, value));
  assert.ok(r.success, `${path} = ${JSON.stringify(value)} should be accepted: ${r.success ? '' : r.error.message}`);
}

function rejects(path: string, value: unknown): void {
  const r = configSchema.safeParse(at(path, value));
  assert.ok(!r.success, `${path} = ${JSON.stringify(value)} should be rejected`);
  const paths = r.error.issues.map((i) => [...i.path].join('.'));
  assert.ok(
    paths.some((p) => p === path || path.startsWith(`${p}.`) || p.startsWith(`${path}.`)),
    `the error names ${path}, got ${paths.join(', ')}`,
  );
}

// [dotted path, accepted values, rejected values]
const constraints: [string, unknown[], unknown[]][] = [
  ['version', ['1.1.0', '2.0.10'], ['1.1', 'latest', 1]],
  ['theme', ['light', 'dark', 'system', 'custom'], ['blue', '', null]],
  ['editor.fontSize', [10, 16, 32, 12.5], [9, 9.99, 33, '16', null]],
  ['editor.fontFamily', ['Georgia, serif'], [12]],
  ['editor.monospaceFontFamily', ['Menlo'], [false]],
  ['editor.lineHeight', [1, 1.5, 3], [0.99, 3.01, '1.5']],
  ['editor.letterSpacing', [0, -5, 0.5, 20], [-5.1, 21, '1px']],
  ['editor.autoSave', [true, false], ['yes', 1]],
  ['editor.autoSaveDelay', [0, 1000], [-1, 1.5, '1000']],
  ['editor.spellCheck', [false], ['no']],
  ['editor.wordWrap', [true], [0]],
  ['editor.showLineNumbers', [true], [null]],
  ['editor.indentSize', [1, 4, 16], [0, 17, 2.5]],
  ['editor.tabSize', [1, 8, 16], [0, 17, 2.5]],
  ['editor.insertSpaces', [false], ['true']],
  ...['enableMarkdown', 'enableWikiLinks', 'enableMath', 'enableTasks', 'enableTables', 'enableCodeBlocks', 'enableHighlight'].map(
    (k): [string, unknown[], unknown[]] => [`editor.${k}`, [true, false], ['on']],
  ),
  ['customTheme', [null, { name: 'Mine' }, { name: 'Mine', colors: { background: '#112233' }, syntax: { keyword: '#AABBCC' } }], [{ colors: {} }, { name: '' }, 'dark']],
  ...['background', 'foreground', 'primary', 'secondary', 'accent', 'border', 'sidebar', 'editor'].map(
    (k): [string, unknown[], unknown[]] => [`customTheme.colors.${k}`, ['#a1B2c3', '#000000'], ['#12345', '#1234567', 'red', '#ggg000', 'rgb(0,0,0)']],
  ),
  ...['keyword', 'string', 'comment', 'function', 'variable'].map(
    (k): [string, unknown[], unknown[]] => [`customTheme.syntax.${k}`, ['#FFFFFF'], ['#abc', 'blue']],
  ),
  ['shortcuts', [{ 'save-file': 'CommandOrControl+S', 'my-action': 'Alt+F4', x: 'CmdOrCtrl+Shift+/' }], [{ 'save-file': 'Ctrl+' }, { 'new-file': 'Hyper+N' }, { 'global-search': '' }, { 'new-file': 'CommandOrControl+Shift' }]],
  ['plugins.enabled', [[], ['a', 'b']], ['a', [1]]],
  ['plugins.settings', [{ ai: { apiKey: 'x', option: 3 } }], [{ ai: 'x' }, { '': {} }]],
  ['workspace.defaultPath', ['/notes'], [null]],
  ['workspace.recentWorkspaces', [['/a']], [[1], '/a']],
  ['workspace.maxRecentWorkspaces', [0, 100], [-1, 101, 1.5]],
  ['workspace.rememberLastWorkspace', [true], ['y']],
  ['workspace.restoreSession', [false], [1]],
  ['files.defaultNewFileTemplate', ['# {title}'], [3]],
  ['files.fileExtension', ['.md', '.markdown', '.txt', '.md.txt'], ['md', '.', '.m d', '', '..md']],
  ['files.excludePatterns', [['**/x']], ['**/x', [3]]],
  ['files.watchForChanges', [true], ['true']],
  ['files.showHiddenFiles', [true], [0]],
  ['search.caseSensitive', [true], ['false']],
  ['search.wholeWord', [true], [1]],
  ['search.useRegex', [true], [null]],
  ['search.maxResults', [1, 100000], [0, 100001, 2.5]],
  ['search.excludePatterns', [[]], [{}]],
  ['search.indexOnStartup', [false], ['no']],
  ['integrations.mail.enabled', [true], ['on']],
  ['integrations.mail.syncInterval', [0, 60000], [-1, 0.5]],
  ['integrations.mail.maxEmailsPerSync', [1, 10000], [0, 10001]],
  ['integrations.mail.defaultLabels', [['INBOX', 'UNREAD']], ['INBOX']],
  ['integrations.mail.emailToNoteTemplate', ['{subject}'], [[]]],
  ['integrations.mcp.enabled', [false], ['false']],
  ['integrations.mcp.port', [1, 3456, 65535], [0, 65536, 80.5, '3456']],
  ['integrations.mcp.autoStart', [false], [0]],
  ...['fileOperations', 'search', 'editor', 'ai'].map((k): [string, unknown[], unknown[]] => [`integrations.mcp.tools.${k}`, [false], ['off']]),
  ['ui.sidebarWidth', [100, 1000], [99, 1001, 200.5]],
  ['ui.sidebarPosition', ['left', 'right'], ['top', 'Left']],
  ['ui.showStatusBar', [false], ['no']],
  ['ui.showToolbar', [false], [1]],
  ['ui.compactMode', [true], ['yes']],
  ['ui.animationsEnabled', [false], [null]],
  ['ui.notificationPosition', ['top-right', 'bottom-left', 'top-center'], ['middle', 'top']],
  ['ui.notificationDuration', [0, 3000], [-1, 'long']],
  ['performance.maxOpenTabs', [1, 1000], [0, 1001]],
  ['performance.lazyLoadFiles', [false], ['x']],
  ['performance.virtualScrolling', [false], [2]],
  ['performance.debounceDelay', [0, 300], [-5, 0.1]],
  ['performance.cacheSize', [0, 1000000], [-1, 1000001]],
  ['security.allowExternalImages', [false], ['no']],
  ['security.allowExternalLinks', [false], [0]],
  ['security.sandboxPlugins', [false], ['off']],
  ['security.validateFileTypes', [false], [null]],
  ['security.maxFileSize', [1, 10485760], [0, -1, 1.5]],
  ...['devTools', 'debugLogging', 'showPerformanceMetrics', 'enableExperimentalFeatures'].map(
    (k): [string, unknown[], unknown[]] => [`development.${k}`, [true], ['true']],
  ),
];

describe('config schema', () => {
  for (const [path, good, bad] of constraints) {
    it(`${path}: accepts ${good.map((v) => JSON.stringify(v)).join(', ')}; rejects ${bad.map((v) => JSON.stringify(v)).join(', ')}`, () => {
      good.forEach((v) => accepts(path, v));
      bad.forEach((v) => rejects(path, v));
    });
  }

  it('rejects unknown keys in every section, so typos are reported', () => {
    for (const path of ['unknownTop', 'editor.fontsize', 'ui.x', 'integrations.slack', 'integrations.mcp.tools.other', 'customTheme.colors.link']) {
      const value = path.startsWith('customTheme') ? { name: 'x', colors: { link: '#000000' } } : 1;
      const r = configSchema.safeParse(path.startsWith('customTheme') ? { customTheme: value } : at(path, value));
      assert.ok(!r.success, `${path} is rejected`);
      assert.equal(r.error.issues[0].code, 'unrecognized_keys');
    }
  });

  it('states the defaults the spec gives and fills every section', () => {
    const d = defaultConfig();
    assert.equal(d.integrations.mcp.port, 3456);
    assert.equal(d.security.maxFileSize, 10485760);
    assert.equal(d.version, CONFIG_VERSION);
    assert.equal(d.theme, 'system');
    assert.equal(d.customTheme, null);
    assert.deepEqual(Object.keys(d.shortcuts).sort(), ['command-palette', 'global-search', 'new-file', 'save-file']);
    assert.deepEqual(configSchema.parse(d), d, 'the defaults are valid');
  });

  it('defaults are fresh copies, so changing one never changes another', () => {
    const a = defaultConfig();
    a.files.excludePatterns.push('x');
    a.editor.fontSize = 30;
    assert.deepEqual(defaultConfig().files.excludePatterns, ['**/node_modules/**', '**/.git/**', '**/.DS_Store']);
    assert.equal(defaultConfig().editor.fontSize, 16);
  });
});
