// Build-time generator: media/config.schema.json and the README's configuration section, from the zod schema.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MAX_BACKUPS_PER_KIND } from '../../core/config/backup';
import { MIGRATIONS } from '../../core/config/migrations';
import { CONFIG_VERSION, configSchema } from '../../core/config/schema';
import { SHORTCUT_COMMANDS } from '../../core/config/shortcuts';
import { MAPPED_FIELDS, NOT_MAPPED } from './settings-map';

type Json = Record<string, unknown>;

/** The JSON Schema VS Code's JSON editor uses for config.json (draft-07, which it supports fully). */
export function configJsonSchema(): Json {
  const schema = z.toJSONSchema(configSchema, { target: 'draft-7', io: 'input' }) as Json;
  // VS Code's JSON editor reads these two keywords: the file is JSON with comments, as the store reads it.
  return { ...schema, title: 'notesapp configuration (config.json)', allowComments: true, allowTrailingCommas: true };
}

const PATTERN_TEXT: [RegExp, string][] = [
  [/^\^#\[0-9a-fA-F\]\{6\}\$$/, 'color `#rrggbb`'],
  [/^\^\\\.\[/, 'form `.ext`, e.g. `.md`'],
  [/^\^\(\(CommandOrControl/, 'accelerator, e.g. `CommandOrControl+Shift+F`'],
  [/^\^\\d\+/, 'form `major.minor.patch`'],
];

function asObject(prop: Json): Json | undefined {
  if (prop.type === 'object' && prop.properties) return prop;
  const alt = (prop.anyOf as Json[] | undefined)?.find((a) => a.type === 'object' && a.properties);
  return alt;
}

function typeOf(prop: Json): string {
  if (prop.anyOf) return (prop.anyOf as Json[]).map(typeOf).join(' or ');
  if (prop.type === 'array') return `array of ${typeOf((prop.items as Json) ?? {})}`;
  if (prop.type === 'object' && prop.additionalProperties && typeof prop.additionalProperties === 'object') {
    return `object: name -> ${typeOf(prop.additionalProperties as Json)}`;
  }
  if (prop.type === 'integer') return 'integer';
  return String(prop.type ?? 'any');
}

function constraintOf(prop: Json): string {
  const parts: string[] = [];
  const inner = (prop.type === 'object' && typeof prop.additionalProperties === 'object' ? prop.additionalProperties : prop) as Json;
  if (inner.enum) parts.push(`one of ${(inner.enum as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`);
  const safe = (n: unknown) => typeof n === 'number' && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  const min = safe(inner.minimum) ? inner.minimum : safe(inner.exclusiveMinimum) ? `> ${inner.exclusiveMinimum}` : undefined;
  const max = safe(inner.maximum) ? inner.maximum : undefined;
  if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}`);
  else if (typeof min === 'string') parts.push(min);
  else if (min !== undefined) parts.push(`>= ${min}`);
  else if (max !== undefined) parts.push(`<= ${max}`);
  if (typeof inner.pattern === 'string') {
    parts.push(PATTERN_TEXT.find(([re]) => re.test(inner.pattern as string))?.[1] ?? `matches \`${inner.pattern}\``);
  }
  if (typeof inner.minLength === 'number' && inner.minLength > 0) parts.push('not empty');
  return parts.join('; ');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, '\\n');
}

function fieldRows(schema: Json, prefix = ''): string[] {
  const rows: string[] = [];
  for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const field = prefix ? `${prefix}.${name}` : name;
    const object = asObject(prop);
    if (object) {
      if (prop.anyOf) rows.push(`| \`${field}\` | ${typeOf(prop)} | \`${JSON.stringify(prop.default)}\` | | ${cell(String(object.description ?? prop.description ?? ''))} |`);
      rows.push(...fieldRows(object, field));
      continue;
    }
    const required = ((schema.required as string[] | undefined) ?? []).includes(name);
    const def = prop.default === undefined ? (required ? 'required' : '(none)') : `\`${cell(JSON.stringify(prop.default))}\``;
    rows.push(`| \`${field}\` | ${typeOf(prop)} | ${def} | ${cell(constraintOf(prop))} | ${cell(String(prop.description ?? ''))} |`);
  }
  return rows;
}

