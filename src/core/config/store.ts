// The config file operations of spec 4.4: readConfig, updateConfig, watchConfig, resetConfig.
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { NotesError } from '../errors';
import { writeBackup, type BackupKind } from './backup';
import { loadConfigFile } from './load';
import { withFileLock } from './lock';
import { deepMerge, type DeepPartial } from './merge';
import { configSchema, defaultConfig, type NotesConfig } from './schema';

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
}

export interface ConfigStoreOptions {
  file: string;
  logger?: ConfigLogger;
  /** Quiet period before a watcher reads the changed file (ms). */
  debounceMs?: number;
  /** Called once for each distinct invalid content of the file (the extension offers to open or reset it). */
  onInvalid?: (report: ConfigReport) => void;
}

export type ConfigListener = (newConfig: NotesConfig, oldConfig: NotesConfig) => void;

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
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<{ last: NotesConfig; cb: ConfigListener }>();
  private lastInvalid?: string;

  constructor(options: ConfigStoreOptions) {
    this.file = path.resolve(options.file);
    this.logger = options.logger ?? silent;
    this.debounceMs = options.debounceMs ?? 100;
    this.onInvalid = options.onInvalid;
  }

  /** The configuration in the file now (defaults when it is missing; invalid fields defaulted). */
  async readConfig(): Promise<NotesConfig> {
    return (await this.inspect()).config;
  }

  /**
   * Reads the file and acts on what it finds: an older version is migrated and written back, the original
   * kept as a backup; an invalid file is backed up and its reasons logged, and it is left as it is so that
   * the user can fix it (or reset it).
   */
  async inspect(): Promise<{ config: NotesConfig } & ConfigReport> {
    return this.serialized(() => this.inspectNow());
  }

  private async inspectNow(): Promise<{ config: NotesConfig } & ConfigReport> {
    const load = loadConfigFile(this.file);
    const report: ConfigReport = { file: this.file, problems: load.problems, migrated: load.migrated };
    if (!load.bytes || (!load.migrated && load.problems.length === 0)) {
      this.lastInvalid = undefined;
      return { config: load.config, ...report };
    }
    const kind: BackupKind = load.problems.length ? 'invalid' : 'pre-migration';
    const backup = writeBackup(this.file, kind, load.bytes);
    report.backupPath = backup.path;
    // An invalid file is left exactly as it is for the user to fix; only a valid old file is rewritten migrated.
    if (load.migrated && load.problems.length === 0) {
      await withFileLock(this.file, () => this.write(load.migratedValue));
      this.logger.info(`Configuration ${this.file} migrated to the current version (original kept in ${backup.path}): ${load.migrationNotes.join('; ')}`);
    }
    if (load.problems.length) {
      const key = load.bytes.toString('base64');
      if (this.lastInvalid !== key) {
        this.lastInvalid = key;
        this.logger.error(
          `Configuration ${this.file} is invalid; the invalid values are replaced by defaults in memory (backup: ${backup.path}):\n  ${load.problems.join('\n  ')}`,
        );
        this.onInvalid?.(report);
      }
    } else {
      this.lastInvalid = undefined;
    }
    return { config: load.config, ...report };
  }

  /**
   * Deep-merges `partial` into the configuration (objects merge, arrays replace), validates the result and
   * writes it atomically. An invalid result is rejected with CONFIG_INVALID and the file is left untouched.
   */
  async updateConfig(partial: DeepPartial<NotesConfig>): Promise<NotesConfig> {
    return this.change((current) => {
      const merged = deepMerge(current, partial);
      const parsed = configSchema.safeParse(merged);
      if (!parsed.success) {
        const reasons = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
        throw new NotesError('CONFIG_INVALID', `Configuration update rejected: ${reasons.join('; ')}`, { reasons });
      }
      return parsed.data;
    });
  }

  /** Writes the defaults; the previous file is kept as a backup. */
  async resetConfig(): Promise<NotesConfig> {
    return this.change(
      () => defaultConfig(),
      (bytes) => {
        const backup = writeBackup(this.file, 'pre-reset', bytes);
        this.logger.info(`Configuration reset to defaults (previous file kept in ${backup.path})`);
      },
    );
  }

  /**
   * Calls `cb(newConfig, oldConfig)` whenever the configuration changes: through this store at once, and
   * through any other writer (an editor, another process) after a quiet period. Returns a function that
   * stops watching.
   */
  watchConfig(cb: ConfigListener): () => void {
    const entry = { last: loadConfigFile(this.file).config, cb };
    this.listeners.add(entry);
    const dir = path.dirname(this.file);
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const reread = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.readConfig().then(
          (config) => {
            if (!stopped) this.notify(entry, config);
          },
          (err) => this.logger.error(`Reading ${this.file} after a change failed: ${(err as Error).message}`),
        );
      }, this.debounceMs);
    };
    let watcher: fs.FSWatcher;
    try {
      fs.mkdirSync(dir, { recursive: true });
      // The directory is watched, not the file: atomic writes replace the file, which ends a file watch.
      watcher = fs.watch(dir, (_event, name) => {
        if (!name || name.toString() === path.basename(this.file)) reread();
      });
    } catch (err) {
      // An unwatchable folder must not break the caller: changes through this store are still reported.
      this.logger.warn(`Cannot watch ${dir} for changes by other programs: ${(err as Error).message}`);
      return () => this.listeners.delete(entry);
    }
    watcher.on('error', (err) => this.logger.warn(`Watching ${dir} failed: ${err.message}`));
    return () => {
      stopped = true;
      clearTimeout(timer);
      watcher.close();
      this.listeners.delete(entry);
    };
  }

  private notify(entry: { last: NotesConfig; cb: ConfigListener }, config: NotesConfig): void {
    if (sameConfig(entry.last, config)) return;
    const old = entry.last;
    entry.last = config;
    try {
      entry.cb(config, old);
    } catch (err) {
      this.logger.error(`A configuration listener failed: ${(err as Error).message}`);
    }
  }

  /** Read-modify-write under both locks; listeners hear of the change before the promise resolves. */
  private async change(compute: (current: NotesConfig) => NotesConfig, before?: (bytes: Buffer) => void): Promise<NotesConfig> {
    const next = await this.serialized(() =>
      withFileLock(this.file, async () => {
        const load = loadConfigFile(this.file);
        const next = compute(load.config);
        if (load.bytes && before) before(load.bytes);
        // The file being replaced is kept when it held something a user may want back.
        else if (load.bytes && (load.problems.length || load.migrated)) writeBackup(this.file, load.problems.length ? 'invalid' : 'pre-migration', load.bytes);
        await this.write(next);
        return next;
      }),
    );
    for (const entry of this.listeners) this.notify(entry, next);
    return next;
  }

  private async write(value: unknown): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, serializeConfig(value), { encoding: 'utf8' });
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export function createConfigStore(options: ConfigStoreOptions): ConfigStore {
  return new ConfigStore(options);
}
