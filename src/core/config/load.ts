// Reads config.json without side effects: parse, migrate in memory, validate, fall back to defaults.
import fs from 'node:fs';
import { readNoWaitFlags } from '../read-flags';
import { holdsNoValue, parseJsonc, readLeniently } from './jsonc';
import { migrateConfig } from './migrations';
import { defaultConfig, type NotesConfig } from './schema';
import { validateConfig } from './validate';

export interface ConfigLoad {
  config: NotesConfig;
  /** Why values were dropped or the file ignored; empty when the file is valid or missing. */
  problems: string[];
  /** True when the file is of an older version and was migrated in memory. */
  migrated: boolean;
}

export interface ConfigFileLoad extends ConfigLoad {
  /** The file's bytes, or undefined when it does not exist. */
  bytes?: Buffer;
  /** The file's text without a byte order mark (when it exists). */
  text?: string;
  /** Why the file could not be parsed at all; the settings in it cannot be read (nor kept by an update). */
  syntaxError?: string;
  /**
   * Where the file holds bytes that are not UTF-8 text (saved in another encoding): they read as U+FFFD, so an update,
   * which writes the text back, would change them for good.
   */
  encodingError?: string;
  /**
   * Why a file that exists could not be read (no permission, a folder in its place, over MAX_CONFIG_BYTES): its
   * settings are unknown, so nothing may be written over it.
   */
  readError?: string;
  /** The parsed value as it is in the file (before migration), when it parsed. */
  raw?: unknown;
  /** The migrated raw object (only when `migrated`), ready to be written back by the store. */
  migratedValue?: unknown;
  migrationNotes: string[];
}

/**
 * Remembers what reading a config file gave, by the file's bytes (`null`: no file), so that a process reading bytes
 * read before skips the schema (see server/config-load-cache.ts). `get` answers a copy of its own to each caller (who
 * may change it), with `bytes` the buffer it was given; `set` may keep what it is given or not.
 */
export interface ConfigLoadMemo {
  get(bytes: Buffer | null): ConfigFileLoad | undefined;
  set(bytes: Buffer | null, load: ConfigFileLoad): void;
}

let memo: ConfigLoadMemo | undefined;

/** Makes every later read in this process consult `next` (undefined: none, the default). */
export function useConfigLoadMemo(next: ConfigLoadMemo | undefined): void {
  memo = next;
}

/**
 * Interprets the bytes of a config file: JSON with comments and trailing commas, like VS Code's settings
 * files. An empty file, or one of only comments, holds no settings: the defaults, and no problem to report.
 */
export function parseConfigBytes(bytes: Buffer): ConfigFileLoad {
  const known = memo?.get(bytes);
  if (known) return known;
  const load = interpret(bytes);
  memo?.set(bytes, load);
  return load;
}

function interpret(bytes: Buffer): ConfigFileLoad {
  const { text: decoded, encodingError } = decode(bytes);
  // A BOM is what some Windows editors write.
  const text = decoded.replace(/^\uFEFF/, '');
  const encoding = encodingError ? { encodingError, problems: [`${encodingError}, read as "\uFFFD" (save the file as UTF-8)`] } : { problems: [] };
  const empty: ConfigFileLoad = { config: defaultConfig(), migrated: false, bytes, text, migrationNotes: [], ...encoding };
  if (text.trim() === '') return empty;
  const parsed = parseJsonc(text);
  if (!parsed.ok && holdsNoValue(text)) return empty;
  if (!parsed.ok) {
    const config = defaultConfig();
    const kept = keepSwitchesOff(config, [parsed.recovered, readLeniently(text)]);
    const problem = `not valid JSON: ${parsed.error}${kept.length ? ` (what the file turns off stays off: ${kept.join(', ')})` : ''}`;
    return { config, migrated: false, bytes, text, syntaxError: parsed.error, migrationNotes: [], ...encoding, problems: [...encoding.problems, problem] };
  }
  const raw = parsed.value;
  const migration = migrateConfig(raw);
  const { config, problems } = validateConfig(migration.value);
  return {
    config,
    ...encoding,
    problems: [...encoding.problems, ...problems],
    migrated: migration.migrated,
    bytes,
    text,
    raw,
    ...(migration.migrated ? { migratedValue: migration.value } : {}),
    migrationNotes: migration.notes,
  };
}

/**
 * The bytes as text, and where they are not UTF-8 (a file saved in another encoding): such bytes read as U+FFFD.
 * A BOM stays in the text.
 */
function decode(bytes: Buffer): { text: string; encodingError?: string } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    const text = bytes.toString('utf8');
    const line = text.slice(0, Math.max(0, text.indexOf('\uFFFD'))).split('\n').length;
    return { text, encodingError: `not UTF-8 text: line ${line} holds bytes of another encoding` };
  }
}

