// In-memory index of the workspace: the listed files and the text of searchable files, kept fresh by folder watchers.
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isAllowedTextFile } from './file-types';
import { comparePaths, createPathFilter, type ListOptions, type PathFilter } from './listing';

export interface IndexOptions extends ListOptions {
  /** Real path of the workspace root. */
  root: string;
  fileExtension: string;
  /** Files over this size are never cached (nor searched: the scan skips them too). */
  maxFileSize: number;
  /** At most this many file texts are kept (performance.cacheSize). */
  maxFiles: number;
  /** At most this many bytes of text are kept (counted as the memory the strings take). */
  maxBytes: number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

/** Default memory budget for cached note text (all of a 10 000-note workspace); NOTESAPP_INDEX_MB overrides it. */
export const DEFAULT_INDEX_BYTES = 96 * 1024 * 1024;
/** Work done between yields to the event loop while building, so requests are served meanwhile. */
const SLICE_MS = 8;
/** Shared by every synchronous read of the index (one at a time: the event loop runs one at a time). */
const readBuffer = Buffer.allocUnsafe(256 * 1024);
/** Watcher events are applied this long after the first one of a burst, unless a request applies them sooner. */
const APPLY_DELAY_MS = 100;

/**
 * Keeps the sorted list of files (as listWorkspaceFiles lists them) and the text of up to maxFiles/maxBytes of them.
 * One non-recursive fs.watch per folder reports every change, by us or by other programs; the paths it names are
 * re-checked before the index answers (see fresh()), so an answer never uses text older than the last change the
 * watchers reported. Texts that are not cached are read from disk when needed.
 */
export class WorkspaceIndex {
  private files: string[] = [];
  private readonly listed = new Set<string>();
  private readonly texts = new Map<string, string>();
  private bytes = 0;
  private readonly watchers = new Map<string, fs.FSWatcher>();
  /** Paths (files or folders) that watchers reported and that are not re-checked yet. */
  private readonly dirty = new Set<string>();
  private readonly filter: PathFilter;
  private crawling: Promise<void> | undefined;
  private cachingTexts: Promise<void> | undefined;
  private disposed = false;
  private applyTimer: NodeJS.Timeout | undefined;
  /** Set when a folder could not be watched: the index may miss changes, so callers fall back to the disk. */
  private unreliable: string | undefined;
  private readonly setListeners = new Set<() => void>();
  /** Changes whenever the list of files changes (callers cache what they derive from it). */
  version = 0;

  constructor(private readonly options: IndexOptions) {
    this.filter = createPathFilter(options);
  }

  /** Starts the crawl and the watchers (once); resolves when the list of files is complete. */
  listing(): Promise<void> {
    this.crawling ??= this.crawl().catch((err: unknown) => {
      this.unreliable = `building the index failed: ${(err as Error).message}`;
    });
    return this.crawling;
  }

  /** Starts caching texts (once, after the listing); resolves when every text that fits the budget is cached. */
  caching(): Promise<void> {
    this.cachingTexts ??= this.listing().then(() => this.cacheAll());
    return this.cachingTexts;
  }

  /** Called after the list of files changed because of a watcher event (not on the first build). */
  onFilesChanged(listener: () => void): void {
    this.setListeners.add(listener);
  }

  /**
   * Waits for the listing (and, with `texts`, for the texts being cached), then applies every change reported so
   * far. False when the index cannot be trusted (a folder could not be watched): the caller reads the disk then.
   */
  async fresh(texts: boolean): Promise<boolean> {
    await (texts ? this.caching() : this.listing());
    // Every watcher event the kernel queued before now must reach `dirty` first. An I/O round trip completes in an
    // event-loop poll that also sees those (already pending) events, and the turn after that poll has run all of
    // their callbacks, whatever order the poll delivered them in.
    await fs.promises.stat(this.options.root).catch(() => undefined);
    await yieldToEventLoop();
    this.applyChanges();
    if (this.unreliable) this.options.log?.('debug', `index not used: ${this.unreliable}`);
    return !this.unreliable && !this.disposed;
  }

  /** The listed files, sorted. Only after fresh() answered true. */
  listFiles(): readonly string[] {
    return this.files;
  }

