// Note texts are read, kept and searched in a worker thread: the protocol's thread never waits on file reads or
// matching, the reads use the machine's second core, and a runaway regular expression can be stopped.
import type fsModule from 'node:fs';
import type pathModule from 'node:path';
import type threadsModule from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';
import { NotesError } from '../errors';
import { matchEncoder, matchesThrough, mergeMatches, postedMatches, type EncodedMatches } from './encoded-matches';
import { globMatcher, type CompiledGlob } from './listing';
import { matchLines, type LineMatch } from './match';
import { recheck, type PrelistHead, type Prelisting } from './prelist';
import { bootWorker, prestartedWorkerWaiting, runProgram, shardCount, shareOf, takePrestartedWorker, workerLimits, type PrelistBytesMessage, type PrelistCheckMessage, type PrelistHeadMessage, type PrelistingMessage } from './worker-boot';

export interface TextWorkerOptions {
  /** Worker threads sharing the files; default: one per core but the protocol thread's, at least 1, at most 4 (shardCount). */
  shards?: number;
  /** Real path of the workspace root; files are workspace-relative POSIX paths. */
  root: string;
  /** Larger files are neither kept nor searched. */
  maxFileSize: number;
  /** At most this many texts are kept (performance.cacheSize); 0 keeps none (every search reads the disk). */
  maxFiles: number;
  /** At most this many bytes of text are kept, counted as the memory the strings take. */
  maxBytes: number;
  log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

export interface CompiledQuery {
  source: string;
  flags: string;
  wholeText: boolean;
  /**
   * Texts one of which every matching line holds (see requiredTexts), compared case-insensitively when the flags
   * hold `i`. Case-sensitively, they also hold byte for byte in UTF-8: files read for this search alone whose bytes
   * hold none of them are not decoded, and only the lines holding one are matched.
   */
  required?: string[];
  /**
   * The search stops once the matches found hold more than this many characters (paths, lines and matched
   * texts), after the file that takes it over (see SearchQuery.maxChars). The reply says so (`cut`) when files
   * were left unsearched.
   */
  maxChars?: number;
}

export interface WorkerSearch {
  /** The matching lines as the answer's bytes (see encoded-matches.ts); their files index into the searched list. */
  matches: EncodedMatches;
  /** Files whose text was searched (readable and not over maxFileSize). */
  searched: number;
  /**
   * True when the search stopped at the query's maxChars with files left (more matches may exist): its matches
   * are those of the searched list up to and including the file of the last one.
   */
  cut?: boolean;
}

/** Which files a walk of the workspace searches: the listing's rules and the searchable file types. */
export interface WalkRules {
  /** files.excludePatterns and search.excludePatterns together. */
  exclude: CompiledGlob[];
  showHiddenFiles: boolean;
  /** Lower-case extensions, with their dot, of the files searched. */
  extensions: string[];
}

export interface WalkSearch extends WorkerSearch {
  /** The files searched, sorted (for a walk, those it found): `matches` index into it. */
  files: readonly string[];
}

export interface CacheStats {
  cachedFiles: number;
  cachedBytes: number;
}

/** Unexpected worker failures after which a shard stops keeping texts. */
const MAX_CRASHES = 3;
/** How long a cancelled search's worker has to answer before it is stopped (it looks at the flag between lines). */
const CANCEL_GRACE_MS = 250;

type ToWorker =
  | { type: 'sync'; generation: number; files?: string[]; touched: string[]; linked?: number[] }
  | { type: 'search'; id: number; listId: number; list?: readonly string[]; query: CompiledQuery; limit: number; shared: SharedArrayBuffer }
  | { type: 'walk'; id: number; rules: WalkRules; query?: CompiledQuery; limit: number; shared: SharedArrayBuffer }
  | { type: 'lines'; id: number; output: Uint8Array; rules: WalkRules; query: CompiledQuery; limit: number; shared: SharedArrayBuffer }
  | { type: 'recheck'; id: number; head: PrelistHead };

type FromWorker =
  | { type: 'cached'; generation: number; cachedFiles: number; cachedBytes: number; full: boolean }
  | { type: 'found'; id: number; matches: EncodedMatches; searched: number; cancelled: boolean; missingList?: boolean; cut?: boolean }
  | { type: 'walked'; id: number; files: string[] }
  | { type: 'rechecked'; id: number; stats: number[] }
  | PrelistingMessage
  | PrelistCheckMessage
  | PrelistHeadMessage
  | PrelistBytesMessage;

/**
 * The worker's whole program. Self-contained: its source text is what the worker runs, with `match` (matchLines),
 * `globs` (globMatcher), the modules and its settings passed in, so it must not refer to anything outside itself.
 *
 * It keeps the texts of the files the last `sync` named (in that order, while the budget lasts), reading them in
 * slices so that a search is served between two slices. A search takes each text from memory or, when it is not
 * kept, from the disk; it reports which file it is on through shared memory (slot 0: index, slot 1: files done,
 * slot 3: set once it searches, so that listing is not timed as the expression) and stops when slot 2 is set
 * (cancelled). A walk lists the workspace itself (nothing waits for the index's listing), sends the list, then
 * searches it in the same way when it has a query.
 */
function textWorkerMain(
  match: typeof matchLines,
  encoder: typeof matchEncoder,
  post: typeof postedMatches,
  globs: typeof globMatcher,
  check: typeof recheck,
  fs: typeof fsModule,
  path: typeof pathModule,
  threads: typeof threadsModule,
  setup: WorkerSetup,
): void {
  const port = threads.parentPort as threadsModule.MessagePort;
  const texts = new Map<string, string>();
  /** What each kept text counts against the budget. */
  const costs = new Map<string, number>();
  /** The inode number of each kept text's file (see `linked` in handle()). */
  const inodes = new Map<string, number>();
  let bytes = 0;
  let kept = new Set<string>();
  let order: string[] = [];
  let cursor = 0;
  let generation = 0;
  let scheduled = false;
  let full = false;
  let list: { id: number; files: readonly string[] } = { id: -1, files: [] };
  // Most notes fit this buffer: one read, no fstat, no allocation per file.
  const buffer = Buffer.allocUnsafe(256 * 1024);
  // readNoWaitFlags (src/core/read-flags.ts), spelled here: this program runs in the worker and imports nothing.
  const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

  const absolute = path.sep === '/' ? (rel: string) => `${setup.root}/${rel}` : (rel: string) => path.join(setup.root, ...rel.split('/'));

  /**
   * The whole text, the bytes it was decoded from, whether the file has other hard links and its inode number (both
   * always known for files over the buffer, and with `toKeep`; else false and -1); undefined when over
   * maxFileSize, gone or unreadable. With `needles`, a file whose bytes contain none of them is not decoded: its
   * text is '' (it cannot match).
   */
  function read(rel: string, needles?: Buffer[], toKeep = false): [string, number, boolean, number] | undefined {
    let fd: number | undefined;
    try {
      // Without waiting: a note replaced by a named pipe since it was listed would block this thread for good (a
      // pipe reads as empty then, or not at all); for a regular file the flag changes nothing.
      fd = fs.openSync(absolute(rel), READ_FLAGS);
      let buf = buffer;
      let filled = fs.readSync(fd, buf, 0, buf.length, 0);
      let linked = false;
      let ino = -1;
      if (filled === buf.length) {
        const stat = fs.fstatSync(fd);
        const size = stat.size;
        linked = stat.nlink > 1;
        ino = stat.ino;
        if (size > setup.maxFileSize) return undefined;
        buf = Buffer.allocUnsafe(size);
        filled = 0;
        while (filled < size) {
          const n = fs.readSync(fd, buf, filled, size - filled, filled);
          if (n === 0) break;
          filled += n;
        }
      } else if (toKeep) {
        const stat = fs.fstatSync(fd);
        linked = stat.nlink > 1;
        ino = stat.ino;
      }
      if (filled > setup.maxFileSize) return undefined;
      if (needles) {
        const bytes = buf.subarray(0, filled);
        if (!needles.some((needle) => bytes.indexOf(needle) >= 0)) return ['', filled, linked, ino];
      }
      // A UTF-8 byte order mark is not text of the first line (`^` matches after it, as in ripgrep and VS Code).
      const bom = filled >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      return [lineEnds(buf.toString('utf8', bom, filled)), filled - bom, linked, ino];
    } catch {
      return undefined; // gone or unreadable: skipped, as by the disk scan
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /**
   * The text with a carriage return that no line feed follows (a classic Mac line end, or one among others) turned
   * into a line feed: it ends a line, as in VS Code and in the note tools' markdown parser. Same length.
   */
  function lineEnds(text: string): string {
    // Most files have none; CRLF files have a carriage return on every line, so look for a lone one before rewriting.
    for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 2)) {
      if (text.charCodeAt(i + 1) !== 10) return text.replace(/\r(?!\n)/g, '\n');
    }
    return text;
  }

  /** Memory a string takes: pure ASCII (as many characters as bytes) one byte a character, anything else two. */
  const costOf = (text: string, byteCount: number) => (byteCount === text.length ? text.length : text.length * 2);

  function drop(rel: string): void {
    const old = texts.get(rel);
    if (old === undefined) return;
    texts.delete(rel);
    bytes -= costs.get(rel) ?? 0;
    costs.delete(rel);
    inodes.delete(rel);
    full = false;
  }

  /**
   * The text from memory, or read (and kept, when it is one of the kept files and fits the budget). `needles`: the
   * caller only needs texts that contain one of these byte strings; a file read for this search alone that holds
   * none comes back as '' without being decoded.
   */
  function textOf(rel: string, needles?: Buffer[]): string | undefined {
    const cached = texts.get(rel);
    if (cached !== undefined) return cached;
    const keep = !full && kept.has(rel);
    const got = read(rel, keep ? undefined : needles, keep);
    if (!got) return undefined;
    const [text, byteCount, linked, ino] = got;
    // A change made through another name of the file is reported for that name only: such texts are read each time.
    if (keep && !linked) {
      const cost = costOf(text, byteCount);
      if (texts.size < setup.maxFiles && bytes + cost <= setup.maxBytes) {
        texts.set(rel, text);
        costs.set(rel, cost);
        inodes.set(rel, ino);
        bytes += cost;
      } else if (texts.size >= setup.maxFiles || bytes + 64 * 1024 > setup.maxBytes) full = true;
    }
    return text;
  }

  /** Reads the next texts to keep for about 10 ms, then lets messages (searches) in. */
  function work(): void {
    scheduled = false;
    const sliceEnd = Date.now() + 10;
    while (cursor < order.length && !full) {
      // A search (or sync) waiting is taken at once: between two slices the port delivered messages only after
      // several slices had run.
      const waiting = threads.receiveMessageOnPort(port);
      if (waiting) handle(waiting.message as ToWorker);
      if (cursor >= order.length || full) break;
      const rel = order[cursor++];
      if (!texts.has(rel)) textOf(rel);
      if (Date.now() >= sliceEnd) return schedule();
    }
    const done: FromWorker = { type: 'cached', generation, cachedFiles: texts.size, cachedBytes: bytes, full };
    port.postMessage(done);
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(work);
  }

  function search(job: Extract<ToWorker, { type: 'search' }>): void {
    if (job.list) list = { id: job.listId, files: job.list };
    if (list.id !== job.listId) {
      const refused: FromWorker = { type: 'found', id: job.id, matches: post(encoder([]).done()).posted, searched: 0, cancelled: false, missingList: true };
      return port.postMessage(refused);
    }
    searchFiles(job, list.files);
  }

  /**
   * The files a search would find in the workspace, sorted as listings sort (UTF-16 code units): the listing's
   * rules (hidden names, exclude globs, pruned folders, no symbolic links) and the searchable file types. Each
   * folder read counts as progress for the watchdog; a cancelled walk stops early (returns undefined).
   */
  function walk(rules: WalkRules, progress: Int32Array): string[] | undefined {
    const excluded = globs(rules.exclude);
    const files: string[] = [];
    const folders = [''];
    while (folders.length) {
      if (Atomics.load(progress, 2) !== 0) return undefined;
      Atomics.add(progress, 1, 1);
      const rel = folders.pop() as string;
      let entries: fsModule.Dirent[];
      try {
        entries = fs.readdirSync(absolute(rel), { withFileTypes: true });
      } catch {
        continue; // gone or unreadable: the listing skips it too
      }
      for (const e of entries) {
        if (!rules.showHiddenFiles && e.name.startsWith('.')) continue;
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!excluded(child) && !excluded(`${child}/`)) folders.push(child);
        } else if (e.isFile() && !excluded(child)) {
          const ext = path.extname(e.name).toLowerCase();
          if (ext !== '' && rules.extensions.includes(ext)) files.push(child);
        }
      }
    }
    return files.sort();
  }

  function walkAndSearch(job: Extract<ToWorker, { type: 'walk' }>): void {
    const progress = new Int32Array(job.shared);
    const files = walk(job.rules, progress);
    if (!files) {
      const stopped: FromWorker = { type: 'found', id: job.id, matches: post(encoder([]).done()).posted, searched: 0, cancelled: true };
      return port.postMessage(stopped);
    }
    const walked: FromWorker = { type: 'walked', id: job.id, files };
    port.postMessage(walked);
    if (job.query) return searchFiles({ ...job, query: job.query }, files);
    const listed: FromWorker = { type: 'found', id: job.id, matches: post(encoder([]).done()).posted, searched: 0, cancelled: false };
    port.postMessage(listed);
  }

  function searchFiles(job: { id: number; query: CompiledQuery; limit: number; shared: SharedArrayBuffer }, files: readonly string[]): void {
    const { required, flags } = job.query;
    // Case-sensitive texts are in the bytes of every file that can match, too.
    const needles = required && !flags.includes('i') ? required.map((text) => Buffer.from(text, 'utf8')) : undefined;
    matchFiles(job, files, (i) => textOf(files[i], needles));
  }

  /**
   * Matches `files` in order, the text of each given by `textAt` (undefined: not searched), for at most job.limit
   * lines, stopping early at the query's maxChars or when cancelled, and posts the answer. `renumber` turns the
   * line numbers of a text into those of its file; `sizeHint`: about how many bytes the answer takes, when known
   * (see matchEncoder).
   */
  function matchFiles(
    job: { id: number; query: CompiledQuery; limit: number; shared: SharedArrayBuffer },
    files: readonly string[],
    textAt: (i: number) => string | undefined,
    renumber?: (lines: LineMatch[]) => void,
    sizeHint = 0,
  ): void {
    const progress = new Int32Array(job.shared);
    Atomics.store(progress, 3, 1);
    const { source, flags, wholeText, required, maxChars } = job.query;
    // Each file's results are encoded once it is searched (see matchEncoder).
    const encoded = encoder(files, sizeHint);
    let left = job.limit;
    let searched = 0;
    let cancelled = false;
    let chars = 0;
    let cut = false;
    for (let i = 0; i < files.length && left > 0 && !cut; i++) {
      if (Atomics.load(progress, 2) !== 0) {
        cancelled = true;
        break;
      }
      Atomics.store(progress, 0, i);
      const text = textAt(i);
      // A read from disk is not the expression's time: the watchdog restarts its clock here.
      Atomics.add(progress, 1, 1);
      if (text !== undefined) {
        searched++;
        const lines = match(text, source, flags, left, wholeText, required);
        renumber?.(lines);
        if (lines.length) {
          encoded.add(i, lines);
          left -= lines.length;
          if (maxChars !== undefined) {
            for (const [, content, matched] of lines) chars += files[i].length + content.length + matched.length;
            cut = chars > maxChars && i < files.length - 1;
          }
        }
      }
      Atomics.add(progress, 1, 1);
    }
    // The answer's bytes are made here, on this thread, and moved (not copied) to the protocol thread.
    const { posted, move } = post(cancelled ? encoder([]).done() : encoded.done());
    const reply: FromWorker = { type: 'found', id: job.id, matches: posted, searched, cancelled, cut };
    port.postMessage(reply, move);
  }

  /**
   * True for a workspace-relative path that walk(rules) lists: its type searched, its name not hidden, and neither
   * it nor any folder above it excluded. Each folder is judged once (most paths share theirs).
   */
  function listedBy(rules: WalkRules): (rel: string) => boolean {
    const excluded = globs(rules.exclude);
    const folders = new Map<string, boolean>();
    const folderListed = (folder: string): boolean => {
      let listed = folders.get(folder);
      if (listed === undefined) {
        const slash = folder.lastIndexOf('/');
        listed =
          (slash < 0 || folderListed(folder.slice(0, slash))) &&
          (rules.showHiddenFiles || folder[slash + 1] !== '.') &&
          !excluded(folder) &&
          !excluded(`${folder}/`);
        folders.set(folder, listed);
      }
      return listed;
    };
    return (rel) => {
      const slash = rel.lastIndexOf('/');
      const name = rel.slice(slash + 1);
      const ext = path.extname(name).toLowerCase();
      if (ext === '' || !rules.extensions.includes(ext) || (!rules.showHiddenFiles && name.startsWith('.')) || excluded(rel)) return false;
      return slash < 0 || folderListed(rel.slice(0, slash));
    };
  }

  /**
   * Searches the lines ripgrep printed (`path NUL number : line`, each file's lines together): the files by `rules`,
   * sorted, each file's printed lines matched as the lines of a file read whole are. (ripgrep left out the files
   * over maxFileSize, as a read does.)
   */
  function linesSearch(job: Extract<ToWorker, { type: 'lines' }>): void {
    const out = Buffer.from(job.output.buffer, job.output.byteOffset, job.output.byteLength);
    /** For each file: line number, start and end of each printed line, in threes. */
    const printed = new Map<string, number[]>();
    let current: number[] = [];
    let pathStart = 0;
    let pathEnd = -1;
    for (let pos = 0; pos < out.length; ) {
      const nul = out.indexOf(0, pos);
      if (nul < 0) break;
      let colon = nul + 1;
      let lineNo = 0;
      for (let c = out[colon]; c >= 48 && c <= 57; c = out[++colon]) lineNo = lineNo * 10 + (c - 48);
      let end = out.indexOf(10, colon + 1);
      if (end < 0) end = out.length;
      if (nul - pos !== pathEnd - pathStart || out.compare(out, pathStart, pathEnd, pos, nul) !== 0) {
        const printedPath = out.toString('utf8', pos, nul);
        const posix = path.sep === '/' ? printedPath : printedPath.split(path.sep).join('/');
        const rel = posix.startsWith('./') ? posix.slice(2) : posix;
        // A name that is not UTF-8 (possible on Linux) reads with U+FFFD, a name no file has: the listing and a
        // read of the disk cannot open it and skip it, and so does this (two such names would also merge here).
        if (printedPath.includes('\uFFFD') && Buffer.byteLength(printedPath) !== nul - pos) current = [];
        else {
          current = printed.get(rel) ?? [];
          printed.set(rel, current);
        }
        pathStart = pos;
        pathEnd = nul;
      }
      // The first line starts after a byte order mark, as in a file read whole.
      const bom = lineNo === 1 && out[colon + 1] === 0xef && out[colon + 2] === 0xbb && out[colon + 3] === 0xbf ? 3 : 0;
      current.push(lineNo, colon + 1 + bom, end);
      pos = end + 1;
    }
    const files = [...printed.keys()].filter(listedBy(job.rules)).sort();
    const walked: FromWorker = { type: 'walked', id: job.id, files };
    port.postMessage(walked);
    /** The file's line number of each line of the joined text. */
    let numbers: number[] = [];
    // Most workspaces have no carriage return at all: then no printed line is looked through for one.
    const anyReturn = out.indexOf(13) >= 0;
    matchFiles(
      job,
      files,
      (i) => {
        // The file's printed lines, one after another, decoded at once as the text they are lines of.
        const spans = printed.get(files[i]) as number[];
        let size = spans.length / 3 - 1;
        for (let k = 0; k < spans.length; k += 3) size += spans[k + 2] - spans[k + 1];
        const joined = size <= buffer.length ? buffer : Buffer.allocUnsafe(size);
        let at = 0;
        // ripgrep numbers lines by line feeds alone. A carriage return no line feed follows ends a line too (see
        // lineEnds), and ripgrep printed every line holding one (see ripgrepArgs): the ones before a printed line
        // in its file are those of the printed lines before it.
        numbers = [];
        let shift = 0;
        for (let k = 0; k < spans.length; k += 3) {
          if (k > 0) joined[at++] = 10;
          numbers.push(spans[k] + shift);
          if (anyReturn) {
            // (Not the line's last byte: a carriage return there belongs to its CRLF line end.)
            for (let c = out.indexOf(13, spans[k + 1]); c >= 0 && c < spans[k + 2] - 1; c = out.indexOf(13, c + 1)) numbers.push(spans[k] + ++shift);
          }
          at += out.copy(joined, at, spans[k + 1], spans[k + 2]);
        }
        return lineEnds(joined.toString('utf8', 0, at));
      },
      (lines) => {
        for (const line of lines) line[0] = numbers[line[0] - 1];
      },
      // The answer holds most of the printed lines and their matches, about one and a half times their bytes;
      // twice leaves room (pages never written cost nothing).
      2 * out.length,
    );
  }

  function handle(message: ToWorker): void {
    if (message.type === 'recheck') {
      const rechecked: FromWorker = { type: 'rechecked', id: message.id, stats: check(fs, message.head).stats };
      return port.postMessage(rechecked);
    }
    if (message.type === 'search') return search(message);
    if (message.type === 'walk') return walkAndSearch(message);
    if (message.type === 'lines') return linesSearch(message);
    generation = message.generation;
    if (message.files) {
      order = message.files;
      kept = new Set(order);
      for (const rel of [...texts.keys()]) if (!kept.has(rel)) drop(rel);
    }
    for (const rel of message.touched) drop(rel);
    if (message.linked) {
      // Files reported changed that have other hard links: a text kept under another name of the same file (it had
      // one name when it was read) is stale too. Read again, it is not kept while the file has several names. The
      // inode number alone is compared: a file of another device that shares it is merely read again.
      const linked = new Set(message.linked);
      for (const [rel, ino] of inodes) if (linked.has(ino)) drop(rel);
    }
    cursor = 0;
    full = false;
    schedule();
  }

  port.on('message', handle);
}

