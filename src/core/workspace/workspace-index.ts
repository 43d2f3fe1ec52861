// In-memory index of the workspace: the listed files (here) and the text of searchable files (in the text worker),
// kept fresh by folder watchers.
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isAllowedTextFile } from './file-types';
import { compileGlobs, createPathFilter, globMatcher, type ListOptions, type PathFilter } from './listing';
import { filterPrelisting, RACY_MS, recheck, type PrelistCheck, type Prelisting } from './prelist';
import { DEFAULT_REGEX_BUDGET_MS, linesWith, searchWith, walkRules, walkWith, type RipgrepUse, type SearchOutcome, type SearchQuery } from './search';
import type { NoteStat } from './stats';
import { TextWorker, type WalkRules } from './text-worker';

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
  /** How long a user regular expression may run on one file. */
  regexBudgetMs?: number;
  /** Text worker threads (default: see TextWorker). */
  textWorkers?: number;
  /**
   * Resolves once the replies already sent have been written out (the transport's whenIdle()). The crawl waits
   * for it between folders unless a request needs the listing, and the workers start reading only after it: on a
   * pipe, a large answer leaves while the event loop is free, and the client reads it on a core this work would
   * take.
   */
  waitForOutput?: () => Promise<void>;
  /**
   * The early listing to start from (default: the first text worker's, see prelist.ts), before the exclude globs
   * are applied to it. Asked only when the settings prune what it leaves out (hidden names, node_modules folders).
   * `requested` resolves once a request waits for the listing (the worker may then check the folders itself).
   */
  prelisting?: (requested: Promise<void>) => Promise<Prelisting | undefined>;
  /**
   * A folder whose modification or change time is this close to (or after) the moment it was checked is read again
   * rather than trusted to be unchanged: file systems store those times in ticks (two seconds on FAT), so a change
   * in the same tick leaves them equal. Default RACY_MS; tests set 0.
   */
  racyMs?: number;
  /** How long an early listing taken in waits for a request before it is checked (default CHECK_GRACE_MS). */
  checkGraceMs?: number;
  /**
   * Watcher events in one turn of the event loop from which the index assumes the operating system dropped some:
   * Linux queues at most fs.inotify.max_queued_events of them (16384 by default) and silently drops the rest when
   * a mass change (a git checkout, a sync) outruns the server, and every queued event arrives in the same turn. The
   * index then re-lists the whole workspace. Default: half that queue (read from /proc), else 8192.
   */
  burstLimit?: number;
  /** Watches one folder (default fs.watch); tests make it fail as the operating system's watch limit does. */
  watchFolder?: (folder: string, options: { persistent: boolean }, listener: fs.WatchListener<string>) => fs.FSWatcher;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

let defaultBurstLimit: number | undefined;
/** See IndexOptions.burstLimit. */
function burstLimitOf(): number {
  if (defaultBurstLimit === undefined) {
    let queue = 16384;
    try {
      queue = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8')) || queue;
    } catch {
      // Not Linux: no such queue; the limit still catches a burst that large.
    }
    defaultBurstLimit = Math.max(1, Math.floor(queue / 2));
  }
  return defaultBurstLimit;
}

/** Work done between yields to the event loop while building, so requests are served meanwhile. */
const SLICE_MS = 8;
/** Watcher events are applied this long after the first one of a burst, unless a request applies them sooner. */
const APPLY_DELAY_MS = 100;
/** How long the check of an early listing waits for a request, unless one waits already (see fromPrelisting). */
const CHECK_GRACE_MS = 10;
/**
 * An early listing with at least this many folders, complete before a request waited for it, is checked by this
 * thread and the text worker together (see checkShared); a smaller one by this thread alone.
 */
const SHARED_CHECK_MIN_FOLDERS = 256;
/** Folders this thread checks at a time in a shared check: a few milliseconds, then the worker's answer is looked at. */
const SHARED_CHECK_SLICE = 128;
/** The exclude glob that prunes every node_modules folder (an early listing leaves them out). */
const NODE_MODULES_GLOB = '**/node_modules/**';

/** Folders of an early listing, checked unchanged but not watched yet: their times and inode (in threes), and when the check began. */
interface Unwatched {
  folders: readonly string[];
  stats: readonly number[];
  checkedAt: number;
}

/** The check of an early listing's folders: their stats now, those that changed, and when the check began. */
interface FolderCheck {
  stats: number[];
  changed: string[];
  checkedAt: number;
}

/** The longest fresh() waits for the text worker's bytes of the list (see EncodedFiles.coming) before going on without. */
const ENCODED_WAIT_MS = 250;

/**
 * A place for the listed files as list_files' answer writes them (see listAnswer), kept while the list stays as it
 * is.
 */
export interface EncodedFiles {
  /** Those files' bytes, when made: by the text worker for an early listing, else by the first answer of the whole list. */
  body?: readonly Uint8Array[];
  /** Set while the text worker makes them (it does so as the listing is taken in): settles once they came or not. */
  coming?: Promise<void>;
}

/**
 * Keeps the sorted list of files (as listWorkspaceFiles lists them); its text worker keeps the text of up to
 * maxFiles/maxBytes of them and searches them. One non-recursive fs.watch per folder reports every change, by us or
 * by other programs; the paths it names are re-checked before the index answers (see fresh()) and changed texts are
 * dropped from the worker before the next search reaches it, so an answer never uses text older than the last
 * change the watchers reported. Texts that are not kept are read from disk when a search needs them.
 */
