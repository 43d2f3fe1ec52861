// Which VS Code settings the configuration drives (pure: no 'vscode' import, unit-tested in plain Node).
import { isDeepStrictEqual } from 'node:util';
import type { NotesConfig } from '../../core/config/schema';

/** `markdown`: a language-scoped `[markdown]` setting; `workspace`: a setting of the opened folder. */
export type SettingScope = 'markdown' | 'workspace';

/**
 * How our value joins the folder's own: `replace` (default) writes it whole; `keys` (an object such as
 * `files.exclude`) puts our keys over the folder's own; `url` (an array such as `json.schemas`) adds our entries
 * beside the folder's, each known by its `url`.
 */
export type SettingJoin = 'replace' | 'keys' | 'url';

export interface SettingWrite {
  scope: SettingScope;
  /** Full setting id, e.g. `editor.fontSize`. */
  key: string;
  /** Our part of the value (for `keys` and `url` joins only ours, not the folder's). */
  value: unknown;
  join?: SettingJoin;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const urlOf = (v: unknown) => (isObj(v) ? v.url : undefined);

/**
 * The value to write so that the folder has ours joined with its own. `current` is the folder's value now,
 * `before` the folder's value before we first wrote, `oldOurs` what we joined last time (keys we no longer
 * want get the folder's earlier value back). A value (or, for `keys`, a key) that the user changed since we
 * wrote it stays theirs while ours for it is the same as last time: only a change of ours is written over it,
 * unless `overUsers` (the user asked for the configuration to be applied again).
 */
export function joinSetting(join: SettingJoin, current: unknown, ours: unknown, before: unknown, oldOurs?: unknown, { overUsers = false } = {}): unknown {
  if (join === 'keys' && isObj(ours)) {
    const old = isObj(oldOurs) ? oldOurs : undefined;
    const out: Obj = isObj(current) ? { ...current } : {};
    const usersNow = (key: string) => !overUsers && old !== undefined && key in old && !isDeepStrictEqual(out[key], old[key]);
    for (const key of Object.keys(old ?? {})) {
      if (key in ours || usersNow(key)) continue;
      if (isObj(before) && key in before) out[key] = before[key];
      else delete out[key];
    }
    for (const [key, value] of Object.entries(ours)) {
      if (usersNow(key) && isDeepStrictEqual(old?.[key], value)) continue;
      out[key] = value;
    }
    return out;
  }
  if (join === 'url' && Array.isArray(ours)) {
    // Ours of last time go too: after an update of the extension its schema's url (which holds the version) changed.
    const urls = new Set([...ours, ...(Array.isArray(oldOurs) ? oldOurs : [])].map(urlOf));
    return [...(Array.isArray(current) ? current.filter((e) => !urls.has(urlOf(e))) : []), ...ours];
  }
  if (!overUsers && oldOurs !== undefined && isDeepStrictEqual(ours, oldOurs) && !isDeepStrictEqual(current, oldOurs)) return current;
  return ours;
}

/**
 * The value to write when ours is taken back, or `unchanged` when the folder's value must stay (it is not ours
 * any more: changed since we wrote it). Parts the user changed since are left as they are.
 */
export function unjoinSetting(join: SettingJoin, current: unknown, ours: unknown, before: unknown): { value: unknown } | 'unchanged' {
  if (join === 'keys' && isObj(ours)) {
    if (!isObj(current)) return 'unchanged';
    const out: Obj = { ...current };
    for (const [key, value] of Object.entries(ours)) {
      if (!isDeepStrictEqual(out[key], value)) continue; // the user's value now
      if (isObj(before) && key in before) out[key] = before[key];
      else delete out[key];
    }
    return { value: Object.keys(out).length === 0 && !isObj(before) ? undefined : out };
  }
  if (join === 'url' && Array.isArray(ours)) {
    if (!Array.isArray(current)) return 'unchanged';
    const urls = new Set(ours.map(urlOf));
    const rest = current.filter((e) => !urls.has(urlOf(e)));
    return { value: rest.length === 0 && !Array.isArray(before) ? undefined : rest };
  }
  return isDeepStrictEqual(current, ours) ? { value: before } : 'unchanged';
}

const LIGHT_THEME = 'Default Light Modern';
const DARK_THEME = 'Default Dark Modern';

/** Relative luminance of `#rrggbb` (WCAG), to pick the base theme a custom theme's colors sit on. */
function isDark(hex: string | undefined): boolean {
  if (!hex) return true;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5;
}

/** customTheme.colors -> workbench.colorCustomizations keys. */
export const COLOR_KEYS: Record<string, string[]> = {
  background: ['panel.background', 'titleBar.activeBackground', 'activityBar.background', 'statusBar.background'],
  foreground: ['foreground', 'editor.foreground'],
  primary: ['button.background', 'focusBorder', 'progressBar.background'],
  secondary: ['button.secondaryBackground', 'badge.background'],
  accent: ['textLink.foreground', 'activityBarBadge.background', 'editorCursor.foreground'],
  border: ['contrastBorder', 'panel.border', 'sideBar.border', 'editorGroup.border'],
  sidebar: ['sideBar.background'],
  editor: ['editor.background'],
};

/** customTheme.syntax -> TextMate scopes for editor.tokenColorCustomizations. */
export const SYNTAX_SCOPES: Record<string, string[]> = {
  keyword: ['keyword', 'storage'],
  string: ['string'],
  comment: ['comment', 'punctuation.definition.comment'],
  function: ['entity.name.function', 'support.function'],
  variable: ['variable'],
};

function patterns(list: string[], extra: Record<string, boolean> = {}): Record<string, boolean> {
  return { ...Object.fromEntries(list.map((p) => [p, true])), ...extra };
}

/**
 * The settings the configuration asks for. Applying them twice is the same as applying them once; the two exclude
 * objects join the folder's own patterns (`keys`), every other value is ours whole.
 */
export function vscodeSettingsFor(config: NotesConfig): SettingWrite[] {
  const e = config.editor;
  const md = (key: string, value: unknown): SettingWrite => ({ scope: 'markdown', key, value });
  const ws = (key: string, value: unknown): SettingWrite => ({ scope: 'workspace', key, value });
  const out: SettingWrite[] = [
    md('editor.fontSize', e.fontSize),
    md('editor.fontFamily', e.fontFamily),
    // VS Code reads a lineHeight below 8 as a multiplier of the font size, which is the config's meaning.
    md('editor.lineHeight', e.lineHeight),
    md('editor.letterSpacing', e.letterSpacing),
    md('editor.wordWrap', e.wordWrap ? 'on' : 'off'),
    md('editor.tabSize', e.tabSize),
    md('editor.indentSize', e.indentSize),
    md('editor.insertSpaces', e.insertSpaces),
    // Without this VS Code guesses indentation from each file and the configured sizes would not hold.
    md('editor.detectIndentation', false),
    md('editor.lineNumbers', e.showLineNumbers ? 'on' : 'off'),
    md('files.autoSave', e.autoSave ? 'afterDelay' : 'off'),
    md('files.autoSaveDelay', e.autoSaveDelay),
    ws('markdown.preview.fontFamily', e.fontFamily),
    ws('markdown.preview.fontSize', e.fontSize),
    ws('markdown.preview.lineHeight', e.lineHeight),
    ws('markdown.math.enabled', e.enableMath),
    { ...ws('files.exclude', patterns(config.files.excludePatterns, config.files.showHiddenFiles ? {} : { '**/.*': true })), join: 'keys' },
    { ...ws('search.exclude', patterns(config.search.excludePatterns)), join: 'keys' },
    ws('search.maxResults', config.search.maxResults),
    ws('workbench.sideBar.location', config.ui.sidebarPosition),
    ws('workbench.statusBar.visible', config.ui.showStatusBar),
  ];
  switch (config.theme) {
    case 'light':
      out.push(ws('workbench.colorTheme', LIGHT_THEME));
      break;
    case 'dark':
      out.push(ws('workbench.colorTheme', DARK_THEME));
      break;
    case 'system':
      out.push(ws('window.autoDetectColorScheme', true));
      break;
    case 'custom': {
      const theme = config.customTheme;
      out.push(ws('workbench.colorTheme', isDark(theme?.colors.background ?? theme?.colors.editor) ? DARK_THEME : LIGHT_THEME));
      if (theme) {
        const colors: Record<string, string> = {};
        for (const [name, value] of Object.entries(theme.colors)) {
          if (value) for (const key of COLOR_KEYS[name] ?? []) colors[key] = value;
        }
        if (Object.keys(colors).length) out.push(ws('workbench.colorCustomizations', colors));
        const rules = Object.entries(theme.syntax)
          .filter(([, value]) => value)
          .map(([name, value]) => ({ scope: SYNTAX_SCOPES[name], settings: { foreground: value } }));
        if (rules.length) out.push(ws('editor.tokenColorCustomizations', { textMateRules: rules }));
      }
      break;
    }
  }
  return out;
}

/** README rows: config field -> VS Code setting. */
export const MAPPED_FIELDS: [field: string, setting: string][] = [
  ['editor.fontSize', '`[markdown]` `editor.fontSize`; `markdown.preview.fontSize`'],
  ['editor.fontFamily', '`[markdown]` `editor.fontFamily`; `markdown.preview.fontFamily`'],
  ['editor.lineHeight', '`[markdown]` `editor.lineHeight` (VS Code reads values below 8 as a multiplier); `markdown.preview.lineHeight`'],
  ['editor.letterSpacing', '`[markdown]` `editor.letterSpacing`'],
  ['editor.wordWrap', '`[markdown]` `editor.wordWrap`: `on` / `off`'],
  ['editor.tabSize', '`[markdown]` `editor.tabSize` (and `editor.detectIndentation`: false, so the size holds)'],
  ['editor.indentSize', '`[markdown]` `editor.indentSize`'],
  ['editor.insertSpaces', '`[markdown]` `editor.insertSpaces`'],
  ['editor.showLineNumbers', '`[markdown]` `editor.lineNumbers`: `on` / `off`'],
  ['editor.autoSave', '`[markdown]` `files.autoSave`: `afterDelay` / `off`'],
  ['editor.autoSaveDelay', '`[markdown]` `files.autoSaveDelay`'],
  ['editor.enableMath', '`markdown.math.enabled` (the built-in preview\'s math rendering)'],
  ['theme', '`workbench.colorTheme`: light -> Default Light Modern, dark -> Default Dark Modern; system -> `window.autoDetectColorScheme`: true; custom -> Dark or Light Modern by the luminance of `customTheme.colors.background`'],
  ['customTheme.colors.*', '`workbench.colorCustomizations` (when theme is custom): ' + Object.entries(COLOR_KEYS).map(([k, v]) => `${k} -> ${v.join(', ')}`).join('; ')],
  ['customTheme.syntax.*', '`editor.tokenColorCustomizations.textMateRules` (when theme is custom): ' + Object.entries(SYNTAX_SCOPES).map(([k, v]) => `${k} -> ${v.join(', ')}`).join('; ')],
  ['files.excludePatterns', '`files.exclude` (each pattern: true), added to the folder\'s own patterns, which stay'],
  ['files.showHiddenFiles', '`files.exclude` gets `**/.*`: true when false'],
  ['search.excludePatterns', '`search.exclude` (each pattern: true), added to the folder\'s own patterns, which stay'],
  ['search.maxResults', '`search.maxResults`'],
  ['ui.sidebarPosition', '`workbench.sideBar.location`'],
  ['ui.showStatusBar', '`workbench.statusBar.visible`'],
  ['shortcuts', 'not a setting: "Notes: Show Shortcuts as Keybindings" opens the matching `keybindings.json` entries (see below)'],
];

/** README rows: fields deliberately not mapped, and why. */
export const NOT_MAPPED: [field: string, reason: string][] = [
  ['version', 'bookkeeping of the file itself'],
  ['editor.monospaceFontFamily', 'VS Code has one editor font per language; code blocks in the preview use the preview stylesheet'],
  ['editor.spellCheck', 'VS Code has no built-in spell checker'],
  ['editor.enableMarkdown, enableWikiLinks, enableTasks, enableTables, enableCodeBlocks, enableHighlight', 'switches of the desktop app\'s editor; nothing here reads them: the extension adds nothing to VS Code\'s own markdown preview, and the MCP tools parse every note the same whatever they say'],
  ['workspace.*', 'VS Code manages its own recent folders and session restore; the MCP server uses `workspace.defaultPath`'],
  ['files.defaultNewFileTemplate, files.fileExtension', 'used by the MCP tools: `create_note` fills the template and gives the note that extension, which also counts as a note; there is no new-note command in VS Code (its New File takes the name you type)'],
  ['files.watchForChanges', 'VS Code always watches the opened folder'],
  ['search.caseSensitive, wholeWord, useRegex, indexOnStartup', 'VS Code has no setting for the initial state of its search toggles; the MCP server uses them (`caseSensitive` and `useRegex` as `search_files`\' defaults, `wholeWord` for every query, `indexOnStartup` for its index)'],
  ['plugins.*, integrations.mcp', 'read by the MCP server and the extension\'s server commands'],
  ['integrations.mail', 'kept for the desktop app: there is no email integration here, and nothing reads it'],
  ['ui.sidebarWidth, showToolbar, compactMode', 'VS Code has no such setting'],
  ['ui.animationsEnabled', '`workbench.reduceMotion` is an application-wide setting; writing it would change the user\'s settings'],
  ['ui.notificationPosition, notificationDuration', 'VS Code places and times its notifications itself'],
  ['performance.*, security.*, development.*', 'the MCP server reads `security.maxFileSize`, `security.validateFileTypes`, `performance.cacheSize` and `development.debugLogging`; the others are settings of the desktop app that nothing here reads'],
];