/** The switches that limit what an MCP client may reach: whether the server runs and which tools it offers. */
const LIMITING_SWITCHES = [
  ['integrations', 'mcp', 'enabled'],
  ['integrations', 'mcp', 'autoStart'],
  ['integrations', 'mcp', 'tools', 'fileOperations'],
  ['integrations', 'mcp', 'tools', 'search'],
  ['integrations', 'mcp', 'tools', 'editor'],
  ['integrations', 'mcp', 'tools', 'ai'],
] as const;

/**
 * A syntax error (a comma missing while the file is being edited) gives the defaults, but must not turn back on a
 * tool or the server the file turns off: each limiting switch that reads `false` in any reading of what the file
 * still says (the parser's recovery, which ends at a stray `}`, and the token-by-token one that goes on past it;
 * each migrated and validated as a whole file would be) stays `false`. Returns the dotted keys kept.
 */
function keepSwitchesOff(config: NotesConfig, readings: unknown[]): string[] {
  const kept: string[] = [];
  for (const reading of readings) {
    if (reading === undefined) continue;
    let readable: NotesConfig;
    try {
      readable = validateConfig(migrateConfig(reading).value).config;
    } catch {
      continue;
    }
    kept.push(...switchOffAsIn(config, readable));
  }
  return kept;
}

/**
 * Sets each limiting switch (the server, a tool category) that is `false` in `source` to `false` in `config`.
 * Returns the dotted keys it turned off.
 */
export function switchOffAsIn(config: NotesConfig, source: NotesConfig): string[] {
  const off: string[] = [];
  for (const keys of LIMITING_SWITCHES) {
    const at = (root: unknown) => keys.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root) as Record<string, boolean>;
    const last = keys[keys.length - 1];
    if (at(source)[last] === false && at(config)[last] !== false) {
      at(config)[last] = false;
      off.push(keys.join('.'));
    }
  }
  return off;
}

/**
 * What a reader that keeps its settings while its config file cannot be used (a save that is not JSON reads as the
 * defaults; applying them would lift the limits the file sets, or stop a server serving workspace.defaultPath) takes
 * from each read of the watched file: the read itself when it could be used, else the last usable read's settings
 * with each switch the readable part of the file turns off turned off, and a warning naming `who` keeps them.
 */
export function keepingUsableSettings(file: string, start: NotesConfig, who: string): (read: NotesConfig, unusable: string | undefined) => { config: NotesConfig; warning?: string } {
  let usable = start;
  return (read, unusable) => {
    if (unusable === undefined) {
      usable = read;
      return { config: read };
    }
    const config = structuredClone(usable);
    const off = switchOffAsIn(config, read);
    return {
      config,
      warning:
        `Configuration ${file} cannot be used (${unusable}); ${who} keeps the settings it had until the file can be read again` +
        (off.length ? `, except that what the file turns off is off: ${off.join(', ')}` : ''),
    };
  };
}

/** Largest config file read: settings take kilobytes; a file of hundreds of megabytes is not one (and would not fit in a string). */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * Reads, migrates in memory and validates `file`; never writes. A missing file gives the defaults; so does one
 * that cannot be read, with the reason in `problems` and `readError`.
 */
export function loadConfigFile(file: string): ConfigFileLoad {
  let bytes: Buffer;
  try {
    bytes = readCapped(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const known = memo?.get(null);
      if (known) return known;
      const load: ConfigFileLoad = { config: defaultConfig(), problems: [], migrated: false, migrationNotes: [] };
      memo?.set(null, load);
      return load;
    }
    const reason = code === 'EFBIG' ? (err as Error).message : `cannot read ${file}: ${(err as Error).message}`;
    return { config: defaultConfig(), problems: [`${reason} (defaults used)`], migrated: false, readError: reason, migrationNotes: [] };
  }
  return parseConfigBytes(bytes);
}

/** The file's bytes, refused (EFBIG) past MAX_CONFIG_BYTES before any of them is read. */
function readCapped(file: string): Buffer {
  // Without waiting for a writer, should the file be a named pipe (which would block for good): refused below.
  const fd = fs.openSync(file, readNoWaitFlags(fs.constants));
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR' });
    if (!stat.isFile()) throw Object.assign(new Error(`${file} is not a regular file (a named pipe, socket or device)`), { code: 'EINVAL' });
    const { size } = stat;
    if (size > MAX_CONFIG_BYTES) {
      throw Object.assign(new Error(`${file} is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit for a configuration file`), { code: 'EFBIG' });
    }
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