export class WorkspaceIndex {
  private files: string[] = [];
  /** Reads, keeps and searches the texts; created by prepareTexts(), caching() or the first search(). */
  private texts: TextWorker | undefined;
  /** The files whose texts may be kept (listed text files), derived again when the list changes. */
  private cacheable: { version: number; files: string[] } | undefined;
  private readonly watchers = new FolderWatchers();
  /** Size and modification time of listed files, read on first need and forgotten when a watcher names them. */
  private readonly fileStats = new Map<string, NoteStat>();
  /** The inode number of each file in fileStats (see forgetLinked). */
  private readonly statInodes = new Map<string, number>();
  /** Changes whenever a kept size and time is forgotten (what was derived from them is then out of date). */
  private statsGeneration = 0;
  /** The last answer of noteStats() made wholly of kept sizes and times, for the same list of files. */
  private lastNoteStats: { files: readonly string[]; generation: number; stats: readonly NoteStat[] } | undefined;
  /** Paths (files or folders) that watchers reported and that are not re-checked yet. */
  private readonly dirty = new Set<string>();
  private readonly filter: PathFilter;
  private crawling: Promise<void> | undefined;
  /** Set once the first crawl is complete. */
  private crawled = false;
  private disposed = false;
  private applyTimer: NodeJS.Timeout | undefined;
  /** Set when a folder could not be watched: the index may miss changes, so callers fall back to the disk. */
  private unreliable: string | undefined;
  private readonly setListeners = new Set<() => void>();
  private readonly appliedListeners = new Set<() => void>();
  /** Work the crawl waits for (a walk search): both at once on two cores made each slower. */
  private holds = 0;
  /** Set once a caller needs the listing itself: the crawl then never waits. */
  private listingWanted = false;
  /** Resolves when listingWanted is set: it ends any wait of the crawl. */
  private readonly wanted: Promise<void>;
  private markWanted!: () => void;
  private resumeCrawl: (() => void) | undefined;
  /** Requests waiting in fresh(). */
  private requestsWaiting = 0;
  /** Watcher events in this turn of the event loop (see IndexOptions.burstLimit). */
  private burst = 0;
  /** Set when the listing completed while requests waited: the workers start reading once those are answered. */
  private readingDeferred = false;
  /** A deferred start of reading is waiting for the output (one at a time). */
  private readingScheduled = false;
  /**
   * Set while the listing came from an early listing whose folders are checked but not watched yet: requests that
   * were waiting before the check began are answered from it; any other waits for watched().
   */
  private unwatched: Unwatched | undefined;
  /** Watching the folders of `unwatched`, once started. */
  private watching: Promise<void> | undefined;
  /** Set once the check of an early listing began: requests arriving from then on wait for the watchers. */
  private checking = false;
  /** Set once a request waits for the watchers: watching then never waits for the output. */
  private watchWanted = false;
  private readonly watchWantedSignal: Promise<void>;
  private markWatchWanted!: () => void;
  /** The first searchUncached(): the workers' reading waits while it runs. */
  private firstUncached: 'none' | 'running' | 'done' = 'none';
  /** Called once no request waits in fresh() (see answered()). */
  private answeredWaiters: Array<() => void> = [];
  /**
   * The workspace folder itself, as listed: its device and inode (undefined while it is gone). A folder put in its
   * place (`mv notes notes-old; mkdir notes`) is another inode, which the watchers of the old one never report on.
   */
  private rootId: string | undefined;
  /** Changes whenever the list of files changes (callers cache what they derive from it). */
  version = 0;
  /** The listed files as list_files' answer writes them (see encodedFiles), for one version of the list. */
  private encoded: EncodedFiles & { version: number } = { version: -1 };

  constructor(private readonly options: IndexOptions) {
    this.filter = createPathFilter(options);
    this.wanted = new Promise((resolve) => (this.markWanted = resolve));
    this.watchWantedSignal = new Promise((resolve) => (this.markWatchWanted = resolve));
  }

  /** Starts the crawl and the watchers (once); resolves when the list of files is complete. */
  listing(): Promise<void> {
    this.crawling ??= this.crawl().catch((err: unknown) => {
      this.unreliable = `building the index failed: ${(err as Error).message}`;
    });
    return this.crawling;
  }

  /** Boots the text worker ahead of the listing (booting takes tens of milliseconds), so that it can read at once. */
  prepareTexts(): void {
    if (!this.disposed) this.textWorker().start();
  }

  /** Starts keeping texts (after the listing); resolves when every text that fits the budget is read. */
  async caching(): Promise<void> {
    await this.listing();
    if (this.disposed || !this.crawled) return; // a failed crawl leaves the index untrusted: searches read the disk
    const started = Date.now();
    const { cachedFiles, cachedBytes } = await this.textWorker().cached();
    this.options.log?.('info', `index: ${cachedFiles} texts (${Math.round(cachedBytes / 1048576)} MiB) kept by the text worker, ready ${Date.now() - started} ms after the listing`);
  }

  /**
   * Searches `files` (listed, searchable, sorted) in the text worker. Call fresh() first, so that every change the
   * watchers reported has reached the worker.
   */
  search(files: readonly string[], q: SearchQuery): Promise<SearchOutcome> {
    this.startReading(); // a search keeps the texts it reads only once the workers know which to keep
    return searchWith(this.textWorker(), files, q, this.options.regexBudgetMs ?? DEFAULT_REGEX_BUDGET_MS);
  }

  /** True once the first listing is complete (searches then use it). */
  listed(): boolean {
    return this.crawled && !this.disposed;
  }

  /**
   * True while the first listing is going on and no request is waiting for it: a search answered by walkSearch()
   * then does not wait for it (and the crawl waits for the walk instead).
   */
  stillListing(): boolean {
    return !this.crawled && !this.disposed && !this.listingWanted;
  }

  /** The rules by which a worker lists the files a search reads: this index's, less `searchExcludePatterns`. */
  walkRules(searchExcludePatterns: readonly string[]): WalkRules {
    const o = this.options;
    return walkRules({ excludePatterns: o.excludePatterns, searchExcludePatterns, showHiddenFiles: o.showHiddenFiles, fileExtension: o.fileExtension });
  }

  /**
   * Searches without the listing: the first text worker lists the workspace by `rules` itself, then the files are
   * read and searched (by that worker alone, or split across all of them when there are several). Answers a
   * search that arrives while the index is still listing sooner than waiting for the listing would. Undefined
   * when the listing was completed meanwhile (several workers only): the caller searches the index then.
   */
  walkSearch(rules: WalkRules, q: SearchQuery): Promise<SearchOutcome | undefined> {
    this.options.log?.('debug', 'search: the index is still listing, so its text worker lists the workspace itself');
    const budget = this.options.regexBudgetMs ?? DEFAULT_REGEX_BUDGET_MS;
    return this.whileCrawlWaits(async () => {
      const worker = this.textWorker();
      if (worker.size === 1) return walkWith(worker, rules, q, budget);
      const files = await worker.walkList(rules, q.signal);
      // Until the listing is complete the workers keep no text, so none can be stale (the search is posted before
      // any later sync). After it, they may keep texts whose change is not applied yet: the index path applies it.
      if (this.crawled || this.disposed) return undefined;
      return searchWith(worker, files, q, budget);
    });
  }

