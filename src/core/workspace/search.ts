// Full-text search over the workspace: one matching engine (in the text worker) fed from the index or the disk.
import { NotesError } from '../errors';
import { isAllowedTextFile, TEXT_FILE_EXTENSIONS } from './file-types';
import { compileGlobs } from './listing';
import type { LineMatch } from './match';
import { TextWorker, type CompiledQuery, type WalkRules } from './text-worker';

/** How long a user regular expression may run on one file before the search is stopped. */
export const DEFAULT_REGEX_BUDGET_MS = 1500;

export interface SearchQuery {
  query: string;
  caseSensitive: boolean;
  regex: boolean;
  wholeWord: boolean;
  maxResults: number;
  /**
   * Stop once the matches found hold more than this many characters (paths, lines and matched texts). The answer
   * carries each of them at least twice, in its structured result and in its text, so with half the largest answer
   * a search that could not be sent whole stops early instead of holding every match in memory.
   */
  maxChars?: number;
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
  /** True when more matches existed than maxResults, or the search stopped at maxChars. */
  truncated: boolean;
  filesSearched: number;
}

/** What the search tool needs; the scan below and the index implement it. */
export interface SearchBackend {
  search(query: SearchQuery): Promise<SearchOutcome>;
}

/** The settings that decide which files a search reads. */
export interface SearchedFiles {
  /** files.excludePatterns */
  excludePatterns: readonly string[];
  /** search.excludePatterns, on top of files.excludePatterns */
  searchExcludePatterns: readonly string[];
  showHiddenFiles: boolean;
  fileExtension: string;
}

/** The rules a worker's walk applies: the files a listing shows, less search.excludePatterns, of text file types. */
export function walkRules(s: SearchedFiles): WalkRules {
  return {
    exclude: compileGlobs([...new Set([...s.excludePatterns, ...s.searchExcludePatterns])]),
    showHiddenFiles: s.showHiddenFiles,
    extensions: [...new Set([...TEXT_FILE_EXTENSIONS, s.fileExtension.toLowerCase()])],
  };
}

export interface ScanSearchOptions {
  root: string;
  /**
   * Which files to search: the settings (the worker lists the workspace itself), or a function giving the
   * workspace-relative POSIX paths (already filtered by exclude patterns; text file types are picked from them).
   */
  files: SearchedFiles | { listFiles: () => Promise<string[]>; fileExtension: string };
  maxFileSize: number;
  /** Longest time a user regular expression may run on one file before the search is stopped. */
  regexBudgetMs?: number;
  /** Worker threads reading and matching (default: see TextWorker). */
  textWorkers?: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds the pattern; invalid user regular expressions are a clear INVALID_ARGUMENT error. */
export function compileQuery(q: SearchQuery): CompiledQuery {
  if (q.query.length === 0) throw new NotesError('INVALID_ARGUMENT', 'The search query is empty.');
  let source = q.regex ? q.query : escapeRegExp(q.query);
  if (q.wholeWord) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const base = q.caseSensitive ? '' : 'i';
  // A user's negative lookaround can see across line ends in the whole text (the whole-word guards cannot: they
  // test for letters), so such patterns go line by line.
  const wholeText = !q.regex || !/\(\?<?!/.test(q.query);
  // Unicode mode makes whole-word matching right for every script; plain patterns that need legacy syntax still work.
  // A case-sensitive literal is found in the bytes of every text that contains it, unless it holds U+FFFD: invalid
  // bytes decode to U+FFFD, which no byte search for its UTF-8 form finds.
  const literal = !q.regex && q.caseSensitive && !q.query.includes('\uFFFD') ? q.query : undefined;
  for (const flags of [`${base}u`, base]) {
    try {
      new RegExp(source, flags);
      return { source, flags, wholeText, literal, ...(q.maxChars === undefined ? {} : { maxChars: q.maxChars }) };
    } catch (err) {
      if (flags === base) throw new NotesError('INVALID_ARGUMENT', `Invalid regular expression "${q.query}": ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  }
  throw new NotesError('INTERNAL', 'unreachable');
}

/** Turns the worker's matches on `files` into at most `maxResults` results, in file and line order. */
function collectResults(files: readonly string[], found: ReadonlyArray<[number, LineMatch[]]>, maxResults: number, searched: number, cut = false): SearchOutcome {
  const results: SearchResultItem[] = [];
  let truncated = cut;
  outer: for (const [k, lines] of found) {
    const file = files[k];
    for (const [line, content, match] of lines) {
      if (results.length >= maxResults) {
        truncated = true;
        break outer;
      }
      results.push({ file, line, content, match });
    }
  }
  return { results, truncated, filesSearched: searched };
}

/**
 * Searches `files` (sorted, searchable) through `worker`: one more match than maxResults is asked for, which tells
 * whether the list was cut. User regular expressions get `regexBudgetMs` per file.
 */
export async function searchWith(worker: TextWorker, files: readonly string[], q: SearchQuery, regexBudgetMs: number): Promise<SearchOutcome> {
  const compiled = compileQuery(q);
  const { found, searched, cut } = await worker.search(files, compiled, q.maxResults + 1, q.regex ? regexBudgetMs : undefined, q.signal);
  return collectResults(files, found, q.maxResults, searched, cut);
}

/** Lists the workspace by `rules` and searches it, in the worker, without any listing kept elsewhere. */
export async function walkWith(worker: TextWorker, rules: WalkRules, q: SearchQuery, regexBudgetMs: number): Promise<SearchOutcome> {
  const compiled = compileQuery(q);
  const { files, found, searched, cut } = await worker.walkSearch(rules, compiled, q.maxResults + 1, q.regex ? regexBudgetMs : undefined, q.signal);
  return collectResults(files, found, q.maxResults, searched, cut);
}

/**
 * The disk scan: the first worker lists the workspace, then the workers (keeping no text) read and search their
 * shares of the files. The workers are started on the first search and kept (idle, they do not keep the process
 * alive) until dispose().
 */
export class ScanSearch implements SearchBackend {
  private worker: TextWorker | undefined;
  private readonly rules: WalkRules | undefined;

  constructor(private readonly options: ScanSearchOptions) {
    if (!('listFiles' in options.files)) this.rules = walkRules(options.files);
  }

  async search(q: SearchQuery): Promise<SearchOutcome> {
    compileQuery(q); // a bad pattern fails before any listing
    this.worker ??= new TextWorker({ root: this.options.root, maxFileSize: this.options.maxFileSize, maxFiles: 0, maxBytes: 0, shards: this.options.textWorkers });
    let files: readonly string[];
    if (this.rules) files = await this.worker.walkList(this.rules, q.signal);
    else {
      const { listFiles, fileExtension } = this.options.files as { listFiles: () => Promise<string[]>; fileExtension: string };
      files = (await listFiles()).filter((f) => isAllowedTextFile(f, fileExtension));
    }
    return searchWith(this.worker, files, q, this.options.regexBudgetMs ?? DEFAULT_REGEX_BUDGET_MS);
  }

  dispose(): void {
    this.worker?.close();
    this.worker = undefined;
  }
}