/** The README's configuration section, between its markers. */
export function renderConfigSection(): string {
  const migrations = MIGRATIONS.map((m) => `| ${m.to} | ${cell(m.description)} |`);
  return `## Configuration

<!-- Generated from src/core/config/schema.ts by src/vscode/config/artifacts.ts during \`npm run build\`; edit those, not this text. -->

One JSON file drives the notes app, the extension and the MCP server alike:

| Platform | Path |
|---|---|
| macOS | \`~/Library/Application Support/com.notesapp.app/config.json\` |
| Windows | \`%APPDATA%\\com.notesapp.app\\config.json\` |
| Linux | \`~/.config/com.notesapp.app/config.json\` (an absolute \`$XDG_CONFIG_HOME\` is honoured) |
| any | \`NOTESAPP_CONFIG_PATH\` (an absolute path) overrides the above; the server also takes \`--config PATH\`. A relative one is not used: the extension says so and uses the platform path, which "Notes: Show Status" and the API's \`status()\` then name |

**Format.** JSON with comments, like VS Code's own settings files: \`//\` and \`/* */\` comments and trailing commas are
allowed, and so is a \`"$schema"\` key. An empty file, or one of only comments, holds no settings (the defaults); an update writes
the settings below its comments. The file is UTF-8 text (a byte order mark is allowed): one saved in another encoding
(an \`é\` of Windows-1252) is read with those bytes as \`\uFFFD\`, reported like an invalid file (below), and not
updated until it is saved as UTF-8 or reset, since writing it back would change those bytes for good.

**Editing.** "Notes: Open Configuration" opens the file (creating it with the defaults when missing) in VS Code's
JSON editor, which completes field names, shows each field's description on hover and marks out-of-range or
unknown values, from \`media/config.schema.json\` (generated from the zod schema at build time). The platform path is
matched by \`contributes.jsonValidation\`; a file at an overridden path gets the same schema through the opened folder's
\`json.schemas\` setting, written with the other applied settings below (with no folder open nothing is written and the
overridden file is edited without the schema). "Notes: Reset Configuration to Defaults" asks in a modal dialog first.

**Operations** (\`src/core/config\`, spec 4.4): \`readConfig()\`, \`updateConfig(partial)\`, \`watchConfig(cb)\` (returns a
stop function; \`{ since }\` starts it from a read already acted on, so a save made after that read is reported), \`resetConfig()\` on a \`ConfigStore\` for one file, and the side-effect-free \`loadConfigFile(path)\` the MCP
server starts with.

**The running MCP server follows the file.** It watches it read-only (it never writes the file, makes no backup and
migrates only in memory) and applies a change from the next request on: \`security.*\` (file size limit, file types),
\`files.*\` and \`search.*\` (the workspace index is rebuilt in the background when its settings change;
\`search_files\`' description, which quotes the search settings, is updated with one \`tools/list_changed\`),
\`plugins.settings\` (new secrets are masked in the log at once), \`development.debugLogging\` and
\`integrations.mcp.tools\` (a switched category leaves or rejoins \`tools/list\` and the client gets one
\`notifications/tools/list_changed\` for the change, however many tools it moves). Clients subscribed to a
configuration, theme, plugin or workspace resource whose value changed get one \`notifications/resources/updated\`
for it, and one \`notifications/resources/list_changed\` when the resource list changed (see *Resources*). Read only at start, so they need a restart ("Notes: Restart MCP Server", or
restart the client): \`integrations.mcp.enabled\`, \`port\` and \`workspace.defaultPath\` (the folder served).
While the file cannot be used (not JSON, such as a save with a comma missing, or unreadable) the running server keeps
the settings it had, and its log says so; only a server or tool category that what can be read of the file turns off
(see *Partially invalid file*) is off meanwhile. It follows the file again once the file reads.

- **Updates** deep-merge: objects merge key by key, arrays and scalars replace, \`null\` clears \`customTheme\`. The merged
  result is validated first; an invalid update is rejected with \`CONFIG_INVALID\` naming the field and the file is not
  touched. Only the fields an update names change in the file: comments, formatting, key order, unknown keys and other
  values (invalid ones too) stay as they are. A file that is not JSON at all is not updated (its settings could not be
  kept): the update is refused with \`CONFIG_INVALID\` saying where the syntax error is; fix the file or reset it. So is
  an update to a file that holds a key twice in one object where the update would land (JSON's last copy counts, an
  edit in place changes the first): the error names the key. Every update is read back before it is written and
  must give the configuration it reports (values of the file it makes valid again count: a \`customTheme\` without
  its \`name\`, given one, keeps the colors the file holds); nor is anything written (an update, a plugin setting, a reset, a migration)
  that would make the file larger than the 16 MiB a configuration file is read up to: such an update is refused with
  \`CONFIG_INVALID\` naming the limit, and the file stays as it was. Writes are atomic (temp file + rename). Updates within one process run one
  after another; between processes (the extension, a server, a second window) a lock file \`config.json.lock\` (taken over after 10 s if its owner
  crashed) makes each read-merge-write a unit, so concurrent updates never lose one another. An external editor that
  saves without the lock can still race an update; its change is then seen by \`watchConfig\` like any edit.
- **Watching** reports changes made through the store at once and changes by any other program after 100 ms of quiet,
  with \`(newConfig, oldConfig)\`; a write that leaves the configuration equal is not reported. Two watches do it: the
  folder the file really is in (a symbolic link to the file is followed, so an editor saving the target is seen),
  and the file's status checked every second, which also sees a folder deleted and made again, a link whose target
  moves, and a file whose folder does not exist yet (nothing is created for it; the watch says so in the log). A lost
  folder watch is tried again every second, and the file read once it stands: a folder moved away and back, even
  within the second, is read again.
- **Reset** writes the defaults; the previous file is kept as \`config.json.pre-reset-<timestamp>.bak\`.
- **A file that cannot be read** (no permission, a folder in its place, over 16 MiB): the defaults are used in memory
  (a running MCP server keeps the settings it had) and the reason is logged, once while it lasts; updates and reset are refused with \`CONFIG_INVALID\` and nothing is
  written over it, since its settings could be neither kept nor backed up. Fix its permissions or remove it.
- **Migration on start** (the extension's) reads the file again under the lock before writing it migrated, so an
  update another process made meanwhile is not written over.
- **Invalid file** (not JSON, or against the schema): the reasons are logged (Notes output channel / server stderr), and
  when the file turns invalid it is copied byte for byte to \`config.json.invalid-<timestamp>.bak\` beside it (a new name
  each time, never overwriting an earlier backup; an identical backup is reused) and VS Code offers **Open
  Configuration** and **Reset to Defaults**. While it stays invalid (saving half-typed values one after another) each new
  content is only logged: no more backups, no more notices, until it has been valid again. Of each kind of backup
  (\`invalid\`, \`pre-migration\`, \`pre-reset\`) the newest ${MAX_BACKUPS_PER_KIND} are kept. The file itself is left as it
  is for you to fix; an update changes only the fields it names (see above). While the file is not JSON at all or
  cannot be read, the VS Code settings applied from it stay as they were (its defaults in memory are not applied,
  and "Notes: Apply Configuration to VS Code Settings" refuses, saying why); they follow the file again once it reads.
- **Partially invalid file**: only what is invalid falls back to its default; everything valid is kept. An out-of-range
  \`editor.fontSize\` gives \`16\` while the rest of \`editor\` stays; an unknown key (a typo such as \`fontsize\`) is ignored and
  reported, and so is a plugin or plugin setting named \`__proto__\`; an array with a bad item, or a \`customTheme\` without its \`name\`, takes its default as a whole; a file that
  is not JSON or not an object gives all the defaults (a running MCP server keeps the settings it had instead of
  those of a file that is not JSON), with one exception: a switch that limits what an MCP client can
  reach (\`integrations.mcp.enabled\`, \`autoStart\`, and each of \`integrations.mcp.tools\`) that reads \`false\` in what can
  still be read of a file with a syntax error stays \`false\` (the log says which). Saving with a comma missing elsewhere
  does not hand an assistant the file tools you turned off; a value cut short (\`fal\`) cannot be read, and is the
  default.
  While the file is open in an editor, the notice is replaced by a status bar message: the editor already underlines
  the problems.
- **Missing file**: the defaults, and nothing is written until you change something (or open it).
- **A file from a newer version** is read as it is (no migration runs backwards); fields this version does not know
  are ignored and reported like any unknown key.

### Migrations

A file older than the current version (\`${CONFIG_VERSION}\`, or with no \`version\`; a \`version\` that is not \`major.minor.patch\`,
such as \`"abc"\` or \`2\`, counts as the oldest and the log says so) is migrated step by step: in memory
whenever it is read, and written back (reformatted, comments not kept) only when the extension starts, or by an update,
never while you edit it, keeping the original as \`config.json.pre-migration-<timestamp>.bak\` (a file that is also invalid is not rewritten: it is backed up as invalid
and left for you to fix, while its values are used migrated). A file with no \`version\` in which no step moves
anything (one written by hand in the current layout) only gets \`"version"\` added as its first key, comments,
order and line ends kept, and no backup. A file whose migrated form would be over 16 MiB (reformatting makes a file
larger) is not rewritten: its values are used migrated in memory and the log says why. Add a step to \`MIGRATIONS\` in \`src/core/config/migrations.ts\` and raise
\`CONFIG_VERSION\`.

| To version | Change |
|---|---|
${migrations.join('\n')}

### Fields

Defaults marked in the spec: \`integrations.mcp.port\` 3456 and \`security.maxFileSize\` 10485760; the others are chosen
as the desktop app would behave.

| Field | Type | Default | Constraint | Meaning |
|---|---|---|---|---|
${fieldRows(configJsonSchema()).join('\n')}

### How the configuration drives VS Code

The extension writes these settings, re-applied on every change of the file, only to the opened folder
(\`.vscode/settings.json\`): editor settings inside its \`"[markdown]"\` block, the rest as folder settings. In a
multi-root workspace they go where VS Code keeps that workspace's settings, its \`.code-workspace\` file (one answer
to the question below covers all its folders), and a folder's own \`.vscode/settings.json\` still wins inside that
folder. Your user settings are never written. A setting you change in the folder's settings after it was applied
(a bigger \`[markdown]\` font, an exclude pattern set to \`false\`) stays yours: later changes of the file, and
VS Code's next start, write over it only when the file's value for it changes; **"Notes: Apply Configuration to VS
Code Settings"** applies every value again. A write VS Code refuses (a \`.vscode/settings.json\` with unsaved
changes) is logged and tried again on the next change. It records what it wrote and what was there before; **"Notes: Remove Applied VS Code
Settings"** puts the earlier values back (a value you changed since is yours and stays; one VS Code refuses to change,
as in a \`.vscode/settings.json\` with unsaved changes, stays on record: the command names it, and running it again
takes it back) and stops applying until
**"Notes: Apply Configuration to VS Code Settings"**. With no folder open nothing is applied. The notes folder of the
configuration (\`workspace.defaultPath\` or one of \`workspace.recentWorkspaces\`, among the open folders; letter case
ignored on Windows and macOS) is applied at once; any other folder is
asked once ("Apply" / "Not for This Folder"), so that a code project opened while the extension is installed never gets
its settings changed silently; "Apply" applies the file as it is when you answer (one that is not usable then
applies nothing, and a notification says why; the question comes again at the next start). Run "Remove Applied VS Code
Settings" before you disable or uninstall the extension: VS Code tells an extension nothing when it is uninstalled,
so the values it applied stay in the folder's settings otherwise (remove them by hand then).

| Config field | VS Code setting |
|---|---|
${MAPPED_FIELDS.map(([f, s]) => `| \`${f}\` | ${cell(s)} |`).join('\n')}

