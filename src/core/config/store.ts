// The config file operations of spec 4.4: readConfig, updateConfig, watchConfig, resetConfig.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import writeFileAtomic from 'write-file-atomic';
import { NotesError } from '../errors';
import { writeBackup, type BackupKind } from './backup';
import { duplicateKeys, setInJsonc, type JsonPath } from './jsonc';
import { loadConfigFile, MAX_CONFIG_BYTES, parseConfigBytes, type ConfigFileLoad } from './load';
import { withFileLock } from './lock';
import { deepMerge, isPlainObject, type DeepPartial } from './merge';
import { configSchema, defaultConfig, type NotesConfig } from './schema';
import { SerialQueue } from './serial-queue';

export interface ConfigLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** What a read of the file found, beyond the configuration itself. */
export interface ConfigReport {
  file: string;
  problems: string[];
  /** Backup of the file as it was before migration or recovery, when one was needed. */
  backupPath?: string;
  migrated: boolean;
  /**
   * Why nothing of the file could be read (not JSON, or the file cannot be read): the configuration is then the
   * defaults standing in for a file whose settings are unknown, not what the file says.
   */
  unusable?: string;
}

export interface ConfigStoreOptions {
  file: string;
  logger?: ConfigLogger;
  /** Quiet period before a watcher reads the changed file (ms). */
  debounceMs?: number;
  /** Never write anything beside or over the file (no backups, no migration, no updates): the MCP server's view. */
  readOnly?: boolean;
  /** Called when the file turns invalid (the extension offers to open or reset it); not again while it stays invalid. */
  onInvalid?: (report: ConfigReport) => void;
  /** Why the file could not be read, as its owner already logged it: not logged again while it lasts. */
  unreadable?: string;
}

export type ConfigListener = (newConfig: NotesConfig, oldConfig: NotesConfig, read: Pick<ConfigReport, 'unusable'>) => void;

/** How often a watched config file's status is checked, besides the watch of its folder. */
const CONFIG_POLL_MS = 1000;

/**
 * What an invalid file means for its readers. Invalid values are replaced by their defaults; a file that is not JSON
 * cannot be read at all, and what stands in for it is each reader's to say (a running server and the extension keep
 * the settings they had, a start takes the defaults), so it is not claimed here.
 */
function invalidMeans(report: ConfigReport): string {
  return report.unusable ? 'nothing of it is used until it is fixed' : 'the invalid values are replaced by defaults in memory';
}

const silent: ConfigLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export function serializeConfig(config: unknown): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

