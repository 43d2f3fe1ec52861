// Full-text search over the workspace: one matching engine fed either from disk (ScanSearch) or from the index.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { NotesError } from '../errors';
import { isAllowedTextFile } from './file-types';

export interface SearchQuery {
  query: string;
  caseSensitive: boolean;
  regex: boolean;
  wholeWord: boolean;
  maxResults: number;
  /** Stops the scan when the request is cancelled or times out. */
  signal?: AbortSignal;
}

export interface SearchResultItem {
  file: string;
  /** 1-based line number. */
  line: number;
  /** The matching line (long lines are clipped around the match). */
  content: string;
  /** The text the query matched. */
  match: string;
}

export interface SearchOutcome {
  results: SearchResultItem[];
  /** True when more matches existed than maxResults. */
  truncated: boolean;
  filesSearched: number;
}

/** What the search tool needs; the scan below and the index implement it. */
export interface SearchBackend {
  search(query: SearchQuery): Promise<SearchOutcome>;
}

export interface ScanSearchOptions {
  root: string;
  /** Workspace-relative POSIX paths to search (already filtered by exclude patterns). */
  listFiles: () => Promise<string[]>;
  maxFileSize: number;
  fileExtension: string;
  /** Longest time a user regular expression may run on one file before the search is stopped. */
  regexBudgetMs?: number;
}

type LineMatch = [number, string, string];

/**
 * Finds the first match on each line. Self-contained on purpose: its source text also runs inside the regex
 * worker, so it must not refer to anything outside itself.
 *
 * `wholeText`: look for candidates in the whole text first and check only the lines they fall on. Gives the same
 * lines as the line-by-line loop whenever every per-line match is also a match of the pattern in the whole text,
 * which holds for patterns without negative lookarounds (the caller decides): the candidate scan then never skips
 * a line that matches, and each candidate line is checked exactly as the loop would.
 */
export function matchLines(text: string, source: string, flags: string, limit: number, wholeText = false): LineMatch[] {
  const re = new RegExp(source, flags);
  const out: LineMatch[] = [];
  const check = (lineNo: number, raw: string) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    re.lastIndex = 0;
    const m = re.exec(line);
    if (!m || m[0] === '') return; // an empty match says nothing useful about a line
    let content = line;
    if (content.length > 400) {
      const start = Math.max(0, m.index - 150);
      content = (start > 0 ? '…' : '') + line.slice(start, start + 400) + (start + 400 < line.length ? '…' : '');
    }
    out.push([lineNo, content, m[0]]);
  };
  if (!wholeText) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length && out.length < limit; i++) check(i + 1, lines[i]);
    return out;
  }
  const scan = new RegExp(source, `${flags}gm`);
  let lineNo = 1;
  let counted = 0; // newlines before this offset are counted in lineNo
  while (out.length < limit) {
    const c = scan.exec(text);
    if (!c) break;
    const start = c.index === 0 ? 0 : text.lastIndexOf('\n', c.index - 1) + 1;
    let end = text.indexOf('\n', c.index);
    if (end < 0) end = text.length;
    for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < start; nl = text.indexOf('\n', counted)) {
      lineNo++;
      counted = nl + 1;
    }
    check(lineNo, text.slice(start, end));
    if (end >= text.length) break;
    scan.lastIndex = end + 1;
  }
  return out;
}

/** Runs matchLines over several texts, at most `limit` matches in all; answers [index, matches] for texts that matched. */
function matchBatch(texts: readonly string[], source: string, flags: string, limit: number, wholeText: boolean, progress?: Int32Array): Array<[number, LineMatch[]]> {
  const out: Array<[number, LineMatch[]]> = [];
  let left = limit;
  for (let i = 0; i < texts.length && left > 0; i++) {
    if (progress) Atomics.store(progress, 0, i);
    const found = matchLines(texts[i], source, flags, left, wholeText);
    if (progress) Atomics.add(progress, 1, 1);
    if (found.length) {
      out.push([i, found]);
      left -= found.length;
    }
  }
  return out;
}