  /**
   * Searches without the listing, like walkSearch, but matches only the lines on which `ripgrep` finds what every
   * match holds. Undefined when ripgrep cannot narrow this query down or failed (the caller walks then), or when
   * the listing was completed meanwhile (the caller searches the index then: the workers may keep texts by now).
   */
  ripgrepSearch(ripgrep: RipgrepUse, rules: WalkRules, q: SearchQuery): Promise<SearchOutcome | undefined> {
    return this.whileCrawlWaits(async () => {
      const lines = await ripgrep.lines(this.options.root, rules, q, this.options.maxFileSize);
      if (!lines || this.crawled || this.disposed) return undefined;
      return this.matchLines(lines, rules, q, 'the index is still listing');
    });
  }

  /**
   * While the text workers do not hold every text — not reading them yet, still reading them, stopped at the
   * budget (a workspace larger than it), or keeping none after failing — matches the lines on which `ripgrep`
   * finds what every match holds, instead of reading from disk every text not in memory. Undefined when every
   * text is kept, or ripgrep cannot narrow this query down or failed: search() answers then. Needs no listing:
   * ripgrep reads the files as they are now, and `rules` decide which of them count, as they decide the listing.
   * The listing goes on meanwhile (as for a request that waits for it); the workers' reading, which competes for
   * the cores, waits for the first such search only (later ones must not keep the texts from ever being read).
   */
  async searchUncached(ripgrep: RipgrepUse, rules: WalkRules, q: SearchQuery): Promise<SearchOutcome | undefined> {
    if (this.texts?.allKept() || this.disposed) return undefined;
    this.listingWanted = true;
    this.markWanted();
    this.resumeCrawl?.();
    const first = this.firstUncached === 'none';
    if (first) this.firstUncached = 'running';
    try {
      const lines = await ripgrep.lines(this.options.root, rules, q, this.options.maxFileSize);
      if (!lines || this.disposed) return undefined;
      return await this.matchLines(lines, rules, q, 'not every text is in memory');
    } finally {
      if (first) {
        this.firstUncached = 'done';
        if (this.readingDeferred && this.requestsWaiting === 0 && !this.readingScheduled) {
          this.readingScheduled = true;
          setImmediate(() => void this.outputWritten().then(() => this.startReading()));
        }
      }
    }
  }

  /** Matches the lines ripgrep printed in the first text worker (`why` is logged). */
  private matchLines(lines: Uint8Array, rules: WalkRules, q: SearchQuery, why: string): Promise<SearchOutcome> {
    this.options.log?.('debug', `search: ${why}, so the text worker matches the lines ripgrep found`);
    return linesWith(this.textWorker(), lines, rules, q, this.options.regexBudgetMs ?? DEFAULT_REGEX_BUDGET_MS);
  }

  /**
   * Runs `work` (which reads the workspace another way) with the crawl paused, unless a request needs the listing;
   * the crawl resumes a turn after the last such work ends, so that its answer usually reaches the transport first
   * (that promise chain runs before the next turn), and then waits for it to be written out (waitForOutput). The
   * first text worker's early listing, if it is still listing, is set aside meanwhile (see holdPrelisting): on the
   * benchmark's 10 000 notes it was often still listing when the first search came, and took cores from ripgrep.
   */
  async whileCrawlWaits<T>(work: () => Promise<T>): Promise<T> {
    if (this.holds++ === 0) this.texts?.holdPrelisting(true);
    try {
      return await work();
    } finally {
      if (--this.holds === 0) {
        this.texts?.holdPrelisting(false);
        setImmediate(() => this.holds === 0 && this.resumeCrawl?.());
      }
    }
  }

  private outputWritten(): Promise<void> {
    return this.options.waitForOutput?.() ?? Promise.resolve();
  }

  /**
   * Lets the workers read the texts to keep, if that was deferred until the requests waiting were answered; an
   * early listing's folders are watched first (a text read before its file is watched could go stale unnoticed).
   */
  private startReading(): void {
    this.readingScheduled = false;
    if (this.firstUncached === 'running' && !this.disposed) return; // searchUncached() calls again
    if (this.unwatched) {
      void this.watched().then(() => this.startReading());
      return;
    }
    if (!this.readingDeferred || this.disposed) return;
    this.readingDeferred = false;
    this.texts?.sync(this.cacheableFiles(), []);
  }

  /** Resolves once every listed folder is watched (at once, unless the listing came from an early listing). */
  private watched(): Promise<void> {
    if (!this.unwatched) return Promise.resolve();
    this.watching ??= this.watchChecked(this.unwatched);
    return this.watching;
  }

  /**
   * Resolves once the listing is complete, the requests that were waiting for it are answered and their replies
   * written out: background work started then does not delay the first answers.
   */
  async answered(): Promise<void> {
    await this.listing();
    // Requests whose turn came with the listing's enter fresh() first.
    await yieldToEventLoop();
    if (this.requestsWaiting > 0 && !this.disposed) await new Promise<void>((resolve) => this.answeredWaiters.push(resolve));
    await this.outputWritten();
  }

  /** Called after the list of files changed because of a watcher event (not on the first build). */
  onFilesChanged(listener: () => void): void {
    this.setListeners.add(listener);
  }

  /**
   * Called after changes watchers reported are applied, whether or not the list of files changed: the size, time or
   * text of a listed file may have (an edit reports the file alone).
   */
  onChangesApplied(listener: () => void): void {
    this.appliedListeners.add(listener);
  }