function sameConfig(a: NotesConfig, b: NotesConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * One config file. Writes within this instance are serialized through a promise chain; writes from other
 * processes (or other instances) are kept apart by a lock file, and each write re-reads the file under
 * the lock, so concurrent updates never lose one another.
 */
export class ConfigStore {
  readonly file: string;
  private readonly logger: ConfigLogger;
  private readonly debounceMs: number;
  private readonly onInvalid?: (report: ConfigReport) => void;
  private readonly readOnly: boolean;
  private readonly queue = new SerialQueue();
  private readonly listeners = new Set<{ last: NotesConfig; lastUnusable?: boolean; cb: ConfigListener }>();
  /** Since the file last turned invalid: the contents seen (each logged once) and the backup made then. */
  private invalidSeen?: { contents: Set<string>; backupPath: string | undefined };
  /** Why the file could not be read, as last logged; cleared once it is read again. */
  private unreadable?: string;

  constructor(options: ConfigStoreOptions) {
    this.file = path.resolve(options.file);
    this.logger = options.logger ?? silent;
    this.debounceMs = options.debounceMs ?? 100;
    this.onInvalid = options.onInvalid;
    this.readOnly = options.readOnly === true;
    this.unreadable = options.unreadable;
  }

  /**
   * The configuration in the file now (defaults when it is missing; invalid fields defaulted). Never writes the
   * file: with `migrate` (the extension's start and its commands, never a watcher, which would rewrite a file
   * behind an open editor) an older file is migrated on disk, the original kept as a backup.
   */
  async readConfig(options: { migrate?: boolean } = {}): Promise<NotesConfig> {
    return (await this.inspect(options)).config;
  }

  /**
   * Reads the file and acts on what it finds: an invalid file is reported (logged; backed up and `onInvalid`
   * called when it turns invalid) and left as it is for the user to fix or reset; with `migrate`, a valid file
   * of an older version is written back migrated, the original kept as a backup.
   */
  async inspect(options: { migrate?: boolean } = {}): Promise<{ config: NotesConfig } & ConfigReport> {
    return this.queue.run(() => this.inspectNow(options.migrate === true));
  }

  private async inspectNow(migrate: boolean): Promise<{ config: NotesConfig } & ConfigReport> {
    let load = loadConfigFile(this.file);
    const report: ConfigReport = { file: this.file, problems: load.problems, migrated: load.migrated, unusable: load.readError ?? load.syntaxError };
    if (load.problems.length === 0) this.invalidSeen = undefined;
    if (load.readError) {
      // A file that exists but cannot be read: its settings are unknown, so nothing is backed up or written.
      if (this.unreadable !== load.readError) {
        this.logger.error(`Configuration ${this.file} cannot be read; the defaults are used in memory and nothing is written to it: ${load.readError}`);
      }
      this.unreadable = load.readError;
      return { config: load.config, ...report };
    }
    this.unreadable = undefined;
    if (!load.bytes) return { config: load.config, ...report };
    if (load.problems.length) {
      this.reportInvalid(load.bytes, load.problems, report);
    } else if (load.migrated && migrate && !this.readOnly) {
      // An invalid file is left exactly as it is for the user to fix; only a valid old file is rewritten migrated.
      // Read again under the lock: another writer may have changed (or migrated) the file since the read above.
      load = await withFileLock(this.file, async () => {
        const fresh = loadConfigFile(this.file);
        if (!fresh.bytes || fresh.problems.length || !fresh.migrated) return fresh;
        const versionOnly = onlyVersionAdded(fresh);
        const text = versionOnly ? withVersion(fresh) : serializeConfig(fresh.migratedValue);
        const tooLarge = this.sizeProblem(text);
        if (tooLarge) {
          // Written, it could not be read back: the file stays as it is, its values used migrated in memory.
          this.logger.warn(`Configuration ${this.file} is not migrated on disk: ${tooLarge}. Its values are used migrated in memory.`);
          return fresh;
        }
        if (versionOnly) {
          // A file that never had a version (written by hand): only the version is added, the rest stays as written.
          await this.write(text);
          this.logger.info(`Configuration ${this.file} marked with the current version (nothing else in it changed): ${fresh.migrationNotes.join('; ')}`);
          return fresh;
        }
        const backup = writeBackup(this.file, 'pre-migration', fresh.bytes);
        report.backupPath = backup.path;
        await this.write(text);
        this.logger.info(`Configuration ${this.file} migrated to the current version (original kept in ${backup.path}): ${fresh.migrationNotes.join('; ')}`);
        return fresh;
      });
      Object.assign(report, { problems: load.problems, migrated: load.migrated, unusable: load.readError ?? load.syntaxError });
    }
    return { config: load.config, ...report };
  }

  /**
   * An invalid file is backed up and announced when it turns invalid, not on every save while someone is still
   * typing: later invalid contents are only logged, each once.
   */
  private reportInvalid(bytes: Buffer, problems: string[], report: ConfigReport): void {
    const key = bytes.toString('base64');
    if (this.invalidSeen?.contents.has(key)) {
      report.backupPath = this.invalidSeen.backupPath;
      return;
    }
    if (this.invalidSeen) {
      this.invalidSeen.contents.add(key);
      report.backupPath = this.invalidSeen.backupPath;
      this.logger.warn(`Configuration ${this.file} is still invalid; ${invalidMeans(report)}:\n  ${problems.join('\n  ')}`);
      return;
    }
    const backupPath = this.readOnly ? undefined : writeBackup(this.file, 'invalid', bytes).path;
    report.backupPath = backupPath;
    this.invalidSeen = { contents: new Set([key]), backupPath };
    this.logger.error(
      `Configuration ${this.file} is invalid; ${invalidMeans(report)}${backupPath ? ` (backup: ${backupPath})` : ''}:\n  ${problems.join('\n  ')}`,
    );
    this.onInvalid?.(report);
  }

  /**
   * Deep-merges `partial` into the configuration (objects merge, arrays replace), validates the result and
   * writes it atomically. Only the fields named in `partial` change in the file: comments, formatting, unknown
   * keys and other values stay as they are. An invalid result is rejected with CONFIG_INVALID and the file is
   * left untouched; so is a file that is not JSON at all (its settings could not be kept): fix or reset it first.
   */
  async updateConfig(partial: DeepPartial<NotesConfig>): Promise<NotesConfig> {
    return this.change((load) => {
      this.refuseUnparsable(load);
      return this.written(load, deepMerge(load.config, partial), leafPaths(partial, load.migratedValue ?? load.raw));
    });
  }

  /**
   * Sets the value at `key` (a path of keys) whole: an object replaces the object there instead of being merged into
   * it, so keys left out of it are gone (a plugin setting holding credentials); `undefined` removes the key. Checked
   * and written as updateConfig writes.
   */
  async setConfigValue(key: readonly string[], value: unknown): Promise<NotesConfig> {
    if (key.length === 0) throw new Error('setConfigValue needs a key');
    return this.change((load) => {
      this.refuseUnparsable(load);
      const next = structuredClone(load.config) as unknown as Record<string, unknown>;
      placeAt(next, key, value);
      return this.written(load, next, [[...key]]);
    });
  }

  private refuseUnparsable(load: ConfigFileLoad): void {
    if (load.encodingError && !load.syntaxError) {
      // Written back, the bytes it could not read would be replaced for good.
      throw new NotesError(
        'CONFIG_INVALID',
        `Configuration ${this.file} is ${load.encodingError}, so an update would change those bytes for good: save the file as UTF-8 ` +
          '("Notes: Open Configuration"; VS Code\'s "Reopen with Encoding" reads it right first) or reset it to the defaults, then try again. Nothing was written.',
        { reasons: [load.encodingError] },
      );
    }
    if (!load.syntaxError) return;
    throw new NotesError(
      'CONFIG_INVALID',
      `Configuration ${this.file} is not valid JSON (${load.syntaxError}), so its settings cannot be kept: fix the file ` +
        '("Notes: Open Configuration") or reset it to the defaults, then try again. Nothing was written.',
      { reasons: [load.syntaxError] },
    );
  }

  /** `next` validated, and the file's text with the values at `paths` set to it. */
  private written(load: ConfigFileLoad, next: unknown, paths: JsonPath[]): { config: NotesConfig; text: string; backup?: BackupKind } {
    const parsed = configSchema.safeParse(next);
    if (!parsed.success) {
      const reasons = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
      throw new NotesError('CONFIG_INVALID', `Configuration update rejected: ${reasons.join('; ')}`, { reasons });
    }
    const file = updatedFile(load, paths, parsed.data);
    this.refuseTooLarge(file.text);
    // What is written must read back as what the update reports (a key written twice in the file is read from its
    // last copy, and an edit in place changes the first).
    const readBack = parseConfigBytes(Buffer.from(file.text, 'utf8'));
    if (!sameConfig(readBack.config, parsed.data)) {
      // Values the file held that the update makes valid again (a customTheme given the name it lacked keeps the
      // colors the file holds) are part of what the file now says: reported, once every value the update names
      // reads back as the update set it.
      if (paths.every((p) => isDeepStrictEqual(valueAt(readBack.config, p), valueAt(parsed.data, p)))) return { config: readBack.config, ...file };
      const twice = duplicateKeys(load.text ?? '');
      throw new NotesError(
        'CONFIG_INVALID',
        twice.length
          ? `Configuration ${this.file} holds ${twice.map((k) => `"${k}"`).join(', ')} more than once (the last copy counts), so the update cannot be written where it would count: remove the extra copies, then try again. Nothing was written.`
          : `Configuration update could not be written so that the file reads back as the update (${this.file}); nothing was written.`,
        { reasons: twice.map((k) => `${k}: duplicate key`) },
      );
    }
    return { config: parsed.data, ...file };
  }

  /** Why `text`, written as the file, could not be read back (over MAX_CONFIG_BYTES); undefined when it could. */
  private sizeProblem(text: string): string | undefined {
    const size = Buffer.byteLength(text, 'utf8');
    if (size <= MAX_CONFIG_BYTES) return undefined;
    return `it would be ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte (16 MiB) limit for a configuration file, so it could not be read back`;
  }

  /** A file too large to be read back is never written: the update is refused and nothing changes. */
  private refuseTooLarge(text: string): void {
    const problem = this.sizeProblem(text);
    if (!problem) return;
    throw new NotesError('CONFIG_INVALID', `Configuration update rejected: written to ${this.file}, ${problem}. Nothing was written.`, {
      reasons: [problem],
    });
  }

  /** Writes the defaults; the previous file is kept as a backup. */
  async resetConfig(): Promise<NotesConfig> {
    return this.change((load) => {
      if (load.bytes) {
        const backup = writeBackup(this.file, 'pre-reset', load.bytes);
        this.logger.info(`Configuration reset to defaults (previous file kept in ${backup.path})`);
      }
      const config = defaultConfig();
      return { config, text: serializeConfig(config) };
    });
  }

  /**
   * Calls `cb(newConfig, oldConfig)` whenever the configuration changes: through this store at once, and
   * through any other writer (an editor, another process) after a quiet period. Returns a function that
   * stops watching. `since`: the read the caller already acts on (the MCP server's start), so that a change made
   * after it and before the watch starts is reported too; without it, the file as it is now.
   */
  watchConfig(cb: ConfigListener, options: { since?: { config: NotesConfig; unusable: boolean } } = {}): () => void {
    const first = options.since ?? ((load) => ({ config: load.config, unusable: (load.readError ?? load.syntaxError) !== undefined }))(loadConfigFile(this.file));
    const entry = { last: first.config, lastUnusable: first.unusable, cb };
    this.listeners.add(entry);
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const reread = () => {
      if (stopped) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.inspect().then(
          ({ config, unusable }) => {
            if (!stopped) this.notify(entry, config, { unusable });
          },
          (err) => this.logger.error(`Reading ${this.file} after a change failed: ${(err as Error).message}`),
        );
      }, this.debounceMs);
    };
    // Two watches. The folder the file really is in (a link to it followed), at once: the folder is watched, not the
    // file, because atomic writes replace the file, which ends a file watch. And the file's status, polled every
    // CONFIG_POLL_MS, which nothing ends: it sees a file behind a link whose target moves, a folder deleted and made
    // again (which ends the folder watch), and a folder that does not exist yet (nothing is created for it).
    // While the folder watch is lost (its folder moved away or deleted), or stands on the link's folder for want of
    // the target's, it is tried again every CONFIG_POLL_MS, and the file read once it stands where the file is: a
    // folder moved away and back within a poll leaves the file's status as it was, so the poll alone would not tell.
    let folderWatch: fs.FSWatcher | undefined;
    let found = false;
    const watchFolder = () => {
      folderWatch?.close();
      folderWatch = undefined;
      let target = this.file;
      try {
        target = fs.realpathSync(this.file);
        found = true;
      } catch {
        // The file, or a folder on its way, does not exist (now): its own folder is watched if it can be.
        found = false;
      }
      const folder = path.dirname(target);
      try {
        folderWatch = fs.watch(folder, (_event, name) => {
          const entry = name?.toString();
          if (entry === path.basename(folder)) {
            // The watched folder itself moved or went (an entry of the same name in it only costs a read).
            watchFolder();
            reread();
          } else if (!entry || entry === path.basename(target) || entry === path.basename(this.file)) reread();
        });
        folderWatch.on('error', () => {
          folderWatch?.close();
          folderWatch = undefined;
        });
      } catch (err) {
        // No folder yet, or not watchable: the polled status still sees the file arrive.
        if (!folderWatch && !warned) {
          warned = true;
          this.logger.warn(`Cannot watch ${path.dirname(target)} for changes at once (${(err as Error).message}); ${this.file} is checked every ${CONFIG_POLL_MS / 1000} s instead`);
        }
      }
    };
    let warned = false;
    watchFolder();
    const retry = setInterval(() => {
      if (stopped || (folderWatch && found)) return;
      // A file that simply does not exist, in a folder watched, costs one look a second; nothing is watched anew.
      if (folderWatch && !fs.existsSync(this.file)) return;
      watchFolder();
      if (folderWatch && found) reread();
    }, CONFIG_POLL_MS);
    retry.unref();
    // Compared with the status last reported, not with the `before` given: for a file that comes back after being
    // gone (its folder moved away and back), that is the status from before it went, the same inode and time.
    let last: fs.Stats | undefined;
    const onStatus = (now: fs.Stats, before: fs.Stats) => {
      const was = last ?? before;
      last = now;
      if (now.ino !== was.ino || now.mtimeMs !== was.mtimeMs || now.size !== was.size || now.nlink !== was.nlink) {
        watchFolder();
        reread();
      }
    };
    fs.watchFile(this.file, { interval: CONFIG_POLL_MS, persistent: false }, onStatus);
    // The polled status starts from a first look taken a moment later: a write between the read above and that
    // look would be in it, and so never seen as a change. One more read, once the watches stand, sees it.
    reread();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearInterval(retry);
      folderWatch?.close();
      fs.unwatchFile(this.file, onStatus);
      this.listeners.delete(entry);
    };
  }

  /**
   * Tells a listener of a configuration that differs from the last it was told of, or of a file that became
   * unusable or usable again with the same values: a file fixed back to what its unusable read gave (often the
   * defaults) is news to a listener that kept its earlier settings while the file could not be used.
   */
  private notify(entry: { last: NotesConfig; lastUnusable?: boolean; cb: ConfigListener }, config: NotesConfig, read: Pick<ConfigReport, 'unusable'> = {}): void {
    const unusable = read.unusable !== undefined;
    if (sameConfig(entry.last, config) && unusable === (entry.lastUnusable ?? false)) return;
    const old = entry.last;
    entry.last = config;
    entry.lastUnusable = unusable;
    try {
      entry.cb(config, old, read);
    } catch (err) {
      this.logger.error(`A configuration listener failed: ${(err as Error).message}`);
    }
  }

  /** Read-modify-write under both locks; listeners hear of the change before the promise resolves. */
  private async change(compute: (load: ConfigFileLoad) => { config: NotesConfig; text: string; backup?: BackupKind }): Promise<NotesConfig> {
    if (this.readOnly) throw new NotesError('CONFIG_INVALID', `Configuration ${this.file} is opened read-only here; change it in the extension or an editor.`);
    const next = await this.queue.run(() =>
      withFileLock(this.file, async () => {
        const load = loadConfigFile(this.file);
        if (load.readError) {
          throw new NotesError(
            'CONFIG_INVALID',
            `Configuration ${this.file} cannot be read (${load.readError}), so its settings cannot be kept or backed up: fix its permissions or remove it, then try again. Nothing was written.`,
            { reasons: [load.readError] },
          );
        }
        const { config, text, backup } = compute(load);
        this.refuseTooLarge(text);
        // A file rewritten as a whole is kept when it held something a user may want back.
        if (backup && load.bytes) writeBackup(this.file, backup, load.bytes);
        if (!load.bytes?.equals(Buffer.from(text, 'utf8'))) await this.write(text);
        return config;
      }),
    );
    for (const entry of this.listeners) this.notify(entry, next);
    return next;
  }

  private async write(text: string): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, text, { encoding: 'utf8' });
  }
}