// The worker reports which file it is on through shared memory, so the main thread can time every file separately
// without a message per file.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
// Some TypeScript runners wrap inner functions in __name(...) to keep their names.
const __name = (fn) => fn;
const matchLines = ${matchLines.toString()};
const matchBatch = ${matchBatch.toString()};
parentPort.on('message', (job) => {
  const progress = new Int32Array(job.progress);
  parentPort.postMessage(matchBatch(job.texts, job.source, job.flags, job.limit, job.wholeText, progress));
});
`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds the pattern; invalid user regular expressions are a clear INVALID_ARGUMENT error. */
export function compileQuery(q: SearchQuery): { source: string; flags: string; wholeText: boolean } {
  if (q.query.length === 0) throw new NotesError('INVALID_ARGUMENT', 'The search query is empty.');
  let source = q.regex ? q.query : escapeRegExp(q.query);
  if (q.wholeWord) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const base = q.caseSensitive ? '' : 'i';
  // A user's negative lookaround can see across line ends in the whole text (the whole-word guards cannot: they
  // test for letters), so such patterns go line by line.
  const wholeText = !q.regex || !/\(\?<?!/.test(q.query);
  // Unicode mode makes whole-word matching right for every script; plain patterns that need legacy syntax still work.
  for (const flags of [`${base}u`, base]) {
    try {
      new RegExp(source, flags);
      return { source, flags, wholeText };
    } catch (err) {
      if (flags === base) throw new NotesError('INVALID_ARGUMENT', `Invalid regular expression "${q.query}": ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  }
  throw new NotesError('INTERNAL', 'unreachable');
}

/** Runs user regular expressions in a worker so that catastrophic backtracking is stopped, not waited for. */
export class RegexWorker {
  private worker: Worker | undefined;
  /** Jobs run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `maxFileSize`: the largest text it may be given, which sizes its heap. */
  constructor(
    private readonly budgetMs: number,
    private readonly maxFileSize = 10 * 1024 * 1024,
  ) {}

  private get live(): Worker {
    if (!this.worker) {
      // A small heap makes the worker collect the copies of earlier batches early instead of growing the process.
      // Room for a batch plus the largest file (two bytes a character) and its matches.
      const heapMb = WORKER_HEAP_MB + Math.ceil((3 * this.maxFileSize) / (1024 * 1024));
      this.worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
      this.worker.unref();
    }
    return this.worker;
  }

  /** Matches a batch of files; each file gets `budgetMs` of its own. */
  run(files: readonly string[], texts: readonly string[], source: string, flags: string, limit: number, wholeText: boolean): Promise<Array<[number, LineMatch[]]>> {
    const job = this.queue.then(() => this.runNow(files, texts, source, flags, limit, wholeText));
    this.queue = job.catch(() => undefined);
    return job;
  }

  private runNow(files: readonly string[], texts: readonly string[], source: string, flags: string, limit: number, wholeText: boolean): Promise<Array<[number, LineMatch[]]>> {
    const worker = this.live;
    const shared = new SharedArrayBuffer(8);
    const progress = new Int32Array(shared);
    return new Promise((resolve, reject) => {
      let seen = 0;
      let since = Date.now();
      const watchdog = setInterval(() => {
        const done = Atomics.load(progress, 1);
        if (done !== seen) {
          seen = done;
          since = Date.now();
        } else if (Date.now() - since > this.budgetMs) {
          cleanup();
          this.close();
          reject(
            new NotesError(
              'INVALID_ARGUMENT',
              `The regular expression ran for more than ${this.budgetMs} ms on "${files[Atomics.load(progress, 0)]}" and was stopped; it probably backtracks catastrophically (for example nested quantifiers like (a+)+). Simplify it.`,
            ),
          );
        }
      }, Math.max(10, Math.floor(this.budgetMs / 5)));
      const cleanup = () => {
        clearInterval(watchdog);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (found: Array<[number, LineMatch[]]>) => {
        cleanup();
        resolve(found);
      };
      const onError = (err: Error) => {
        cleanup();
        this.close();
        reject(err);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ texts, source, flags, limit, wholeText, progress: shared });
    });
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }
}

/** Reads a file whole, or undefined when it is over `maxFileSize`, gone or unreadable. One open, one fstat, one read. */
export async function readTextFile(absolute: string, maxFileSize: number): Promise<string | undefined> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(absolute, 'r');
    const { size } = await handle.stat();
    if (size > maxFileSize) return undefined;
    const buf = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buf, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buf.toString('utf8', 0, filled);
  } catch {
    return undefined; // deleted or unreadable since listing
  } finally {
    await handle?.close();
  }
}

