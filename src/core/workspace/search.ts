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

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const matchLines = ${matchLines.toString()};
parentPort.on('message', (job) => {
  parentPort.postMessage(matchLines(job.text, job.source, job.flags, job.limit));
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

/** Runs user regular expressions in a worker so that catastrophic backtracking is stopped, not waited for. */
class RegexWorker {
  private worker = new Worker(WORKER_SOURCE, { eval: true });

  constructor(private readonly budgetMs: number) {
    this.worker.unref();
  }

  run(text: string, source: string, flags: string, limit: number, file: string): Promise<Array<[number, string, string]>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.worker.terminate();
        reject(
          new NotesError(
            'INVALID_ARGUMENT',
            `The regular expression ran for more than ${this.budgetMs} ms on "${file}" and was stopped; it probably backtracks catastrophically (for example nested quantifiers like (a+)+). Simplify it.`,
          ),
        );
      }, this.budgetMs);
      this.worker.once('message', (value: Array<[number, string, string]>) => {
        clearTimeout(timer);
        resolve(value);
      });
      this.worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      this.worker.postMessage({ text, source, flags, limit });
    });
  }

  close(): void {
    void this.worker.terminate();
  }
}

export class ScanSearch implements SearchBackend {
  constructor(private readonly options: ScanSearchOptions) {}

  async search(q: SearchQuery): Promise<SearchOutcome> {
    const { source, flags } = compileQuery(q);
    const files = (await this.options.listFiles()).filter((f) => isAllowedTextFile(f, this.options.fileExtension));
    const results: SearchResultItem[] = [];
    let truncated = false;
    let searched = 0;
    const worker = q.regex ? new RegexWorker(this.options.regexBudgetMs ?? 1500) : undefined;
    try {
      for (const file of files) {
        const absolute = path.join(this.options.root, ...file.split('/'));
        let text: string;
        try {
          const stat = await fs.stat(absolute);
          if (stat.size > this.options.maxFileSize) continue;
          text = await fs.readFile(absolute, 'utf8');
        } catch {
          continue; // deleted or unreadable since listing
        }
        searched++;
        // One more than needed tells whether the list was cut.
        const limit = q.maxResults - results.length + 1;
        const found = worker ? await worker.run(text, source, flags, limit, file) : matchLines(text, source, flags, limit);
        for (const [line, content, match] of found) {
          if (results.length >= q.maxResults) {
            truncated = true;
            break;
          }
          results.push({ file, line, content, match });
        }
        if (truncated) break;
      }
    } finally {
      worker?.close();
    }
    return { results, truncated, filesSearched: searched };
  }
}