  /**
   * The file's text from memory, or read from disk when it is not cached (undefined when it is over maxFileSize,
   * gone or unreadable, as for the scan). Disk reads go through the shared buffer: a search over a workspace
   * larger than the budget then leaves no buffer per file behind for the garbage collector.
   */
  text(file: string): string | undefined {
    return this.texts.get(file) ?? this.readText(file);
  }

  stats(): { files: number; cachedFiles: number; cachedBytes: number; watchedFolders: number } {
    return { files: this.files.length, cachedFiles: this.texts.size, cachedBytes: this.bytes, watchedFolders: this.watchers.size };
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.applyTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.texts.clear();
    this.files = [];
    this.listed.clear();
  }

  private absolute(rel: string): string {
    return rel === '' ? this.options.root : path.join(this.options.root, ...rel.split('/'));
  }

  private async crawl(): Promise<void> {
    const started = Date.now();
    const found: string[] = [];
    const queue = [''];
    const breathe = slicer();
    while (queue.length && !this.disposed) {
      this.walkFolder(queue.pop() as string, found, queue);
      await breathe();
    }
    found.sort(comparePaths);
    this.files = found;
    for (const f of found) this.listed.add(f);
    this.version++;
    this.options.log?.('info', `index: ${found.length} files listed and ${this.watchers.size} folders watched in ${Date.now() - started} ms`);
  }

  private async cacheAll(): Promise<void> {
    const started = Date.now();
    const breathe = slicer();
    // Over a copy: watcher changes applied meanwhile (by a request) must not shift the loop.
    for (const f of [...this.files]) {
      if (this.disposed) return;
      if (this.listed.has(f) && !this.dirty.has(f) && !this.texts.has(f)) this.cache(f);
      await breathe();
    }
    this.options.log?.('info', `index: ${this.texts.size} texts (${Math.round(this.bytes / 1048576)} MiB) cached in ${Date.now() - started} ms`);
  }