/** The settings a worker's program is given. */
type WorkerSetup = Pick<TextWorkerOptions, 'root' | 'maxFileSize' | 'maxFiles' | 'maxBytes'>;

let programSource: string | undefined;
/** What the worker runs (with `require` and `setup` in scope; see runProgram). Built on first use. */
function workerSource(): string {
  // Some TypeScript runners wrap inner functions in __name(...) to keep their names.
  programSource ??= `const __name = (fn) => fn;
(${textWorkerMain.toString()})((${matchLines.toString()}), (${matchEncoder.toString()}), (${postedMatches.toString()}), (${globMatcher.toString()}), (${recheck.toString()}), require('node:fs'), require('node:path'), require('node:worker_threads'), setup);`;
  return programSource;
}

interface PendingSearch {
  resolve: (value: WalkSearch) => void;
  reject: (err: Error) => void;
  /** The searched files: given, or sent by a walk before it searches them. */
  files?: readonly string[];
}

/**
 * What a shard searches: a given list of files, the files its walk of the workspace finds, or the lines ripgrep
 * printed (see ripgrep.ts).
 */
type SearchTarget = { files: readonly string[]; query: CompiledQuery } | { rules: WalkRules; query?: CompiledQuery } | { lines: Uint8Array; rules: WalkRules; query: CompiledQuery };

