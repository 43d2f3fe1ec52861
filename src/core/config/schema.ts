// The one zod schema of config.json: types, defaults, constraints and descriptions (spec 2.1).
import { z } from 'zod';

export const CONFIG_VERSION = '1.1.0';

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a color of the form #rrggbb');
const millis = (description: string, value: number) => z.number().int().nonnegative().default(value).describe(description);
const flag = (description: string, value: boolean) => z.boolean().default(value).describe(description);

/** Longest exclude glob taken, in characters (the glob compiler refuses any over 65 536). */
const MAX_GLOB_LENGTH = 4096;

/** Exclude globs: each one non-empty (an empty glob matches nothing and is refused by the compiler) and bounded. */
const globs = (defaults: string[], description: string) =>
  z
    .array(
      z
        .string()
        .min(1, 'an exclude pattern must not be empty')
        .max(MAX_GLOB_LENGTH, `an exclude pattern must be at most ${MAX_GLOB_LENGTH} characters`),
    )
    .default(defaults)
    .describe(description);

/** Accelerator strings as the desktop app writes them, e.g. `CommandOrControl+Shift+F`. */
export const accelerator = z
  .string()
  .regex(
    /^((CommandOrControl|CmdOrCtrl|Command|Cmd|Control|Ctrl|Alt|Option|AltGr|Shift|Super|Meta)\+)*([A-Za-z0-9]|F([1-9]|1[0-9]|2[0-4])|Plus|Space|Tab|Backspace|Delete|Insert|Return|Enter|Up|Down|Left|Right|Home|End|PageUp|PageDown|Escape|Esc|[-=[\];',./\\`])$/,
    'must be an accelerator such as CommandOrControl+Shift+F',
  );

export const editorSchema = z
  .strictObject({
    fontSize: z.number().min(10).max(32).default(16).describe('Editor font size in pixels (10 to 32).'),
    fontFamily: z
      .string()
      .default('-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif')
      .describe('CSS-style font family list for note text.'),
    monospaceFontFamily: z
      .string()
      .default('"SF Mono", Menlo, Consolas, "Liberation Mono", monospace')
      .describe('Font family list for code.'),
    lineHeight: z.number().min(1).max(3).default(1.6).describe('Line height as a multiplier of the font size (1.0 to 3.0).'),
    letterSpacing: z.number().min(-5).max(20).default(0).describe('Letter spacing in pixels.'),
    autoSave: flag('Save notes automatically after a pause in typing.', true),
    autoSaveDelay: millis('Delay before auto-save, in milliseconds.', 1000),
    spellCheck: flag('Check spelling while typing.', true),
    wordWrap: flag('Wrap long lines at the editor width.', true),
    showLineNumbers: flag('Show line numbers in code blocks and the editor gutter.', false),
    indentSize: z.number().int().min(1).max(16).default(2).describe('Spaces per indentation level.'),
    tabSize: z.number().int().min(1).max(16).default(2).describe('Tab width in spaces.'),
    insertSpaces: flag('Insert spaces instead of tab characters.', true),
    enableMarkdown: flag('Markdown syntax support.', true),
    enableWikiLinks: flag('[[Wikilinks]] between notes.', true),
    enableMath: flag('Math rendering ($...$ and $$...$$).', true),
    enableTasks: flag('Task lists (- [ ] and - [x]).', true),
    enableTables: flag('Markdown tables.', true),
    enableCodeBlocks: flag('Fenced code blocks with highlighting.', true),
    enableHighlight: flag('==Highlighted text==.', true),
  })
  .describe('Editor fonts, behaviour and markdown features.');

export const customThemeSchema = z
  .strictObject({
    name: z.string().min(1).describe('Name of the custom theme.'),
    colors: z
      .strictObject({
        background: hexColor.describe('Main background.'),
        foreground: hexColor.describe('Main text.'),
        primary: hexColor.describe('Primary accent color.'),
        secondary: hexColor.describe('Secondary accent color.'),
        accent: hexColor.describe('Accent color.'),
        border: hexColor.describe('Border color.'),
        sidebar: hexColor.describe('Sidebar background.'),
        editor: hexColor.describe('Editor background.'),
      })
      .partial()
      .default({})
      .describe('Interface colors, #rrggbb.'),
    syntax: z
      .strictObject({
        keyword: hexColor.describe('Keywords.'),
        string: hexColor.describe('String literals.'),
        comment: hexColor.describe('Comments.'),
        function: hexColor.describe('Function names.'),
        variable: hexColor.describe('Variables.'),
      })
      .partial()
      .default({})
      .describe('Syntax colors, #rrggbb.'),
  })
  .describe('Used when theme is "custom".');

export const workspaceSchema = z
  .strictObject({
    defaultPath: z.string().default('').describe('Default workspace folder, as an absolute path (~ is not expanded); empty means none.'),
    recentWorkspaces: z.array(z.string()).default([]).describe('Recently opened workspace folders, newest first.'),
    maxRecentWorkspaces: z.number().int().min(0).max(100).default(10).describe('How many recent workspaces are remembered.'),
    rememberLastWorkspace: flag('Reopen the last workspace on launch.', true),
    restoreSession: flag('Restore open tabs and folders.', true),
  })
  .describe('Workspace folders.');

export const filesSchema = z
  .strictObject({
    defaultNewFileTemplate: z
      .string()
      .default('# {title}\n\n')
      .describe('Template for new notes; variables {title}, {date} (YYYY-MM-DD), {time} (HH:MM), {datetime} (ISO 8601).'),
    fileExtension: z
      .string()
      .regex(/^\.[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be an extension of the form .md')
      .default('.md')
      .describe('Extension of new notes, of the form .ext.'),
    excludePatterns: globs(['**/node_modules/**', '**/.git/**', '**/.DS_Store'], 'Glob patterns hidden from the file tree and from list_files, in VS Code\'s glob syntax (a leading ! is a plain character); each non-empty, at most 4096 characters.'),
    watchForChanges: flag('Watch the workspace for changes made by other programs.', true),
    showHiddenFiles: flag('Show files and folders whose names start with a dot.', false),
  })
  .describe('Files in the workspace.');

export const searchSchema = z
  .strictObject({
    caseSensitive: flag('Match case by default.', false),
    wholeWord: flag('Match whole words only by default.', false),
    useRegex: flag('Treat queries as regular expressions by default.', false),
    maxResults: z.number().int().min(1).max(100000).default(1000).describe('Maximum number of search results.'),
    excludePatterns: globs(['**/node_modules/**', '**/.git/**'], 'Glob patterns of files left out of search, in VS Code\'s glob syntax (a leading ! is a plain character); each non-empty, at most 4096 characters.'),
    indexOnStartup: flag('Build the search index when the server starts.', true),
  })
  .describe('Search defaults.');

export const pluginsSchema = z
  .strictObject({
    enabled: z.array(z.string()).default([]).describe('Names of enabled plugins.'),
    settings: z
      .record(z.string().min(1), z.record(z.string(), z.unknown()))
      .default({})
      .describe('Settings per plugin name; free keys (secrets such as apiKey are never logged or exposed).'),
  })
  .describe('Plugins.');

export const mailSchema = z
  .strictObject({
    enabled: flag('Enable the email integration.', false),
    syncInterval: millis('Interval between mail syncs, in milliseconds.', 300000),
    maxEmailsPerSync: z.number().int().min(1).max(10000).default(50).describe('Maximum emails fetched per sync.'),
    defaultLabels: z.array(z.string()).default(['INBOX']).describe('Labels to filter, such as INBOX or UNREAD.'),
    emailToNoteTemplate: z
      .string()
      .default('# {subject}\n\nFrom: {from}\nDate: {date}\n\n{body}\n')
      .describe('Template for notes made from emails: {subject}, {from}, {date}, {body}.'),
  })
  .describe('Email integration.');

export const mcpSchema = z
  .strictObject({
    enabled: flag('Enable the MCP server.', true),
    port: z.number().int().min(1).max(65535).default(3456).describe('Server port (reported in the status record; the transport is stdio).'),
    autoStart: flag('Start the MCP server when the application launches.', true),
    tools: z
      .strictObject({
        fileOperations: flag('File tools: read_file, write_file, list_files, create_file, delete_file, and the note and workspace tools.', true),
        search: flag('Search tools: search_files.', true),
        editor: flag('Editor tools: get_editor_content, set_editor_content, insert_at_cursor.', true),
        ai: flag('AI tools: summarize_note, extract_tasks.', true),
      })
      .default({ fileOperations: true, search: true, editor: true, ai: true })
      .describe('Tool categories offered to AI assistants.'),
  })
  .describe('Local MCP server.');

export const uiSchema = z
  .strictObject({
    sidebarWidth: z.number().int().min(100).max(1000).default(260).describe('Sidebar width in pixels.'),
    sidebarPosition: z.enum(['left', 'right']).default('left').describe('Side of the sidebar.'),
    showStatusBar: flag('Show the status bar.', true),
    showToolbar: flag('Show the toolbar.', true),
    compactMode: flag('Denser layout.', false),
    animationsEnabled: flag('Interface animations.', true),
    notificationPosition: z
      .enum(['top-right', 'top-left', 'bottom-right', 'bottom-left', 'top-center', 'bottom-center'])
      .default('bottom-right')
      .describe('Corner where notifications appear.'),
    notificationDuration: millis('How long notifications stay, in milliseconds.', 5000),
  })
  .describe('User interface.');

export const performanceSchema = z
  .strictObject({
    maxOpenTabs: z.number().int().min(1).max(1000).default(20).describe('Maximum open tabs.'),
    lazyLoadFiles: flag('Load file contents on demand.', true),
    virtualScrolling: flag('Virtual scrolling for long lists.', true),
    debounceDelay: millis('Debounce delay for watchers and typing, in milliseconds.', 300),
    cacheSize: z.number().int().min(0).max(1000000).default(100000).describe('Number of files whose text is cached in memory.'),
  })
  .describe('Performance.');

export const securitySchema = z
  .strictObject({
    allowExternalImages: flag('Load images from the internet in the preview.', true),
    allowExternalLinks: flag('Open external links.', true),
    sandboxPlugins: flag('Run plugins in a sandbox with memory and CPU limits.', true),
    validateFileTypes: flag('Only text and note file types may be created or written.', true),
    maxFileSize: z.number().int().positive().default(10485760).describe('Largest file read or written, in bytes.'),
  })
  .describe('Security.');

export const developmentSchema = z
  .strictObject({
    devTools: flag('Developer tools.', false),
    debugLogging: flag('Verbose logs.', false),
    showPerformanceMetrics: flag('Show performance metrics.', false),
    enableExperimentalFeatures: flag('Experimental features.', false),
  })
  .describe('Development.');

export const configSchema = z
  .strictObject({
    // Editors and JSON tooling point a file at its schema this way; it is not a setting, but it is allowed.
    $schema: z.string().optional().describe('JSON Schema of this file, for editors; not a setting.'),
    version: z
      .string()
      .regex(/^\d+\.\d+\.\d+$/, 'must be a version such as 1.1.0')
      .default(CONFIG_VERSION)
      .describe('Configuration version; older files are migrated automatically.'),
    theme: z.enum(['light', 'dark', 'system', 'custom']).default('system').describe('Color theme; system follows the OS.'),
    customTheme: customThemeSchema.nullable().default(null),
    editor: editorSchema.default(() => editorSchema.parse({})),
    shortcuts: z
      .record(z.string(), accelerator)
      .default({
        'save-file': 'CommandOrControl+S',
        'new-file': 'CommandOrControl+N',
        'command-palette': 'CommandOrControl+Shift+P',
        'global-search': 'CommandOrControl+Shift+F',
      })
      .describe('Action id to accelerator, e.g. "global-search": "CommandOrControl+Shift+F".'),
    plugins: pluginsSchema.default(() => pluginsSchema.parse({})),
    workspace: workspaceSchema.default(() => workspaceSchema.parse({})),
    files: filesSchema.default(() => filesSchema.parse({})),
    search: searchSchema.default(() => searchSchema.parse({})),
    integrations: z
      .strictObject({
        mail: mailSchema.default(() => mailSchema.parse({})),
        mcp: mcpSchema.default(() => mcpSchema.parse({})),
      })
      .default(() => ({ mail: mailSchema.parse({}), mcp: mcpSchema.parse({}) })),
    ui: uiSchema.default(() => uiSchema.parse({})),
    performance: performanceSchema.default(() => performanceSchema.parse({})),
    security: securitySchema.default(() => securitySchema.parse({})),
    development: developmentSchema.default(() => developmentSchema.parse({})),
  })
  .describe('notesapp configuration');

export type NotesConfig = z.infer<typeof configSchema>;

/** A fresh copy of the defaults. */
export function defaultConfig(): NotesConfig {
  return configSchema.parse({});
}