  /**
   * Waits for the listing, then applies every change reported so far (texts included: changed ones are dropped
   * from the worker). False when the index cannot be trusted (a folder could not be watched): the caller reads the
   * disk then. `background`: the caller is not answering a request, so a crawl waiting for a walk search keeps
   * waiting. `encoded`: the caller writes the whole list with encodedFiles(), so it waits for the text worker's
   * bytes of the list too while they are being made (see EncodedFiles.coming), for at most ENCODED_WAIT_MS: in a
   * fresh process, the worker makes those of 50 000 paths in 10-15 ms, this thread in 30-45 ms. The request counts
   * as waiting meanwhile, so that the folders' watchers and the texts' reading, which start once no request waits,
   * do not delay it.
   */
  async fresh(background = false, encoded = false): Promise<boolean> {
    if (background) return this.applyPending();
    this.listingWanted = true;
    this.markWanted();
    this.resumeCrawl?.();
    // Checked after this request arrived, an early listing answers it before its folders are watched.
    const beforeCheck = !this.checking;
    this.requestsWaiting++;
    try {
      if (!beforeCheck) {
        await this.listing();
        if (this.unwatched) {
          this.watchWanted = true;
          this.markWatchWanted();
        }
        await this.watched();
      }
      if (!(await this.applyPending())) return false;
      const slot = encoded ? this.encodedFiles() : undefined;
      if (!slot?.coming) return true;
      await Promise.race([slot.coming, new Promise<void>((resolve) => setTimeout(resolve, ENCODED_WAIT_MS).unref())]);
      slot.coming = undefined; // waited for once (they are still kept should they come later)
      // Changes reported meanwhile (a new version of the list makes its own bytes).
      return await this.applyPending();
    } finally {
      // A reply built in this promise chain reaches the transport before the next turn (one that does more I/O
      // after the listing may not, and reading then starts sooner); the workers' reading (on another core,
      // competing with the client reading the reply) starts once the transport has written out what it holds.
      if (--this.requestsWaiting === 0 && this.readingDeferred && !this.readingScheduled) {
        this.readingScheduled = true;
        setImmediate(() => void this.outputWritten().then(() => this.startReading()));
      }
      if (this.requestsWaiting === 0) for (const answered of this.answeredWaiters.splice(0)) setImmediate(answered);
    }
  }

  private async applyPending(): Promise<boolean> {
    await this.listing();
    // Every watcher event the kernel queued before now must reach `dirty` first. An I/O round trip completes in an
    // event-loop poll that also sees those (already pending) events, and the turn after that poll has run all of
    // their callbacks, whatever order the poll delivered them in. The stat also tells whether the workspace folder
    // is still the one listed.
    const root = await fs.promises.stat(this.options.root).catch(() => undefined);
    await yieldToEventLoop();
    this.checkRoot(root);
    this.applyChanges();
    if (this.unreliable) this.options.log?.('debug', `index not used: ${this.unreliable}`);
    return !this.unreliable && !this.disposed;
  }

  /** The listed files whose text is searched (text file types), sorted. Only after fresh() answered true. */
  textFiles(): readonly string[] {
    return this.cacheableFiles();
  }

  /** The listed files, sorted. Only after fresh() answered true. */
  listFiles(): readonly string[] {
    return this.files;
  }

  /** The listed files as list_files' answer writes them, kept while the list stays as it is (see EncodedFiles). */
  encodedFiles(): EncodedFiles {
    if (this.encoded.version !== this.version) this.encoded = { version: this.version };
    return this.encoded;
  }

  /**
   * Size and modification time of `files` (listed files; call fresh() first): kept from an earlier call unless a
   * watcher reported a change to the file or a folder above it since, else read from the disk (in slices, so that
   * requests are served meanwhile). Files gone are left out. A file with several hard links is read every time: a
   * change made through another of its names is reported for that name only.
   */
  async noteStats(files: readonly string[]): Promise<readonly NoteStat[]> {
    const generation = this.statsGeneration;
    const last = this.lastNoteStats;
    if (last && last.files === files && last.generation === generation) return last.stats;
    const out: NoteStat[] = [];
    const breathe = slicer();
    let allKept = true;
    for (const rel of files) {
      let known = this.fileStats.get(rel);
      if (!known) {
        // Kept only when taken with the folders watched, so that a later change is reported.
        const watched = !this.unwatched;
        let stat: fs.Stats | undefined;
        try {
          stat = fs.statSync(this.absolute(rel), { throwIfNoEntry: false });
        } catch {
          stat = undefined; // unreadable: left out, as a file gone
        }
        if (!stat) {
          allKept = false;
          continue;
        }
        known = { path: rel, size: stat.size, mtimeMs: stat.mtimeMs };
        // Set before any watcher event is handled (those wait for the next turn), so a later change drops it.
        if (!this.disposed && watched && !this.unwatched && stat.nlink <= 1) {
          this.fileStats.set(rel, known);
          this.statInodes.set(rel, stat.ino);
        } else allKept = false;
        await breathe();
      }
      out.push(known);
    }
    // Kept for the next call when every entry is kept (so a change to any of them is reported) and none was
    // forgotten meanwhile: the answer for the same list is then the same.
    if (allKept && generation === this.statsGeneration && !this.disposed) this.lastNoteStats = { files, generation, stats: out };
    return out;
  }

  stats(): { files: number; cachedFiles: number; cachedBytes: number; watchedFolders: number } {
    const { cachedFiles, cachedBytes } = this.texts?.cacheStats() ?? { cachedFiles: 0, cachedBytes: 0 };
    return { files: this.files.length, cachedFiles, cachedBytes, watchedFolders: this.watchers.size };
  }

  dispose(): void {
    this.disposed = true;
    this.resumeCrawl?.();
    this.markWanted(); // ends a wait for the output too
    this.markWatchWanted();
    for (const answered of this.answeredWaiters.splice(0)) answered();
    clearTimeout(this.applyTimer);
    this.watchers.closeUnder('');
    this.texts?.close();
    this.files = [];
    this.fileStats.clear();
    this.statInodes.clear();
    this.lastNoteStats = undefined;
  }

  private textWorker(): TextWorker {
    if (!this.texts) {
      const o = this.options;
      this.texts = new TextWorker({ root: o.root, maxFileSize: o.maxFileSize, maxFiles: o.maxFiles, maxBytes: o.maxBytes, shards: o.textWorkers, log: o.log });
      if (this.crawled && !this.readingDeferred && !this.unwatched) this.texts.sync(this.cacheableFiles(), []);
    }
    return this.texts;
  }

  private cacheableFiles(): string[] {
    if (this.cacheable?.version !== this.version) {
      this.cacheable = { version: this.version, files: this.files.filter((f) => isAllowedTextFile(f, this.options.fileExtension)) };
    }
    return this.cacheable.files;
  }

  private absolute(rel: string): string {
    if (rel === '') return this.options.root;
    return path.sep === '/' ? `${this.options.root}/${rel}` : path.join(this.options.root, ...rel.split('/'));
  }