/**
 * The main thread's side of one worker. `sync` names the files whose texts to keep; `search` runs one search at a
 * time (each with its own watchdog). A worker that dies (stopped by the watchdog, out of memory) is replaced on
 * the spot and given the same files again.
 */
class TextShard {
  private worker: Worker | undefined;
  private generation = 0;
  private lastFiles: string[] | undefined;
  /** The searched list the worker holds (sent again only when it changes). */
  private sentList: readonly string[] | undefined;
  private listId = 0;
  private nextId = 1;
  private readonly pending = new Map<number, PendingSearch>();
  private queue: Promise<unknown> = Promise.resolve();
  private stats: CacheStats = { cachedFiles: 0, cachedBytes: 0 };
  private readonly cachedWaiters: Array<{ generation: number; resolve: (stats: CacheStats) => void }> = [];
  /** The last sync the worker has read every text of. */
  private cachedGeneration = -1;
  /** Set when the worker stopped keeping texts at the budget (performance.cacheSize or the byte budget). */
  private budgetFull = false;
  private crashes = 0;
  /** False once the worker failed MAX_CRASHES times: it then keeps no texts. */
  private keepTexts = true;
  private closed = false;
  /** The early listing of the loader's worker, when this shard took that worker (taken once). */
  private prelisting: Promise<Prelisting | undefined> | undefined;
  /** Tells that worker a request waits for its listing (see prestartTextWorker). */
  private requestPrelisting: (() => void) | undefined;
  /** Sets that worker's listing aside or takes it up again (see prestartTextWorker); kept while it lists. */
  private holdListing: ((on: boolean) => void) | undefined;
  /** Checks of folders asked of the worker (see recheck), by id. */
  private readonly rechecks = new Map<number, (stats: number[] | undefined) => void>();

