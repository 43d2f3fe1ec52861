// Full-text search over the workspace: one matching engine (in the text worker) fed from the index or the disk.
import { NotesError, quotedText } from '../errors';
import { isAllowedTextFile, TEXT_FILE_EXTENSIONS } from './file-types';
import { compileGlobs } from './listing';
import { decodeMatches, matchCount, type EncodedMatches, type SearchResultItem } from './encoded-matches';
import { requiredTexts, ripgrepPattern, runRipgrep, sieveExpression } from './ripgrep';
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
   * Stop once the matches found hold more than this many characters (paths, lines and matched texts), with the
   * answer marked truncated: a search that matches everything stops early instead of holding every match, and the
   * JSON, UTF-8 and escaped copies the answer is made of, in memory.
   */
  maxChars?: number;
  /** Stops the scan when the request is cancelled or times out. */
  signal?: AbortSignal;
}

export type { SearchResultItem };

export interface SearchOutcome {
  /** The first `count` of `matches` are the answer: each result's JSON, as the reply carries it (see encoded-matches.ts). */
  answer: { matches: EncodedMatches; count: number };
  /** The same results as objects, decoded from `answer` when first asked for (nothing on the way to a reply asks). */
  readonly results: SearchResultItem[];
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
  /** Narrows down the files a search reads (see ripgrep.ts); none: every file is read. */
  ripgrep?: RipgrepUse;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let legacyWord: string | undefined;

/**
 * What search.wholeWord counts as part of a word: a letter, a combining mark (the accent of an `é` written as `e`
 * and U+0301, as macOS and some editors write it), a digit or `_`, of any script.
 */
export const WORD_CHARACTER = '[\\p{L}\\p{M}\\p{N}_]';

/**
 * WORD_CHARACTER for a pattern compiled without the u flag, where `\p`
 * does not exist and a character beyond U+FFFF is two code units: a class of the word characters up to U+FFFF,
 * or a surrogate pair of one beyond. Made from the u flag's own answer the first time it is needed (about 50 ms).
 */
export function legacyWordCharacter(): string {
  if (legacyWord !== undefined) return legacyWord;
  const isWord = new RegExp(`^${WORD_CHARACTER}$`, 'u');
  const hex = (n: number) => `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;
  const ranges = (units: number[]): string => {
    let out = '';
    for (let i = 0; i < units.length; ) {
      let j = i;
      while (j + 1 < units.length && units[j + 1] === units[j] + 1) j++;
      out += j === i ? hex(units[i]) : `${hex(units[i])}-${hex(units[j])}`;
      i = j + 1;
    }
    return `[${out}]`;
  };
  const bmp: number[] = [];
  const lows = new Map<number, number[]>();
  // Letters and digits end at plane 3, marks at plane 14 (its variation selectors, U+E0100–U+E01EF); planes 4–13,
  // 15 and 16 hold none.
  for (let cp = 0; cp < 0xe1000; cp = cp === 0x3ffff ? 0xe0000 : cp + 1) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const text = String.fromCodePoint(cp);
    if (!isWord.test(text)) continue;
    if (cp <= 0xffff) bmp.push(cp);
    else {
      const high = text.charCodeAt(0);
      if (!lows.has(high)) lows.set(high, []);
      lows.get(high)!.push(text.charCodeAt(1));
    }
  }
  // High surrogates in a row whose low surrogates are the same (the CJK planes) share one alternative.
  const pairs: string[] = [];
  const highs = [...lows.keys()];
  const lowClasses = highs.map((high) => ranges(lows.get(high)!));
  for (let i = 0; i < highs.length; ) {
    const low = lowClasses[i];
    let j = i;
    while (j + 1 < highs.length && highs[j + 1] === highs[j] + 1 && lowClasses[j + 1] === low) j++;
    pairs.push(`${j === i ? hex(highs[i]) : `[${hex(highs[i])}-${hex(highs[j])}]`}${low}`);
    i = j + 1;
  }
  legacyWord = `(?:${ranges(bmp)}|${pairs.join('|')})`;
  return legacyWord;
}

/**
 * Longest query, in characters (UTF-16 code units, as JavaScript counts them). A query is matched as a regular
 * expression (a plain one escaped), and V8 refuses expressions far past this one ("too large", or a stack overflow
 * case-insensitively, from about 25 000 characters in the text workers); no line of a note is searched for a text
 * that long anyway.
 */
export const MAX_QUERY_LENGTH = 10_000;

/** The query as an error message quotes it: its first 200 characters, between whole characters. */
function quoted(query: string): string {
  return quotedText(query, 200);
}

/** Queries compiled already: a search compiles its query in several places (the parse for required text included). */
const compiledQueries = new WeakMap<SearchQuery, CompiledQuery>();

/** Builds the pattern; invalid user regular expressions are a clear INVALID_ARGUMENT error. */
export function compileQuery(q: SearchQuery): CompiledQuery {
  let compiled = compiledQueries.get(q);
  if (!compiled) {
    compiled = compileNew(q);
    compiledQueries.set(q, compiled);
  }
  return compiled;
}

function compileNew(q: SearchQuery): CompiledQuery {
  if (q.query.length === 0) throw new NotesError('INVALID_ARGUMENT', 'The search query is empty.');
  if (q.query.length > MAX_QUERY_LENGTH) {
    throw new NotesError('INVALID_ARGUMENT', `The search query is ${q.query.length} characters long, over the limit of ${MAX_QUERY_LENGTH} characters. Search for a shorter part of the text.`);
  }
  const pattern = q.regex ? q.query : escapeRegExp(q.query);
  const base = q.caseSensitive ? '' : 'i';
  // A user's negative lookaround can see across line ends in the whole text (the whole-word guards cannot: they
  // test for letters), so such patterns go line by line.
  const wholeText = !q.regex || !/\(\?<?!/.test(q.query);
  // Unicode mode makes whole-word matching right for every script; plain patterns that need legacy syntax still
  // work, with a guard spelled without \p (which legacy syntax does not have).
  for (const flags of [`${base}u`, base]) {
    // The legacy class is built (once, about 50 ms) only for a whole-word search that needs it.
    const word = !q.wholeWord ? '' : flags.includes('u') ? WORD_CHARACTER : legacyWordCharacter();
    const source = q.wholeWord ? `(?<!${word})(?:${pattern})(?!${word})` : pattern;
    try {
      // The query alone first: wrapped for whole words, a broken one would be read with the wrapper's text (`[` would
      // take it into a class, `a)|(b` would close its group and leave `b` unguarded).
      if (source !== pattern) new RegExp(pattern, flags);
      new RegExp(source, flags);
      const required = requiredTexts(q.query, q.regex, source, flags);
      return { source, flags, wholeText, ...(required ? { required } : {}), ...(q.maxChars === undefined ? {} : { maxChars: q.maxChars }) };
    } catch (err) {
      if (flags !== base) continue;
      // V8 quotes the whole expression (`Invalid regular expression: /…/i: Unterminated group`): the query is quoted
      // once, clipped, and the reason follows.
      const message = (err as Error).message;
      const echo = [pattern, source].map((p) => `Invalid regular expression: /${p}/${flags}: `).find((e) => message.startsWith(e));
      const reason = echo ? message.slice(echo.length) : message.replace(/^Invalid regular expression: /, '');
      throw new NotesError('INVALID_ARGUMENT', `Invalid regular expression "${quoted(q.query)}": ${reason}`);
    }
  }
  throw new NotesError('INTERNAL', 'unreachable');
}

/** The worker's matches as at most `maxResults` results, in file and line order. */
function collectResults(matches: EncodedMatches, maxResults: number, searched: number, cut = false): SearchOutcome {
  const found = matchCount(matches);
  const count = Math.min(found, maxResults);
  let results: SearchResultItem[] | undefined;
  return {
    answer: { matches, count },
    get results() {
      results ??= decodeMatches(matches, count);
      return results;
    },
    truncated: cut || found > maxResults,
    filesSearched: searched,
  };
}

/**
 * Searches `files` (sorted, searchable) through `worker`: one more match than maxResults is asked for, which tells
 * whether the list was cut. User regular expressions get `regexBudgetMs` per file.
 */
export async function searchWith(worker: TextWorker, files: readonly string[], q: SearchQuery, regexBudgetMs: number): Promise<SearchOutcome> {
  const compiled = compileQuery(q);
  const { matches, searched, cut } = await worker.search(files, compiled, q.maxResults + 1, q.regex ? regexBudgetMs : undefined, q.signal);
  return collectResults(matches, q.maxResults, searched, cut);
}

/** Lists the workspace by `rules` and searches it, in the worker, without any listing kept elsewhere. */
export async function walkWith(worker: TextWorker, rules: WalkRules, q: SearchQuery, regexBudgetMs: number): Promise<SearchOutcome> {
  const compiled = compileQuery(q);
  const { matches, searched, cut } = await worker.walkSearch(rules, compiled, q.maxResults + 1, q.regex ? regexBudgetMs : undefined, q.signal);
  return collectResults(matches, q.maxResults, searched, cut);
}

/** Most bytes of ripgrep output taken: more, and reading the files in order (stopping at the result limit) is cheaper. */
const RIPGREP_MAX_BYTES = 2 * 1024 * 1024;
/**
 * The same for a regular expression's sieve (see sieveExpression), whose lines match far more often than lines that
 * merely hold a required text: on 10 000 notes, 2.9 MB of lines that all match took 350 ms through ripgrep against
 * 465 ms reading the files, where 8.9 MB of lines holding "deadline" (a third of which match) took longer than reading.
 */
const RIPGREP_MAX_SIEVE_BYTES = 4 * 1024 * 1024;

/** How a search uses ripgrep: the program, and whom to tell when it fails (once a warning, then debug lines). */
export class RipgrepUse {
  private warned = false;

  constructor(
    readonly program: string,
    private readonly log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void,
  ) {}

  /**
   * The lines of the files by `rules` in which ripgrep finds what every match of `q` holds (see ripgrep.ts);
   * undefined when it cannot narrow this query down, failed, or found so many lines that reading the files in
   * order is cheaper: the caller then reads every file.
   */
  async lines(root: string, rules: WalkRules, q: SearchQuery, maxFileSize: number): Promise<Uint8Array | undefined> {
    const compiled = compileQuery(q);
    // A regular expression's literal texts in order, which narrows more than any one of them.
    const sieve = q.regex ? sieveExpression(compiled.source, compiled.flags) : undefined;
    const pattern = ripgrepPattern(compiled.required, compiled.flags.includes('i'), sieve);
    if (!pattern) return undefined;
    // Far more lines than results: a search reading files in path order stops at its limit long before.
    const maxLines = Math.max(10_000, 4 * (q.maxResults + 1));
    const maxBytes = sieve ? RIPGREP_MAX_SIEVE_BYTES : RIPGREP_MAX_BYTES;
    const out = await runRipgrep({ program: this.program, root, pattern, rules, maxFileSize, maxLines, maxBytes, signal: q.signal });
    if ('lines' in out) return out.lines;
    if ('overflow' in out) this.log?.('debug', `search: ripgrep found more than ${maxLines} lines or ${maxBytes} bytes; the files are read in order instead`);
    else if (!q.signal?.aborted) {
      this.log?.(this.warned ? 'debug' : 'warn', `search: ripgrep (${this.program}) could not be used, so every file is read: ${out.error}`);
      this.warned = true;
    }
    return undefined;
  }
}

/** Searches the lines ripgrep printed (see RipgrepUse.lines) in `worker`'s first thread. */
export async function linesWith(worker: TextWorker, lines: Uint8Array, rules: WalkRules, q: SearchQuery, regexBudgetMs: number): Promise<SearchOutcome> {
  const compiled = compileQuery(q);
  const { matches, searched, cut } = await worker.linesSearch(lines, rules, compiled, q.maxResults + 1, q.regex ? regexBudgetMs : undefined, q.signal);
  return collectResults(matches, q.maxResults, searched, cut);
}

/**
 * The disk scan: the first worker lists the workspace, then the workers (keeping no text) read and search their
 * shares of the files; with ripgrep, the first worker matches only the lines it found instead. The workers are
 * started on the first search and kept (idle, they do not keep the process alive) until dispose().
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
    const budget = this.options.regexBudgetMs ?? DEFAULT_REGEX_BUDGET_MS;
    const lines = this.rules && (await this.options.ripgrep?.lines(this.options.root, this.rules, q, this.options.maxFileSize));
    if (this.rules && lines) return linesWith(this.worker, lines, this.rules, q, budget);
    return searchWith(this.worker, await this.listed(q), q, budget);
  }

  /** Every file the search reads without ripgrep: listed by the first worker, or by the given function. */
  private async listed(q: SearchQuery): Promise<readonly string[]> {
    const worker = this.worker as TextWorker;
    if (this.rules) return worker.walkList(this.rules, q.signal);
    const { listFiles, fileExtension } = this.options.files as { listFiles: () => Promise<string[]>; fileExtension: string };
    return (await listFiles()).filter((f) => isAllowedTextFile(f, fileExtension));
  }

  dispose(): void {
    this.worker?.close();
    this.worker = undefined;
  }
}
