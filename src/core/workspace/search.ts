// Full-text search over the workspace behind a small interface, so an in-memory index can replace the scan later.
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

/** What the search tool needs; the scan below implements it, an index could too. */
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

/**
 * Finds the first match on each line. Self-contained on purpose: its source text also runs inside the regex
 * worker, so it must not refer to anything outside itself.
 */
export function matchLines(text: string, source: string, flags: string, limit: number): Array<[number, string, string]> {
  const re = new RegExp(source, flags);
  const out: Array<[number, string, string]> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && out.length < limit; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    re.lastIndex = 0;
    const m = re.exec(line);
    if (!m || m[0] === '') continue; // an empty match says nothing useful about a line
    let content = line;
    if (content.length > 400) {
      const start = Math.max(0, m.index - 150);
      content = (start > 0 ? '…' : '') + line.slice(start, start + 400) + (start + 400 < line.length ? '…' : '');
    }
    out.push([i + 1, content, m[0]]);
  }
  return out;
}

// The worker answers each file of a batch on its own, so the main thread can time every file separately.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const matchLines = ${matchLines.toString()};
parentPort.on('message', (job) => {
  for (let i = 0; i < job.texts.length; i++) {
    parentPort.postMessage({ index: i, found: matchLines(job.texts[i], job.source, job.flags, job.limit) });
  }
});
`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds the pattern; invalid user regular expressions are a clear INVALID_ARGUMENT error. */
export function compileQuery(q: SearchQuery): { source: string; flags: string } {
  if (q.query.length === 0) throw new NotesError('INVALID_ARGUMENT', 'The search query is empty.');
  let source = q.regex ? q.query : escapeRegExp(q.query);
  if (q.wholeWord) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const base = q.caseSensitive ? '' : 'i';
  // Unicode mode makes whole-word matching right for every script; plain patterns that need legacy syntax still work.
  for (const flags of [`${base}u`, base]) {
    try {
      new RegExp(source, flags);
      return { source, flags };
    } catch (err) {
      if (flags === base) throw new NotesError('INVALID_ARGUMENT', `Invalid regular expression "${q.query}": ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  }
  throw new NotesError('INTERNAL', 'unreachable');
}

type LineMatch = [number, string, string];

/** Runs user regular expressions in a worker so that catastrophic backtracking is stopped, not waited for. */
class RegexWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });

  constructor(private readonly budgetMs: number) {
    this.worker.unref();
  }

  /** Matches a batch of files; each file gets `budgetMs` of its own. */
  run(files: readonly string[], texts: readonly string[], source: string, flags: string, limit: number): Promise<LineMatch[][]> {
    return new Promise((resolve, reject) => {
      const results: LineMatch[][] = [];
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          cleanup();
          void this.worker.terminate();
          reject(
            new NotesError(
              'INVALID_ARGUMENT',
              `The regular expression ran for more than ${this.budgetMs} ms on "${files[results.length]}" and was stopped; it probably backtracks catastrophically (for example nested quantifiers like (a+)+). Simplify it.`,
            ),
          );
        }, this.budgetMs);
      };
      const onMessage = (message: { index: number; found: LineMatch[] }) => {
        results[message.index] = message.found;
        if (results.length === texts.length) {
          cleanup();
          resolve(results);
        } else arm();
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      this.worker.on('message', onMessage);
      this.worker.on('error', onError);
      arm();
      this.worker.postMessage({ texts, source, flags, limit });
    });
  }

  close(): void {
    void this.worker.terminate();
  }
}

const READ_AHEAD = 64;
// Small batches keep the early stop at maxResults cheap; large enough that worker round trips do not dominate.
const BATCH_BYTES = 1024 * 1024;
const BATCH_FILES = 128;

export class ScanSearch implements SearchBackend {
  constructor(private readonly options: ScanSearchOptions) {}

  /** One open, one fstat, one read: this loop dominates the cost of a scan. */
  private async readText(file: string): Promise<string | undefined> {
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(path.join(this.options.root, ...file.split('/')), 'r');
      const { size } = await handle.stat();
      if (size > this.options.maxFileSize) return undefined;
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

  async search(q: SearchQuery): Promise<SearchOutcome> {
    const { source, flags } = compileQuery(q);
    const files = (await this.options.listFiles()).filter((f) => isAllowedTextFile(f, this.options.fileExtension));
    const results: SearchResultItem[] = [];
    let truncated = false;
    let searched = 0;
    const worker = q.regex ? new RegexWorker(this.options.regexBudgetMs ?? 1500) : undefined;
    // Reads run ahead of matching, in file order.
    const reads: Array<Promise<string | undefined>> = [];
    const readAt = (i: number) => (reads[i] ??= this.readText(files[i]));
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
    try {
      let i = 0;
      while (i < files.length && !truncated) {
        if (q.signal?.aborted) throw new NotesError('INTERNAL', 'The search was cancelled.');
        // A batch: files read so far, up to BATCH_BYTES of text (one file for the in-process matcher).
        const batchFiles: string[] = [];
        const batchTexts: string[] = [];
        let bytes = 0;
        while (i < files.length && (batchFiles.length === 0 || (worker && bytes < BATCH_BYTES && batchFiles.length < BATCH_FILES))) {
          for (let j = i; j < Math.min(files.length, i + READ_AHEAD); j++) void readAt(j);
          const text = await readAt(i);
          delete reads[i];
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
        const found = worker ? await worker.run(batchFiles, batchTexts, source, flags, limit) : [matchLines(batchTexts[0], source, flags, limit)];
        for (let k = 0; k < found.length; k++) if (add(batchFiles[k], found[k])) break;
      }
    } finally {
      worker?.close();
    }
    return { results, truncated, filesSearched: searched };
  }
}