Not mapped:

| Config field | Why |
|---|---|
${NOT_MAPPED.map(([f, r]) => `| \`${f}\` | ${cell(r)} |`).join('\n')}

**Shortcuts.** An extension cannot change your keybindings, so **"Notes: Show Shortcuts as Keybindings"** translates
\`shortcuts\` into \`keybindings.json\` entries for this platform (\`CommandOrControl\` -> \`cmd\` on macOS, \`ctrl\` elsewhere;
\`Super\`/\`Meta\` -> \`cmd\`/\`win\`/\`meta\`; \`Option\` -> \`alt\`; \`Plus\` -> \`shift+=\`) for you to copy. The action ids map to
${Object.entries(SHORTCUT_COMMANDS).map(([id, cmd]) => `\`${id}\` -> \`${cmd}\``).join(', ')} (\`new-file\` is the explorer's New File: a new file in the notes folder is a note; there is no
separate new-note command). A custom id
that is a VS Code command id (it contains a dot, e.g. \`editor.action.formatDocument\`) is bound to that command; any other
custom id has no command to run in VS Code and is listed as skipped. The defaults equal VS Code's own bindings.
`;
}

function writeIfChanged(file: string, text: string): boolean {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return true;
}

export const SECTION_START = '<!-- section:configuration -->';
export const SECTION_END = '<!-- /section:configuration -->';

/** The README text with its configuration section replaced (other sections untouched). */
export function withConfigSection(readme: string): string {
  const start = readme.indexOf(SECTION_START);
  const end = readme.indexOf(SECTION_END);
  if (start < 0 || end < start) throw new Error('README.md has no configuration section markers');
  return `${readme.slice(0, start + SECTION_START.length)}\n${renderConfigSection()}${readme.slice(end)}`;
}

export function schemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

/** Writes both artifacts under `root`; returns the files that changed. */
export function writeConfigArtifacts(root: string): string[] {
  const changed: string[] = [];
  const schemaFile = path.join(root, 'media', 'config.schema.json');
  if (writeIfChanged(schemaFile, schemaText())) changed.push(schemaFile);
  const readmeFile = path.join(root, 'README.md');
  // Re-read right before writing: others edit their own sections of the README.
  if (writeIfChanged(readmeFile, withConfigSection(fs.readFileSync(readmeFile, 'utf8')))) changed.push(readmeFile);
  return changed;
}