/**
 * The paths of the values an update sets: objects are walked into, anything else is set whole. An empty object is
 * set where the file has no object yet (`{}` for a new plugin setting); where it has one, it changes nothing.
 */
function leafPaths(patch: unknown, raw: unknown, prefix: JsonPath = []): JsonPath[] {
  if (!isPlainObject(patch)) return prefix.length ? [prefix] : [];
  const entries = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (entries.length === 0 && prefix.length > 0 && !isPlainObject(valueAt(raw, prefix))) return [prefix];
  return entries.flatMap(([key, value]) => leafPaths(value, raw, [...prefix, key]));
}

/** Sets (or with `undefined` removes) the value at `key`, making the objects on the way; `__proto__` is a plain key. */
function placeAt(root: Record<string, unknown>, key: readonly string[], value: unknown): void {
  let node = root;
  for (const part of key.slice(0, -1)) {
    const own = Object.prototype.hasOwnProperty.call(node, part) ? node[part] : undefined;
    if (!isPlainObject(own)) Object.defineProperty(node, part, { value: {}, enumerable: true, writable: true, configurable: true });
    node = node[part] as Record<string, unknown>;
  }
  const last = key[key.length - 1];
  if (value === undefined) delete node[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
}

/** True when migrating the file changed nothing but its version (a file written by hand, without one). */
function onlyVersionAdded(load: ConfigFileLoad): boolean {
  if (!isPlainObject(load.raw) || !isPlainObject(load.migratedValue)) return false;
  const { version: _before, ...before } = load.raw;
  const { version: _after, ...after } = load.migratedValue;
  return isDeepStrictEqual(before, after);
}

function bomOf(load: ConfigFileLoad): string {
  return load.bytes?.[0] === 0xef && load.bytes[1] === 0xbb && load.bytes[2] === 0xbf ? '\uFEFF' : '';
}

/** The file's text with its version set as migrating it did, the rest as written (see onlyVersionAdded). */
function withVersion(load: ConfigFileLoad): string {
  const version = (load.migratedValue as Record<string, unknown>).version;
  return bomOf(load) + setInJsonc(load.text ?? '', [['version']], () => version, { first: true });
}

function valueAt(root: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((node, key) => (isPlainObject(node) ? node[String(key)] : undefined), root);
}

/**
 * The file's new text after an update: the changed fields set in place. A missing or empty file gets the whole
 * configuration (below the comments of a file of only comments); an older file is rewritten migrated (its comments cannot follow the moved keys), unknown keys
 * kept, the original backed up; a file whose root is not an object holds nothing to keep and is replaced.
 */
function updatedFile(load: ConfigFileLoad, paths: readonly JsonPath[], next: NotesConfig): { text: string; backup?: BackupKind } {
  if (load.text === undefined || load.text.trim() === '') return { text: serializeConfig(next) };
  // Only comments: they stay, above the settings.
  if (load.raw === undefined && !load.syntaxError) return { text: `${bomOf(load)}${load.text.trimEnd()}\n${serializeConfig(next)}` };
  if (!isPlainObject(load.raw)) return { text: serializeConfig(next), backup: 'invalid' };
  if (load.migrated && isPlainObject(load.migratedValue) && !onlyVersionAdded(load)) {
    const raw = structuredClone(load.migratedValue);
    for (const p of paths) placeAt(raw, p.map(String), valueAt(next, p));
    return { text: serializeConfig(raw), backup: 'pre-migration' };
  }
  // In place; a file without a version gets the one migrating it gave, first.
  const text = load.migrated ? withVersion(load).replace(/^\uFEFF/, '') : load.text;
  return { text: bomOf(load) + setInJsonc(text, paths, (p) => valueAt(next, p)) };
}

export function createConfigStore(options: ConfigStoreOptions): ConfigStore {
  return new ConfigStore(options);
}