  constructor(private readonly options: TextWorkerOptions) {}

  /**
   * The early listing of the worker the loader started (see prelist.ts), when this shard took that worker;
   * undefined otherwise (no worker is booted just to ask), or once taken.
   */
  prelisted(requested?: Promise<void>): Promise<Prelisting | undefined> {
    // Only the loader's worker lists early.
    if (this.closed || (!this.worker && !prestartedWorkerWaiting())) return Promise.resolve(undefined);
    this.live();
    const prelisting = this.prelisting ?? Promise.resolve(undefined);
    const request = this.requestPrelisting;
    if (request) void requested?.then(request);
    this.prelisting = undefined;
    this.requestPrelisting = undefined;
    return prelisting;
  }

  /**
   * While `on`, the loader's worker sets its early listing aside (see worker-boot.ts's PRELUDE), if it is still
   * listing: a search then has the cores, and this worker takes the search's work at once.
   */
  holdPrelisting(on: boolean): void {
    this.holdListing?.(on);
  }

  /**
   * The worker's check of folders an early listing read (see prelist.ts's recheck): their stats now, in order.
   * Undefined when the worker stops first, or when there is none (none is started for this).
   */
  recheck(head: PrelistHead): Promise<number[] | undefined> {
    if (this.closed || !this.worker) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.rechecks.set(id, resolve);
      this.updateRef();
      this.post({ type: 'recheck', id, head });
    });
  }

  /**
   * The kept files are now `files` (when given); the texts of `touched` changed on disk, and so did those of the
   * files with these inode numbers (`linked`: files with several hard links reported changed under some name).
   */
  sync(files: string[] | undefined, touched: readonly string[], linked: readonly number[] = []): void {
    if (!this.keepTexts) return; // nothing kept, so nothing can be stale
    if (files) this.lastFiles = files;
    if ((!files && touched.length === 0 && linked.length === 0) || this.closed) return;
    // A worker started now is given lastFiles, and holds no text that could be stale.
    if (!this.worker) this.live();
    else this.post({ type: 'sync', generation: ++this.generation, files, touched: [...touched], ...(linked.length ? { linked: [...linked] } : {}) });
  }

  start(): void {
    if (!this.closed) this.live();
  }

  /** Resolves once the worker has read every text it is to keep, as of the last sync. */
  cached(): Promise<CacheStats> {
    if (this.closed || !this.keepTexts || this.cachedGeneration === this.generation) return Promise.resolve(this.stats);
    return new Promise((resolve) => {
      this.cachedWaiters.push({ generation: this.generation, resolve });
      this.updateRef();
    });
  }

  cacheStats(): CacheStats {
    return this.stats;
  }

  /**
   * True when the worker holds the text of every file it was given, as of the last sync: it has read them all and
   * the budget did not run out (files over maxFileSize, with other hard links, or unreadable do not count). Never
   * when it keeps none.
   */
  allKept(): boolean {
    return this.keepTexts && !this.closed && this.worker !== undefined && this.cachedGeneration === this.generation && !this.budgetFull;
  }

  /**
   * Searches `files` in order for at most `limit` matching lines. With `budgetMs`, a file that takes longer than
   * that stops the search with an error (user regular expressions); `signal` cancels it.
   */
  search(files: readonly string[], query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WorkerSearch> {
    return this.enqueue({ files, query }, limit, budgetMs, signal);
  }

  /** Lists the workspace in the worker by `rules`, then searches those files (see search()) when given a query. */
  walkSearch(rules: WalkRules, query: CompiledQuery | undefined, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    return this.enqueue({ rules, query }, limit, budgetMs, signal);
  }

  /** Searches the lines ripgrep printed (see TextWorker.linesSearch); the buffer is moved to the worker. */
  linesSearch(lines: Uint8Array, rules: WalkRules, query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    return this.enqueue({ lines, rules, query }, limit, budgetMs, signal);
  }

  close(): void {
    this.closed = true;
    this.stop(new NotesError('INTERNAL', 'The search was stopped: the workspace index was closed.'));
    for (const w of this.cachedWaiters.splice(0)) w.resolve(this.stats);
  }

  private enqueue(target: SearchTarget, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    const job = this.queue.then(() => this.searchNow(target, limit, budgetMs, signal));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private searchNow(target: SearchTarget, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    if (this.closed) return Promise.reject(new NotesError('INTERNAL', 'The search was stopped: the workspace index was closed.'));
    if (signal?.aborted) return Promise.reject(cancelled());
    const shared = new SharedArrayBuffer(16);
    const progress = new Int32Array(shared);
    const id = this.nextId++;
    // Started first: a new worker holds no list, whatever the last one held.
    let worker: Worker;
    try {
      worker = this.live();
    } catch (err) {
      return Promise.reject(new NotesError('INTERNAL', `The search could not start a worker thread: ${(err as Error).message}`));
    }
    const files = 'files' in target ? target.files : undefined;
    const sendList = files !== undefined && this.sentList !== files;
    if (files && sendList) {
      this.sentList = files;
      this.listId++;
    }
    return new Promise<WalkSearch>((resolve, reject) => {
      let watchdog: NodeJS.Timeout | undefined;
      let abandon: NodeJS.Timeout | undefined;
      const onAbort = () => {
        Atomics.store(progress, 2, 1);
        // The worker sees the flag between lines. A line the expression backtracks on holds it, and every search
        // queued after this one, until the budget stops it (for good without one): a worker that has not answered
        // shortly after is stopped, its texts read again as after a budget's stop.
        abandon = setTimeout(() => {
          if (this.pending.get(id) === entry) this.stop(cancelled());
        }, CANCEL_GRACE_MS);
      };
      const finish = () => {
        clearInterval(watchdog);
        clearTimeout(abandon);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.updateRef();
      };
      const entry: PendingSearch = {
        files,
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (err) => {
          finish();
          reject(err);
        },
      };
      this.pending.set(id, entry);
      signal?.addEventListener('abort', onAbort);
      if (budgetMs !== undefined) {
        let seen = -1;
        let since = Date.now();
        watchdog = setInterval(
          () => {
            const done = Atomics.load(progress, 1);
            // A walk's listing (slot 3 not yet set) is not the expression's time.
            if (done !== seen || Atomics.load(progress, 3) === 0) {
              seen = done;
              since = Date.now();
            } else if (Date.now() - since > budgetMs) {
              const file = entry.files?.[Atomics.load(progress, 0)];
              this.stop(
                new NotesError(
                  'INVALID_ARGUMENT',
                  `The regular expression ran for more than ${budgetMs} ms ${file === undefined ? 'on a file' : `on "${file}"`} and was stopped; it probably backtracks catastrophically (for example nested quantifiers like (a+)+). Simplify it.`,
                ),
              );
            }
          },
          Math.max(10, Math.floor(budgetMs / 5)),
        );
      }
      this.updateRef();
      try {
        if ('lines' in target) {
          const message: ToWorker = { type: 'lines', id, output: target.lines, rules: target.rules, query: target.query, limit, shared };
          worker.postMessage(message, [target.lines.buffer as ArrayBuffer]);
        } else {
          const message: ToWorker =
            'rules' in target
              ? { type: 'walk', id, rules: target.rules, query: target.query, limit, shared }
              : { type: 'search', id, listId: this.listId, list: sendList ? target.files : undefined, query: target.query, limit, shared };
          worker.postMessage(message);
        }
      } catch (err) {
        this.pending.get(id)?.reject(new NotesError('INTERNAL', `The search could not reach its worker thread: ${(err as Error).message}`));
      }
    });
  }

  /**
   * The worker keeps the process alive only while something waits on it (a search, or cached()): an idle index
   * must not hold a server whose client has gone.
   */
  private updateRef(): void {
    if (this.pending.size > 0 || this.cachedWaiters.length > 0 || this.rechecks.size > 0) this.worker?.ref();
    else this.worker?.unref();
  }

  private post(message: ToWorker): void {
    if (this.closed) return;
    this.live().postMessage(message);
  }

  private live(): Worker {
    if (this.worker) return this.worker;
    const o = this.options;
    const limits = workerLimits(o.maxBytes, o.maxFileSize);
    // The loader's worker when it booted with these limits (the first shard's, under the default settings).
    const prestarted = takePrestartedWorker(limits);
    const worker = prestarted?.worker ?? bootWorker(limits);
    this.prelisting = prestarted?.prelisting;
    this.requestPrelisting = prestarted?.request;
    this.holdListing = prestarted?.hold;
    void prestarted?.prelisting.finally(() => {
      // Listed (or stopped): nothing is left to hold.
      if (this.holdListing === prestarted.hold) this.holdListing = undefined;
    });
    // A stopped worker's last messages are ignored: its replacement answers from now on.
    worker.on('message', (message: FromWorker) => this.worker === worker && this.onMessage(message));
    worker.on('error', (err) => {
      if (this.worker !== worker) return;
      o.log?.('error', `the text worker failed: ${err.message}`);
      this.crashed();
      this.stop(new NotesError('INTERNAL', `The search failed: ${err.message}`));
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      o.log?.('error', `the text worker exited (code ${code})`);
      this.crashed();
      this.stop(new NotesError('INTERNAL', `The search worker exited (code ${code}).`));
    });
    this.worker = worker;
    // After the listeners: adding a 'message' listener refs the worker again.
    this.updateRef();
    const setup: WorkerSetup = { root: o.root, maxFileSize: o.maxFileSize, maxFiles: o.maxFiles, maxBytes: o.maxBytes };
    runProgram(worker, workerSource(), setup);
    // A new worker (the first, or one replacing a stopped one) keeps the same files; every search list is new to it.
    this.sentList = undefined;
    if (this.lastFiles) worker.postMessage({ type: 'sync', generation: ++this.generation, files: this.lastFiles, touched: [] } satisfies ToWorker);
    return worker;
  }

  private onMessage(message: FromWorker): void {
    // The early listing's messages: the loader's listener takes them (see prestartTextWorker).
    if (message.type === 'prelisting' || message.type === 'prelisting-check' || message.type === 'prelisting-head' || message.type === 'prelisting-bytes') return;
    if (message.type === 'rechecked') {
      this.rechecks.get(message.id)?.(message.stats);
      this.rechecks.delete(message.id);
      this.updateRef();
      return;
    }
    if (message.type === 'walked') {
      const p = this.pending.get(message.id);
      if (p) p.files = message.files;
      return;
    }
    if (message.type === 'found') {
      const p = this.pending.get(message.id);
      if (!p) return;
      if (message.cancelled) p.reject(cancelled());
      else if (message.missingList || !p.files) p.reject(new NotesError('INTERNAL', 'The search reached a worker thread that did not have its list of files.'));
      else p.resolve({ matches: message.matches, searched: message.searched, files: p.files, cut: message.cut === true });
      return;
    }
    this.stats = { cachedFiles: message.cachedFiles, cachedBytes: message.cachedBytes };
    this.budgetFull = message.full;
    if (message.generation === this.generation) {
      this.cachedGeneration = message.generation;
      for (let i = this.cachedWaiters.length - 1; i >= 0; i--) {
        if (this.cachedWaiters[i].generation <= message.generation) this.cachedWaiters.splice(i, 1)[0].resolve(this.stats);
      }
      this.updateRef();
    }
  }

  /**
   * A worker that keeps failing (out of memory with this budget, say) would be replaced and fail again forever:
   * after MAX_CRASHES it keeps no texts, and each search reads the disk.
   */
  private crashed(): void {
    if (++this.crashes < MAX_CRASHES || !this.keepTexts) return;
    this.keepTexts = false;
    this.lastFiles = undefined;
    for (const w of this.cachedWaiters.splice(0)) w.resolve({ cachedFiles: 0, cachedBytes: 0 });
    this.options.log?.('error', `the text worker failed ${this.crashes} times: note texts are no longer kept in memory, and searches read them from disk`);
  }

  /** Ends the current worker: running searches fail with `err`; the texts are read again by a new worker. */
  private stop(err: Error): void {
    const worker = this.worker;
    this.worker = undefined;
    this.stats = { cachedFiles: 0, cachedBytes: 0 };
    void worker?.terminate();
    for (const p of [...this.pending.values()]) p.reject(err);
    for (const settle of this.rechecks.values()) settle(undefined);
    this.rechecks.clear();
    if (!this.closed && this.lastFiles) this.live();
  }
}

function cancelled(): NotesError {
  return new NotesError('INTERNAL', 'The search was cancelled.');
}

/**
 * Texts and searches spread over a few workers, each owning a share of the files: reading the
 * workspace and matching a query run on every core, and each worker's share of the budget is the budget divided
 * among them. Searches run one at a time; results come back in the order of the searched list, as from one worker.
 */
export class TextWorker {
  private readonly shards: TextShard[];
  /** Which worker owns each file: new files go round-robin, and a file keeps its worker while it is listed. */
  private owner = new Map<string, number>();
  private nextOwner = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** The last searched list, split by shard: each part's files and their positions in the whole list. */
  private split: { list: readonly string[]; parts: Array<{ files: string[]; index: number[] }> } | undefined;

  constructor(options: TextWorkerOptions) {
    const n = shardCount(options.shards);
    this.shards = Array.from({ length: n }, (_, i) => new TextShard({ ...options, maxFiles: shareOf(options.maxFiles, n, i), maxBytes: shareOf(options.maxBytes, n, i) }));
  }

  /** How many worker threads share the files. */
  get size(): number {
    return this.shards.length;
  }

  /**
   * The kept files are now `files` (when given); the texts of `touched` changed on disk, and so did those of every
   * file with one of the inode numbers `linked` (files with several hard links reported changed), whatever its name.
   */
  sync(files: string[] | undefined, touched: readonly string[], linked: readonly number[] = []): void {
    if (files && this.shards.length > 1 && this.owner.size > files.length * 2) {
      // Forget the owners of files long gone.
      const listed = new Set(files);
      for (const rel of this.owner.keys()) if (!listed.has(rel)) this.owner.delete(rel);
    }
    const fileParts = files && this.partition(files).map((p) => p.files);
    const touchedParts = this.partition(touched).map((p) => p.files);
    // A kept text of the same file may be under any name, so in any worker.
    this.shards.forEach((shard, i) => shard.sync(fileParts?.[i], touchedParts[i], linked));
  }

  /** Resolves once every worker has read every text it is to keep, as of the last sync. */
  async cached(): Promise<CacheStats> {
    return sumStats(await Promise.all(this.shards.map((s) => s.cached())));
  }

  cacheStats(): CacheStats {
    return sumStats(this.shards.map((s) => s.cacheStats()));
  }

  /** True when every worker holds the text of every file it was given (a search then reads no file from disk). */
  allKept(): boolean {
    return this.shards.every((s) => s.allKept());
  }

  /**
   * Searches `files` in order for at most `limit` matching lines. With `budgetMs`, a file that takes longer than
   * that stops the search with an error (user regular expressions); `signal` cancels it.
   */
  search(files: readonly string[], query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WorkerSearch> {
    return this.inTurn(() => this.searchNow(files, query, limit, budgetMs, signal));
  }

  /** Lists the workspace by `rules` in the first worker: the files a search reads, sorted. */
  async walkList(rules: WalkRules, signal?: AbortSignal): Promise<readonly string[]> {
    return (await this.inTurn(() => this.shards[0].walkSearch(rules, undefined, 0, undefined, signal))).files;
  }

  /**
   * Lists the workspace by `rules` and searches those files, all in the first worker, without waiting for any
   * listing: how a search is answered before the index has its list. Keeps no text it would not keep anyway.
   */
  walkSearch(rules: WalkRules, query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    return this.inTurn(() => this.shards[0].walkSearch(rules, query, limit, budgetMs, signal));
  }

  /**
   * Searches the lines ripgrep printed (`output`, moved to the first worker): the files by `rules` among them,
   * each one's lines matched as the lines of a file read whole are. Keeps no text.
   */
  linesSearch(output: Uint8Array, rules: WalkRules, query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WalkSearch> {
    return this.inTurn(() => this.shards[0].linesSearch(output, rules, query, limit, budgetMs, signal));
  }

  /** Runs `job` after every search asked for before it (one at a time, in order). */
  private inTurn<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The first worker's early listing, if it has one (see TextShard.prelisted). */
  prelisted(requested?: Promise<void>): Promise<Prelisting | undefined> {
    return this.shards[0].prelisted(requested);
  }

  /** Sets the first worker's early listing aside while `on` (see TextShard.holdPrelisting). */
  holdPrelisting(on: boolean): void {
    this.shards[0].holdPrelisting(on);
  }

  /** The first worker's check of folders an early listing read (see TextShard.recheck). */
  recheck(head: PrelistHead): Promise<number[] | undefined> {
    return this.shards[0].recheck(head);
  }

  /** Starts the workers now (they take tens of milliseconds to boot), before there is anything to read. */
  start(): void {
    for (const shard of this.shards) shard.start();
  }

  close(): void {
    for (const shard of this.shards) shard.close();
  }

  private async searchNow(files: readonly string[], query: CompiledQuery, limit: number, budgetMs: number | undefined, signal?: AbortSignal): Promise<WorkerSearch> {
    if (this.split?.list !== files) this.split = { list: files, parts: this.partition(files) };
    const { parts } = this.split;
    // One worker failing (a runaway expression) stops the others; the caller's cancellation stops them all.
    const stopAll = new AbortController();
    const onAbort = () => stopAll.abort();
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) stopAll.abort();
    try {
      const settled = await Promise.allSettled(
        this.shards.map((shard, i) =>
          shard.search(parts[i].files, query, limit, budgetMs, stopAll.signal).catch((err: unknown) => {
            stopAll.abort();
            throw err;
          }),
        ),
      );
      const failures = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error);
      if (failures.length) throw failures.find((err) => err.message !== cancelled().message) ?? failures[0];
      let searched = 0;
      // A worker that stopped at maxChars did not search its files after the file of its last match, which others'
      // files may follow in the list: the merged matches end with the earliest such file, so that they are every
      // match of the list up to there.
      let through = Infinity;
      settled.forEach((r, i) => {
        if (r.status !== 'fulfilled') return;
        searched += r.value.searched;
        const { cut, matches } = r.value;
        if (cut) through = Math.min(through, parts[i].index[matches.files[matches.files.length - 2]]);
      });
      const merged = mergeMatches(settled.map((r, i) => ({ matches: (r as PromiseFulfilledResult<WorkerSearch>).value.matches, index: parts[i].index })));
      const cut = through !== Infinity;
      return { matches: cut ? matchesThrough(merged, through) : merged, searched, cut };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Splits a sorted list by shard; each part stays sorted and remembers where its files sit in the whole. */
  private partition(files: readonly string[]): Array<{ files: string[]; index: number[] }> {
    const parts = this.shards.map(() => ({ files: [] as string[], index: [] as number[] }));
    const n = parts.length;
    for (let i = 0; i < files.length; i++) {
      const part = parts[n === 1 ? 0 : this.ownerOf(files[i])];
      part.files.push(files[i]);
      part.index.push(i);
    }
    return parts;
  }

  private ownerOf(rel: string): number {
    let shard = this.owner.get(rel);
    if (shard === undefined) {
      shard = this.nextOwner;
      this.nextOwner = (shard + 1) % this.shards.length;
      this.owner.set(rel, shard);
    }
    return shard;
  }
}

function sumStats(all: CacheStats[]): CacheStats {
  return all.reduce((a, b) => ({ cachedFiles: a.cachedFiles + b.cachedFiles, cachedBytes: a.cachedBytes + b.cachedBytes }), { cachedFiles: 0, cachedBytes: 0 });
}