/** Worker heap besides the room for the largest file (see RegexWorker). */
const WORKER_HEAP_MB = 48;
const READ_AHEAD = 64;
/** A search yields to the event loop this often, so other requests and cancellation are heard meanwhile. */
const YIELD_MS = 15;
// Batches for the worker: small enough that the early stop at maxResults and cancellation stay cheap, large
// enough that worker round trips do not dominate.
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_FILES = 2048;

/**
 * The search itself over `files` (sorted, searchable), texts from `textOf` (a string, or a promise of one when it
 * comes from disk; undefined skips the file). Non-regex patterns run here (they cannot backtrack badly); user
 * regular expressions run in `worker`.
 */
export async function searchTexts(
  q: SearchQuery,
  files: readonly string[],
  textOf: (file: string) => string | undefined | Promise<string | undefined>,
  worker: RegexWorker | undefined,
): Promise<SearchOutcome> {
  const { source, flags, wholeText } = compileQuery(q);
  const results: SearchResultItem[] = [];
  let truncated = false;
  let searched = 0;
  // Reads (if any) run ahead of matching, in file order.
  const pending = new Map<number, string | undefined | Promise<string | undefined>>();
  let started = 0; // texts asked for so far
  const textAt = (i: number) => {
    while (started < Math.min(files.length, i + READ_AHEAD)) {
      const t = textOf(files[started]);
      // Ready texts (from the index) need no read-ahead: take them when their turn comes.
      if (typeof t === 'object') pending.set(started, t);
      started++;
      if (typeof t !== 'object' && started - 1 === i) return t;
    }
    const t = pending.get(i);
    pending.delete(i);
    return t ?? textOf(files[i]);
  };
  /** Adds one file's matches; true once the result list is full. */
  const add = (file: string, found: LineMatch[]): boolean => {
    for (const [line, content, match] of found) {
      if (results.length >= q.maxResults) {
        truncated = true;
        return true;
      }
      results.push({ file, line, content, match });
    }
    return false;
  };
  let i = 0;
  let lastYield = Date.now();
  while (i < files.length && !truncated) {
    if (Date.now() - lastYield >= YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = Date.now();
    }
    if (q.signal?.aborted) throw new NotesError('INTERNAL', 'The search was cancelled.');
    const batchFiles: string[] = [];
    const batchTexts: string[] = [];
    let bytes = 0;
    // A batch: up to BATCH_BYTES of text for the worker, a slice of files for the in-process matcher.
    const maxBytes = worker ? BATCH_BYTES : 256 * 1024;
    while (i < files.length && bytes < maxBytes && batchFiles.length < BATCH_FILES) {
      let text = textAt(i);
      if (typeof text === 'object') text = await text;
      if (text !== undefined) {
        batchFiles.push(files[i]);
        batchTexts.push(text);
        bytes += text.length;
      }
      i++;
    }
    if (batchFiles.length === 0) continue;
    searched += batchFiles.length;
    // One more than needed tells whether the list was cut.
    const limit = q.maxResults - results.length + 1;
    const found = worker ? await worker.run(batchFiles, batchTexts, source, flags, limit, wholeText) : matchBatch(batchTexts, source, flags, limit, wholeText);
    for (const [k, lines] of found) if (add(batchFiles[k], lines)) break;
  }
  return { results, truncated, filesSearched: searched };
}

export class ScanSearch implements SearchBackend {
  constructor(private readonly options: ScanSearchOptions) {}

  async search(q: SearchQuery): Promise<SearchOutcome> {
    compileQuery(q); // a bad pattern fails before any listing
    const files = (await this.options.listFiles()).filter((f) => isAllowedTextFile(f, this.options.fileExtension));
    const worker = q.regex ? new RegexWorker(this.options.regexBudgetMs ?? 1500, this.options.maxFileSize) : undefined;
    try {
      return await searchTexts(q, files, (f) => readTextFile(path.join(this.options.root, ...f.split('/')), this.options.maxFileSize), worker);
    } finally {
      worker?.close();
    }
  }
}