  private async crawl(): Promise<void> {
    const started = Date.now();
    // Noted before anything is listed or watched: a folder put in its place after this is listed again.
    this.rootId = rootIdOf(this.rootStat());
    if (await this.fromPrelisting(started)) return;
    const found: string[] = [];
    const queue = [''];
    const breathe = slicer();
    // Texts are read once the list is complete, not while the crawl goes on: on two cores, reading during the
    // crawl slowed the first listing by a quarter and did not make the first search any faster.
    while (queue.length && !this.disposed) {
      this.walkFolder(queue.pop() as string, found, queue);
      await breathe();
      // A request waiting for the listing does not wait for the output.
      if (!this.listingWanted) await Promise.race([this.outputWritten(), this.wanted]);
      while (this.holds > 0 && !this.listingWanted && !this.disposed) await new Promise<void>((resume) => (this.resumeCrawl = resume));
    }
    if (this.disposed) return;
    found.sort(); // by UTF-16 code units, as comparePaths sorts
    this.files = found;
    this.version++;
    this.crawled = true;
    if (this.requestsWaiting > 0) this.readingDeferred = true;
    else this.texts?.sync(this.cacheableFiles(), []);
    this.options.log?.('info', `index: ${found.length} files listed and ${this.watchers.size} folders watched in ${Date.now() - started} ms`);
  }

  /**
   * Takes the listing from an early listing when there is one for these settings: each folder it read is checked
   * unchanged since (its times and inode; one stat instead of a read), and one that changed, or whose times are too
   * recent to tell (racy), is read again as a watcher's report of it would be (it and everything under it,
   * watched). The other folders are watched later (watchChecked), once the requests waiting are answered. False
   * when there is none: the caller crawls.
   */
  private async fromPrelisting(started: number): Promise<boolean> {
    const o = this.options;
    if (o.showHiddenFiles || !o.excludePatterns.includes(NODE_MODULES_GLOB)) return false;
    let early: Prelisting | undefined;
    try {
      early = await (o.prelisting ? o.prelisting(this.wanted) : this.textWorker().prelisted(this.wanted));
    } catch {
      early = undefined;
    }
    if (!early || early.root !== o.root || this.disposed) return false;
    const excluded = globMatcher(compileGlobs(o.excludePatterns));
    // Meanwhile the folders read before a request waited may be being checked, by the worker or by this thread
    // (see recheck and checkHead).
    const { folders, stats: earlyStats, places, files, whole } = filterPrelisting(early, excluded, excluded.needles);
    const afterRequest = early.check ? await early.check : undefined;
    // Requests that arrive before the check begins are answered before the folders are watched: a request already
    // on its way (a client calls a tool right after the handshake) gets a moment to come in.
    if (!this.listingWanted) await Promise.race([this.wanted, new Promise<void>((resolve) => setTimeout(resolve, o.checkGraceMs ?? CHECK_GRACE_MS).unref())]);
    if (this.disposed) return true;
    this.options.log?.('debug', `index: the early listing took ${early.finished - early.started} ms and was complete ${started - early.finished} ms before the listing began; ${Date.now() - started} ms to receive it`);
    this.checking = true;
    const racyFrom = early.started - (o.racyMs ?? RACY_MS);
    const shared = afterRequest ? undefined : await this.checkShared(early);
    const checked = afterRequest
      ? this.takeCheck(early, afterRequest, folders, earlyStats, places, racyFrom)
      : shared
        ? this.takeCheck(early, shared, folders, earlyStats, places, racyFrom)
        : await this.checkFolders(folders, earlyStats, racyFrom);
    if (!checked) return true; // disposed
    const { stats, changed, checkedAt } = checked;
    this.files = files;
    for (const rel of changed) this.dirty.add(rel);
    this.unwatched = { folders, stats, checkedAt };
    this.version++;
    if (whole && early.encoded) {
      // The worker's bytes of these very files, for as long as the list is unchanged (any change is a new version).
      const slot = this.encodedFiles();
      slot.coming = early.encoded.then((body) => {
        if (body && !slot.body) slot.body = body;
        slot.coming = undefined;
      });
    }
    this.crawled = true;
    this.readingDeferred = true; // after the watchers (startReading)
    if (this.requestsWaiting === 0) this.startReading();
    const how = afterRequest
      ? `${afterRequest.stats.length / 3} of its ${early.folders.length} folders checked by the ${afterRequest.by}`
      : shared
        ? `${early.folders.length} folders checked, ${shared.byWorker} of them by the worker`
        : `${folders.length} folders checked`;
    const kept = early.kept ? `; ${early.kept.whole ? 'all' : early.kept.reused} of its folders' entries from the listing kept at the last start` : '';
    this.options.log?.('info', `index: ${files.length} files listed in ${Date.now() - started} ms from the early listing (${how}, ${changed.length} read again${kept}); watching them next`);
    return true;
  }

  /**
   * The check of every folder of an early listing that was complete before a request waited for it, made by this
   * thread and the text worker together once a request waits (the worker is otherwise idle then, until the
   * watchers are set up): the worker stats the second half while this thread stats the first, in slices, then
   * goes on with the second half itself until the worker's answer comes (it may be busy with a search). Compared
   * by takeCheck, as a check of a listing's head is. Undefined when this thread checks alone: no request waits (the
   * check then gives way to other work), the listing is small, or there is no text worker.
   */
  private async checkShared(early: Prelisting): Promise<(PrelistCheck & { byWorker: number }) | undefined> {
    const n = early.folders.length;
    if (!this.listingWanted || n < SHARED_CHECK_MIN_FOLDERS || !this.texts || this.options.prelisting) return undefined;
    const mid = n >> 1;
    const slice = (from: number, to: number) => ({ root: early.root, folders: early.folders.slice(from, to), stats: early.stats.slice(3 * from, 3 * to) });
    // Undefined until the worker answers, and when it stopped first.
    let theirs: number[] | undefined;
    void this.texts.recheck(slice(mid, n)).then((stats) => (theirs = stats));
    const stats: number[] = [];
    for (let from = 0; from < n; from += SHARED_CHECK_SLICE) {
      if (from > 0) await yieldToEventLoop();
      if (this.disposed) return undefined;
      if (from >= mid && theirs) {
        // The worker's stats cover the second half whole: this thread's, if any, are dropped.
        stats.length = 3 * mid;
        for (const value of theirs) stats.push(value);
        return { stats, by: 'protocol thread', byWorker: n - mid };
      }
      for (const value of recheck(fs, slice(from, Math.min(n, from + SHARED_CHECK_SLICE))).stats) stats.push(value);
    }
    return { stats, by: 'protocol thread', byWorker: 0 };
  }