  /** Watches one folder, then reads it (in that order, so nothing changed in between is missed). */
  private walkFolder(rel: string, files: string[], folders: string[]): void {
    this.watch(rel);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.absolute(rel), { withFileTypes: true });
    } catch {
      return; // gone or unreadable: the crawl skips it too
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!this.filter.folderExcluded(child)) folders.push(child);
      } else if (e.isFile() && this.filter.fileIncluded(child)) files.push(child);
    }
  }

  private watch(rel: string): void {
    if (this.watchers.has(rel)) return;
    try {
      const watcher = fs.watch(this.absolute(rel), { persistent: false }, (_event, name) => {
        // No name: something in the folder changed, re-check the whole folder.
        this.dirty.add(name ? (rel ? `${rel}/${name}` : String(name)) : rel);
        this.scheduleApply();
      });
      watcher.on('error', () => {
        watcher.close();
        if (this.watchers.get(rel) === watcher) this.watchers.delete(rel);
        this.dirty.add(rel);
      });
      this.watchers.set(rel, watcher);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A folder that vanished is simply gone; anything else (such as the watch limit) means changes can be missed.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.unreliable ??= `cannot watch ${rel || 'the workspace folder'}: ${(err as Error).message}`;
    }
  }

  /** Reads a file's text into memory when it is searchable and fits the budget; drops it otherwise. */
  private cache(file: string): void {
    this.uncache(file);
    const o = this.options;
    if (!isAllowedTextFile(file, o.fileExtension) || this.texts.size >= o.maxFiles || this.bytes >= o.maxBytes) return;
    const text = this.readText(file);
    if (text === undefined) return;
    const cost = costOf(text);
    if (this.bytes + cost > o.maxBytes) return;
    this.texts.set(file, text);
    this.bytes += cost;
  }

  /** The whole text of a file, or undefined when it is over maxFileSize, gone or unreadable. */
  private readText(file: string): string | undefined {
    const o = this.options;
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.absolute(file), 'r');
      // Most notes fit the shared buffer: one read, no fstat, no allocation. Larger files are read whole.
      let buf = readBuffer;
      let filled = fs.readSync(fd, buf, 0, buf.length, 0);
      if (filled === buf.length) {
        const { size } = fs.fstatSync(fd);
        if (size > o.maxFileSize) return undefined;
        buf = Buffer.allocUnsafe(size);
        filled = 0;
        while (filled < size) {
          const n = fs.readSync(fd, buf, filled, size - filled, filled);
          if (n === 0) break;
          filled += n;
        }
      }
      if (filled > o.maxFileSize) return undefined;
      return buf.toString('utf8', 0, filled);
    } catch {
      return undefined; // gone or unreadable: the scan skips it the same way
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  private uncache(file: string): void {
    const old = this.texts.get(file);
    if (old === undefined) return;
    this.texts.delete(file);
    this.bytes -= costOf(old);
  }

  /** Applies reported changes soon even when no request asks, so texts stay fresh and listeners hear of new files. */
  private scheduleApply(): void {
    if (this.applyTimer) return;
    this.applyTimer = setTimeout(() => {
      this.applyTimer = undefined;
      // Before the listing is complete, the listing itself is applied first (see fresh()).
      if (this.files.length || this.version > 0) this.applyChanges();
    }, APPLY_DELAY_MS);
    this.applyTimer.unref();
  }

  /** Re-checks every path the watchers reported: a file (re-read), a folder (re-crawled) or a path now gone. */
  private applyChanges(): void {
    if (this.dirty.size === 0 || this.disposed) return;
    const paths = [...this.dirty];
    this.dirty.clear();
    const before = this.version;
    for (const rel of paths) {
      let stat: fs.Stats | undefined;
      try {
        stat = fs.lstatSync(this.absolute(rel));
      } catch {
        stat = undefined;
      }
      if (stat?.isFile()) {
        this.removeUnder(rel, true);
        if (this.isListed(rel)) {
          this.addFile(rel);
          this.cache(rel);
        } else this.removeFile(rel);
      } else if (stat?.isDirectory()) {
        this.removeFile(rel);
        this.removeUnder(rel, true);
        if (rel === '' || this.folderListed(rel)) {
          const files: string[] = [];
          const queue = [rel];
          while (queue.length) this.walkFolder(queue.pop() as string, files, queue);
          for (const f of files) {
            this.addFile(f);
            this.cache(f);
          }
        }
      } else {
        // Gone, or now a symbolic link or something else the listing skips.
        this.removeFile(rel);
        this.removeUnder(rel, true);
      }
    }
    if (this.version !== before) for (const l of this.setListeners) l();
  }

  private isListed(file: string): boolean {
    if (!this.filter.fileIncluded(file)) return false;
    const parent = file.lastIndexOf('/');
    return parent < 0 || this.folderListed(file.slice(0, parent));
  }

  /** A folder is crawled when neither it nor any folder above it is pruned. */
  private folderListed(folder: string): boolean {
    for (let i = folder.indexOf('/'); i >= 0; i = folder.indexOf('/', i + 1)) if (this.filter.folderExcluded(folder.slice(0, i))) return false;
    return !this.filter.folderExcluded(folder);
  }

  private addFile(file: string): void {
    if (this.listed.has(file)) return;
    this.listed.add(file);
    this.files.splice(lowerBound(this.files, file), 0, file);
    this.version++;
  }

  private removeFile(file: string): void {
    if (!this.listed.delete(file)) return;
    this.files.splice(lowerBound(this.files, file), 1);
    this.uncache(file);
    this.version++;
  }

  /** Forgets everything under a folder (files and, with `watchers`, the folder's own watchers too). */
  private removeUnder(folder: string, watchers: boolean): void {
    const prefix = folder === '' ? '' : `${folder}/`;
    if (watchers) {
      for (const [rel, w] of this.watchers) {
        if (rel === folder || rel.startsWith(prefix)) {
          w.close();
          this.watchers.delete(rel);
        }
      }
    }
    const from = lowerBound(this.files, prefix);
    let to = from;
    while (to < this.files.length && this.files[to].startsWith(prefix)) to++;
    if (to === from) return;
    for (const f of this.files.slice(from, to)) {
      this.listed.delete(f);
      this.uncache(f);
    }
    this.files.splice(from, to - from);
    this.version++;
  }
}

/** Yields to the event loop once SLICE_MS of synchronous work has been done since the last yield. */
function slicer(): () => Promise<void> {
  let sliceStart = Date.now();
  return async () => {
    if (Date.now() - sliceStart >= SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = Date.now();
    }
  };
}

/** Memory a string takes: pure ASCII is stored one byte per character; anything else may take two. */
function costOf(text: string): number {
  return Buffer.byteLength(text) === text.length ? text.length : text.length * 2;
}

/** First index whose path sorts at or after `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