  /**
   * Checks each folder of an early listing against the stat it was read with; `changed`: those that differ, or
   * whose times are at or after `racyFrom`. Undefined when the index was disposed meanwhile.
   */
  private async checkFolders(folders: readonly string[], earlyStats: readonly number[], racyFrom: number): Promise<FolderCheck | undefined> {
    const checkedAt = Date.now();
    const stats: number[] = new Array<number>(folders.length * 3).fill(NaN);
    const changed: string[] = [];
    const breathe = slicer();
    for (let i = 0; i < folders.length && !this.disposed; i++) {
      const stat = this.folderStat(folders[i]);
      if (stat) [stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]] = [stat.mtimeMs, stat.ctimeMs, stat.ino];
      if (!unchanged(stat, earlyStats, i, racyFrom)) changed.push(folders[i]);
      await breathe();
      // As the crawl: a request waiting for the listing does not wait for the output.
      if (!this.listingWanted) await Promise.race([this.outputWritten(), this.wanted]);
      while (this.holds > 0 && !this.listingWanted && !this.disposed) await new Promise<void>((resume) => (this.resumeCrawl = resume));
    }
    return this.disposed ? undefined : { stats, changed, checkedAt };
  }

  /**
   * checkFolders() from the check made after a request waited (by the worker or this thread): the folders read
   * before then are compared with the stats taken again, by the same rule; those it read after need no check (they are as a
   * crawl would have found them). Their stats are from before they were read, so the watchers' check counts times
   * from the start of the early listing (see watchChecked).
   */
  private takeCheck(early: Prelisting, afterRequest: PrelistCheck, folders: readonly string[], earlyStats: readonly number[], places: readonly number[], racyFrom: number): FolderCheck {
    const stats: number[] = [];
    const changed: string[] = [];
    folders.forEach((rel, i) => {
      const at = places[i];
      const read = earlyStats.slice(3 * i, 3 * i + 3);
      if (3 * at < afterRequest.stats.length) {
        const now = afterRequest.stats.slice(3 * at, 3 * at + 3);
        stats.push(...now);
        if (!unchangedAs(now, earlyStats, i, racyFrom)) changed.push(rel);
      } else {
        stats.push(...read);
        if (Number.isNaN(read[0])) changed.push(rel); // could not be read: the index reads it itself
      }
    });
    return { stats, changed, checkedAt: early.started };
  }

  /**
   * Watches each folder of an early listing, then checks it once more against its stat from the first check: a
   * change in between is applied as a watcher's report. Resolves when done.
   */
  private async watchChecked(unwatched: Unwatched): Promise<void> {
    const started = Date.now();
    const racyMs = this.options.racyMs ?? RACY_MS;
    const { folders, stats, checkedAt } = unwatched;
    const breathe = slicer();
    for (let i = 0; i < folders.length && !this.disposed; i++) {
      const rel = folders[i];
      // Read again (and watched) already, or under a folder that was.
      if (this.watchers.has(rel)) continue;
      // A folder that may not be read now is read again: walkFolder decides what that means.
      if (this.watch(rel) === 'denied' || !unchanged(this.folderStat(rel), stats, i, checkedAt - racyMs)) this.dirty.add(rel);
      await breathe();
      // Unless a request waits for the watchers, a large reply being written (and read by the client) goes first.
      if (!this.watchWanted) await Promise.race([this.outputWritten(), this.watchWantedSignal]);
    }
    this.unwatched = undefined;
    if (this.disposed) return;
    this.applyChanges();
    this.options.log?.('info', `index: ${this.watchers.size} folders watched in ${Date.now() - started} ms`);
  }

  /** A listed folder's own stat (not following a link), or undefined when it is no longer a folder. */
  private folderStat(rel: string): fs.Stats | undefined {
    try {
      const stat = fs.lstatSync(this.absolute(rel), { throwIfNoEntry: false });
      return stat?.isDirectory() ? stat : undefined;
    } catch {
      return undefined;
    }
  }

  /** Watches one folder, then reads it (in that order, so nothing changed in between is missed). */
  private walkFolder(rel: string, files: string[], folders: string[]): void {
    const watched = this.watch(rel);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.absolute(rel), { withFileTypes: true });
    } catch {
      return; // gone or unreadable: the crawl skips it too
    }
    // Watching is refused for the reason reading is (no read permission), so this folder turned readable in
    // between: it is read again (and watched) at the next check, which its parent's watcher asks for anyway.
    if (watched === 'denied') this.dirty.add(rel);
    // Only listed folders are read, so a child is hidden exactly when its own name starts with a dot.
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!this.filter.childFolderExcluded(child, e.name)) folders.push(child);
      } else if (e.isFile() && this.filter.childFileIncluded(child, e.name)) files.push(child);
    }
  }

  /**
   * Watches a folder, unless it is watched already. 'denied': it may not be read (chmod 000, another user's private
   * folder), so nothing in it is listed either; its parent's watcher reports when its permissions change (and the
   * workspace folder itself, which has no parent watched, makes the index untrusted instead).
   */
  private watch(rel: string): 'watched' | 'denied' | 'failed' {
    if (this.watchers.has(rel)) return 'watched';
    try {
      const watchFolder = this.options.watchFolder ?? fs.watch;
      const watcher = watchFolder(this.absolute(rel), { persistent: false }, (_event, name) => {
        // No name: something in the folder changed, re-check the whole folder.
        const changed = name ? (rel ? `${rel}/${name}` : String(name)) : rel;
        this.dirty.add(changed);
        this.forgetStat(changed);
        this.countBurst();
        this.scheduleApply();
      });
      watcher.on('error', () => {
        watcher.close();
        if (this.watchers.get(rel) === watcher) this.watchers.delete(rel);
        this.dirty.add(rel);
      });
      this.watchers.set(rel, watcher);
      return 'watched';
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (rel !== '' && (code === 'EACCES' || code === 'EPERM')) return 'denied';
      // A folder that vanished is simply gone; anything else (such as the watch limit) means changes can be missed.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.unreliable ??= `cannot watch ${rel || 'the workspace folder'}: ${(err as Error).message}`;
      return 'failed';
    }
  }

  /** Counts the events of this turn; at the burst limit, the whole workspace is re-listed (the root marked changed). */
  private countBurst(): void {
    if (this.burst++ === 0) setImmediate(() => (this.burst = 0));
    if (this.burst !== (this.options.burstLimit ?? burstLimitOf())) return;
    this.options.log?.('info', `${this.burst} changes reported at once: the operating system may have dropped some, so the whole workspace is listed again`);
    this.dirty.add('');
  }

  /** Applies reported changes soon even when no request asks, so texts stay fresh and listeners hear of new files. */
  private scheduleApply(): void {
    if (this.applyTimer) return;
    this.applyTimer = setTimeout(() => {
      this.applyTimer = undefined;
      // Before the listing is complete, the listing itself is applied first (see fresh()).
      if (!this.files.length && this.version === 0) return;
      // The workspace folder's own watcher reports its move or removal (by its own name).
      this.checkRoot(this.rootStat());
      this.applyChanges();
    }, APPLY_DELAY_MS);
    this.applyTimer.unref();
  }

  /**
   * Compares the workspace folder now (`stat`, following a link as the listing does; undefined when gone) with the
   * one listed. Another folder in its place, or none, is listed again from scratch (as a reported change of the
   * root): the old folder's watchers are closed, the new one is watched, and every text is read again.
   */
  private checkRoot(stat: fs.Stats | undefined): void {
    if (!this.crawled || this.disposed) return;
    const id = rootIdOf(stat);
    if (id === this.rootId) return;
    this.rootId = id;
    this.options.log?.('info', id === undefined ? 'index: the workspace folder is gone' : 'index: the workspace folder was replaced, so it is listed again');
    this.dirty.add('');
  }

  /** The workspace folder's stat (following a link), or undefined when it cannot be read. */
  private rootStat(): fs.Stats | undefined {
    try {
      return fs.statSync(this.options.root, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }

  /** Re-checks every path the watchers reported: a file (re-read), a folder (re-crawled) or a path now gone. */
  private applyChanges(): void {
    if (this.dirty.size === 0 || this.disposed) return;
    const paths = outermost(this.dirty);
    this.dirty.clear();
    const before = this.version;
    /** Files whose text may have changed: the worker drops them and reads them again. */
    const touched: string[] = [];
    /** Inode numbers of reported files with several hard links: what is kept under their other names is stale too. */
    const linked: number[] = [];
    /** Paths that are or were folders: whatever was known of the files under them is forgotten. */
    const replaced: string[] = [];
    /** Names in each parent folder read for this batch (see namedSo). */
    const names = new Map<string, Set<string> | undefined>();
    for (const [rel, covered] of paths) {
      if (covered) {
        // Under another reported path, which is read again whole (or removed whole) below: only what is known of
        // it is forgotten, and a file with other hard links makes those stale too.
        this.forgetStat(rel);
        try {
          const stat = fs.lstatSync(this.absolute(rel), { throwIfNoEntry: false });
          if (stat?.isFile() && stat.nlink > 1) linked.push(stat.ino);
        } catch {
          // unreadable: nothing kept under it is known to be shared
        }
        continue;
      }
      let stat: fs.Stats | undefined;
      try {
        stat = fs.lstatSync(this.absolute(rel));
        if (!this.namedSo(rel, names)) stat = undefined;
      } catch {
        stat = undefined;
      }
      this.forgetStat(rel);
      if (stat?.isFile() && stat.nlink > 1) linked.push(stat.ino);
      // A folder the crawl read has a watcher (until removeUnder below closes it).
      if (stat?.isDirectory() || this.watchers.has(rel)) replaced.push(rel);
      if (stat?.isFile()) {
        this.removeUnder(rel, true);
        if (this.isListed(rel)) {
          this.addFile(rel);
          touched.push(rel);
        } else this.removeFile(rel);
      } else if (stat?.isDirectory()) {
        this.removeFile(rel);
        this.removeUnder(rel, true);
        if (rel === '' || this.folderListed(rel)) {
          const files: string[] = [];
          const queue = [rel];
          while (queue.length) this.walkFolder(queue.pop() as string, files, queue);
          this.addUnder(rel, files);
          for (const f of files) touched.push(f);
        }
      } else {
        // Gone, or now a symbolic link or something else the listing skips.
        this.removeFile(rel);
        this.removeUnder(rel, true);
      }
    }
    this.forgetStatsUnder(replaced);
    this.forgetLinked(linked);
    // While reading waits for the first answers, no text is kept (nothing to drop), and a sync would make the
    // workers report every text read before any was.
    if (!this.readingDeferred && !this.unwatched) this.texts?.sync(this.version !== before ? this.cacheableFiles() : undefined, touched, linked);
    if (this.version !== before) for (const l of this.setListeners) l();
    for (const l of this.appliedListeners) l();
  }

  /**
   * Whether `rel`'s folder holds an entry of exactly that name. On a file system that ignores letter case (macOS,
   * Windows, some Linux mounts) `Note.md` still finds the file after a rename to `note.md`, so a watcher naming both
   * would keep both listed; the folder's own list of names says which one is there now (compared in Unicode's
   * composed form: macOS may report a name decomposed). One read of each folder per batch.
   */
  private namedSo(rel: string, names: Map<string, Set<string> | undefined>): boolean {
    if (rel === '') return true;
    const slash = rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : rel.slice(0, slash);
    if (!names.has(parent)) {
      try {
        names.set(parent, new Set(fs.readdirSync(this.absolute(parent)).map((n) => n.normalize('NFC'))));
      } catch {
        names.set(parent, undefined); // unreadable: the stat alone decides
      }
    }
    const listed = names.get(parent);
    return !listed || listed.has(rel.slice(slash + 1).normalize('NFC'));
  }

  /** Forgets the sizes and times of every file in or under `folders` (one pass over what is known). */
  private forgetStatsUnder(folders: readonly string[]): void {
    if (folders.length === 0 || this.fileStats.size === 0) return;
    if (folders.includes('')) {
      this.fileStats.clear();
      this.statInodes.clear();
      this.statsGeneration++;
      return;
    }
    const under = new Set(folders);
    for (const file of this.fileStats.keys()) {
      for (let i = file.indexOf('/'); i >= 0; i = file.indexOf('/', i + 1)) {
        if (under.has(file.slice(0, i))) {
          this.forgetStat(file);
          break;
        }
      }
    }
  }

  /** Forgets the size and time kept for `rel`, if any. */
  private forgetStat(rel: string): void {
    if (this.fileStats.delete(rel)) {
      this.statInodes.delete(rel);
      this.statsGeneration++;
    }
  }

  /**
   * Forgets the sizes and times kept for the files with these inode numbers: a file reported changed under one
   * name that has other hard links changed under them too, and a size and time kept under one of them (it had a
   * single name when it was read) is stale. One pass over what is kept, only when there is such a file.
   */
  private forgetLinked(inodes: readonly number[]): void {
    if (inodes.length === 0 || this.statInodes.size === 0) return;
    const linked = new Set(inodes);
    for (const [rel, ino] of this.statInodes) if (linked.has(ino)) this.forgetStat(rel);
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
    const at = lowerBound(this.files, file);
    if (this.files[at] === file) return;
    this.files.splice(at, 0, file);
    this.version++;
  }

  /**
   * Adds the files just found under `folder`, which holds none listed (see removeUnder): they sort next to one
   * another, so they go in at one place, at once. One by one, a workspace listed again whole (after a burst of
   * changes the system may have dropped some of) moved the list once per file: 50 000 notes took 140 ms more.
   */
  private addUnder(folder: string, files: string[]): void {
    if (files.length === 0) return;
    files.sort(); // by UTF-16 code units, as the list is sorted
    const at = lowerBound(this.files, folder === '' ? '' : `${folder}/`);
    this.files = this.files.length === 0 ? files : this.files.slice(0, at).concat(files, this.files.slice(at));
    this.version++;
  }

  private removeFile(file: string): void {
    const at = lowerBound(this.files, file);
    if (this.files[at] !== file) return;
    this.files.splice(at, 1);
    this.version++;
  }

  /** Forgets everything under a folder (files and, with `watchers`, the folder's own watchers too). */
  private removeUnder(folder: string, watchers: boolean): void {
    const prefix = folder === '' ? '' : `${folder}/`;
    if (watchers) this.watchers.closeUnder(folder);
    const from = lowerBound(this.files, prefix);
    let to = from;
    while (to < this.files.length && this.files[to].startsWith(prefix)) to++;
    if (to === from) return;
    this.files.splice(from, to - from);
    this.version++;
  }
}

/**
 * The folders' watchers, by workspace-relative path. Closing those of a folder and everything under it finds them
 * by a binary search in their paths, kept sorted from the first such close on, not by testing every watcher: a batch of
 * 3 000 changed notes in a workspace of 2 185 folders spent 120 ms on that.
 */
class FolderWatchers {
  private readonly byPath = new Map<string, fs.FSWatcher>();
  private sorted: string[] | undefined;

  get size(): number {
    return this.byPath.size;
  }

  has(rel: string): boolean {
    return this.byPath.has(rel);
  }

  get(rel: string): fs.FSWatcher | undefined {
    return this.byPath.get(rel);
  }

  set(rel: string, watcher: fs.FSWatcher): void {
    const known = this.byPath.has(rel);
    this.byPath.set(rel, watcher);
    if (!known) this.sorted?.splice(lowerBound(this.sorted, rel), 0, rel);
  }

  delete(rel: string): void {
    if (this.byPath.delete(rel)) this.sorted?.splice(lowerBound(this.sorted, rel), 1);
  }

  /** Closes and forgets the watchers of `folder` and of every folder under it ('' : all of them). */
  closeUnder(folder: string): void {
    if (this.byPath.size === 0) return;
    const own = this.byPath.get(folder);
    if (own) {
      own.close();
      this.delete(folder);
    }
    const prefix = folder === '' ? '' : `${folder}/`;
    const sorted = (this.sorted ??= [...this.byPath.keys()].sort());
    // Paths that start with the prefix sort next to one another, from the first one at or after it.
    const from = lowerBound(sorted, prefix);
    let to = from;
    while (to < sorted.length && sorted[to].startsWith(prefix)) to++;
    if (to === from) return;
    for (let i = from; i < to; i++) {
      this.byPath.get(sorted[i])?.close();
      this.byPath.delete(sorted[i]);
    }
    sorted.splice(from, to - from);
  }
}

/**
 * True when a folder's stat now is the one noted for it (folder `i` of `noted`: times and inode in threes) and
 * those times are older than `racyFrom`: a change after they were noted would have changed them. Adding or removing
 * an entry sets both times on POSIX systems, so either one alone would do there; both are compared for file
 * systems that keep only one of them up to date.
 */
function unchanged(stat: fs.Stats | undefined, noted: readonly number[], i: number, racyFrom: number): boolean {
  return stat !== undefined && unchangedAs([stat.mtimeMs, stat.ctimeMs, stat.ino], noted, i, racyFrom);
}

/** unchanged() for a stat given as its modification time, change time and inode (NaN: none). */
function unchangedAs(now: readonly number[], noted: readonly number[], i: number, racyFrom: number): boolean {
  const [mtime, ctime, ino] = noted.slice(3 * i, 3 * i + 3);
  return now[0] === mtime && now[1] === ctime && now[2] === ino && Math.max(mtime, ctime) < racyFrom;
}

/** What tells one workspace folder from another put in its place: device and inode; undefined when none is there. */
/**
 * A folder's identity: device, inode and birth time. ext4 gives a folder made right after one was removed the inode
 * number just freed (`rm -rf notes; mkdir notes`), so the birth time tells the two apart where the file system keeps
 * one (0 where it does not). The folder is not held open for this: that would keep its drive from being unmounted.
 */
function rootIdOf(stat: fs.Stats | undefined): string | undefined {
  return stat?.isDirectory() ? `${stat.dev}:${stat.ino}:${stat.birthtimeMs}` : undefined;
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

/**
 * The reported paths, each with whether it lies under another reported path. Such a path needs no walk of its own:
 * the path above it is read again whole (a folder), or everything under it is removed (a file now, or gone). Walking
 * each one as well would read a tree of nested folders that all changed (a fresh clone, or every folder of an early
 * listing too recent to trust) once per folder above each folder: for 1 000 nested folders, half a million reads.
 * Sorted depth first (a path's descendants right after it), so that one pass finds them.
 */
function outermost(reported: Iterable<string>): Array<[string, boolean]> {
  const keyed = [...reported].map((rel) => [rel.replaceAll('/', '\0'), rel] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let outer: string | undefined;
  return keyed.map(([key, rel]) => {
    const covered = outer !== undefined && (outer === '' || key.startsWith(`${outer}\0`));
    if (!covered) outer = key;
    return [rel, covered];
  });
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
