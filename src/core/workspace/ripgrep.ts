// Finds the lines a search may match with ripgrep, the program VS Code's own search runs: a search that has not
// every text in memory (the first one after start, those while the index reads or over its budget, the disk scan)
// then matches only those lines instead of reading every file of the workspace. ripgrep looks for text that every match must hold (the query itself, or the literal part
// of a regular expression); the text worker then matches each line it printed exactly as it matches the lines of a
// file it reads, so the answer is the one a scan of every file gives (index-equivalence.test.ts holds them equal).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../program-path';
import { regexSieve, requiredLiterals, type SieveSpelling } from './regex-literals';
import type { WalkRules } from './text-worker';

/** Environment variable naming the ripgrep program; `off` turns its use off. Unset: `rg` on PATH. */
export const RIPGREP_ENV = 'NOTESAPP_RIPGREP';

/**
 * What ripgrep looks for: every line the query matches holds a match of one of `patterns` (fixed strings, or
 * ripgrep regular expressions), so a file without any cannot hold a result. The converse need not hold.
 */
export interface RipgrepPattern {
  fixed: boolean;
  patterns: string[];
}

/** A carriage return that no line feed follows, in any bytes (see ripgrepArgs). */
const LONE_CARRIAGE_RETURN = '(?-u:\\r[^\\n])';

/** Longest pattern handed to ripgrep (a command-line argument; case classes make it several times the query). */
const MAX_PATTERN_CHARS = 16 * 1024;

let onPath: { path: string; found: string | undefined } | undefined;

/**
 * The ripgrep program to use: NOTESAPP_RIPGREP when set (a path, or `off`), else the first `rg` on PATH (looked up
 * once per PATH). Undefined when there is none: searches then list and read the workspace themselves.
 */
export function locateRipgrep(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env[RIPGREP_ENV];
  if (given !== undefined && given !== '') return given.toLowerCase() === 'off' ? undefined : given;
  const searchPath = env.PATH ?? env.Path ?? '';
  if (onPath?.path !== searchPath) onPath = { path: searchPath, found: findOnPath('rg', searchPath) };
  return onPath.found;
}

/** Code points that JavaScript's case-insensitive matching (with or without the u flag) pairs with an ASCII letter. */
const ASCII_FOLDS: Readonly<Record<string, string>> = { k: '\\x{212A}', s: '\\x{17F}' };

/** True for a character no other character matches case-insensitively (checked over every code point in the tests). */
export function caseless(ch: string): boolean {
  return !/[\p{Changes_When_Casefolded}\p{Changes_When_Casemapped}]/u.test(ch);
}

const hex = (ch: string) => `\\x{${(ch.codePointAt(0) as number).toString(16).toUpperCase()}}`;

/**
 * A ripgrep expression matching every text that `text` matches in JavaScript, case-insensitively when `ignoreCase`:
 * ASCII letters become the class of their cases (k and s with the Kelvin sign and the long s, the only characters
 * outside ASCII that fold into it), characters without case stay themselves, and any other character becomes `.`
 * (one character), which matches whatever it folds to in any version of Unicode.
 */
export function literalExpression(text: string, ignoreCase: boolean): string {
  let out = '';
  for (const ch of text) {
    if (/^[0-9A-Za-z]$/.test(ch)) {
      const lower = ch.toLowerCase();
      out += ignoreCase && lower !== ch.toUpperCase() ? `[${lower}${lower.toUpperCase()}${ASCII_FOLDS[lower] ?? ''}]` : ch;
    } else if (!ignoreCase || caseless(ch)) out += hex(ch);
    else out += '.';
  }
  return out;
}

/**
 * True when `text` can be handed to ripgrep and found there as JavaScript finds it in the decoded text: no line end
 * (results are lines), no NUL (a command-line argument), no U+FFFD (what invalid bytes decode to) and no lone
 * surrogate (which has no UTF-8 form).
 */
export function searchableLiteral(text: string): boolean {
  return text.length > 0 && !/[\n\0\uFFFD]/.test(text) && !/\p{Surrogate}/u.test(text);
}

/**
 * How many characters of `text` ripgrep can look for as they are (case-insensitively, characters with case outside
 * ASCII become `.`); 0 when it cannot look for the text at all.
 */
export function literalWeight(text: string, ignoreCase: boolean): number {
  if (!searchableLiteral(text)) return 0;
  let weight = 0;
  for (const ch of text) if (!ignoreCase || /^[\0-\x7F]$/.test(ch) || caseless(ch)) weight++;
  return weight;
}

/**
 * Fewer characters than this to look for and ripgrep is not used: nearly every file would hold them, and listing
 * them all costs more than reading the workspace without it.
 */
const MIN_WEIGHT = 3;

/**
 * Texts one of which every line a search matches holds (case-insensitively when `flags` hold `i`): the query itself,
 * or the literal text of a regular expression (the query as compileQuery compiles it: `source`, `flags`). Each can
 * be looked for as it is, in UTF-8 bytes too (see searchableLiteral). Undefined when none is known.
 */
export function requiredTexts(query: string, regex: boolean, source: string, flags: string): string[] | undefined {
  const ignoreCase = flags.includes('i');
  const weight = (s: string) => literalWeight(s, ignoreCase);
  const texts = regex ? requiredLiterals(source, flags, weight) : [query];
  return texts && texts.every((t) => weight(t) > 0) ? texts : undefined;
}

/**
 * The sieve's spelling (see regexSieve): literals as literalExpression spells them, and gaps of any bytes but a line
 * end — invalid UTF-8 included, which ripgrep's `.` does not match and JavaScript sees as U+FFFD.
 */
function sieveSpelling(ignoreCase: boolean): SieveSpelling {
  return { text: (t) => (searchableLiteral(t) ? literalExpression(t, ignoreCase) : undefined), gap: '(?-u:[^\\n])*' };
}

/**
 * The ripgrep expression that matches within every line the regular expression `source` matches (see regexSieve),
 * or undefined.
 */
export function sieveExpression(source: string, flags: string): string | undefined {
  return regexSieve(source, flags, sieveSpelling(flags.includes('i')));
}

/**
 * What ripgrep must find for a search whose lines all hold one of `required` (see requiredTexts), or that a regular
 * expression's `sieve` matches in (see sieveExpression; it narrows at least as much); undefined when they are too
 * common to be worth it.
 */
export function ripgrepPattern(required: readonly string[] | undefined, ignoreCase: boolean, sieve?: string): RipgrepPattern | undefined {
  if (!required || Math.min(...required.map((t) => literalWeight(t, ignoreCase))) < MIN_WEIGHT) return undefined;
  const pattern = sieve
    ? { fixed: false, patterns: [sieve] }
    : ignoreCase
      ? { fixed: false, patterns: required.map((t) => literalExpression(t, true)) }
      : { fixed: true, patterns: [...required] };
  return pattern.patterns.reduce((n, p) => n + p.length, 0) <= MAX_PATTERN_CHARS ? pattern : undefined;
}

/** Arguments of the ripgrep run that prints every line holding a match of `pattern`, each after its file's path. */
export function ripgrepArgs(pattern: RipgrepPattern, rules: Pick<WalkRules, 'showHiddenFiles' | 'extensions' | 'exclude'>, maxFileSize: number): string[] {
  const args = [
    '--no-config',
    // path NUL line-number ':' line, one matching line after another, each file's lines together and in order
    '--with-filename',
    '--null',
    '--line-number',
    '--no-heading',
    '--color',
    'never',
    // Every file as text (no binary detection), in its raw bytes (no UTF-16 sniffing), whatever ignore files say:
    // the workspace's own rules are applied to what comes back.
    '--text',
    '--encoding',
    'none',
    '--no-ignore',
    // Files over security.maxFileSize are never searched (as a read by the text worker leaves them out).
    '--max-filesize',
    String(maxFileSize),
  ];
  if (rules.showHiddenFiles) args.push('--hidden');
  // Only files of the searched types, when their extensions are plain enough to spell as one glob (it costs
  // ripgrep about as little as none; one glob per type cost it 10 ms on 10 000 notes). Hidden files that match are
  // searched too (ripgrep lets globs override hiding): the rules drop them.
  if (rules.extensions.every((ext) => /^\.[A-Za-z0-9_-]+$/.test(ext))) args.push('--iglob', `*.{${rules.extensions.map((ext) => ext.slice(1)).join(',')}}`);
  // Folders an exclude glob of the form **/NAME/** prunes (node_modules, .git) are not entered. ripgrep's **/NAME
  // also leaves out files named NAME, which is safe only for names without an extension (never searched).
  // After the glob above: the last matching glob decides.
  for (const { glob } of rules.exclude) {
    const name = /^\*\*\/([A-Za-z0-9_-]+|\.[A-Za-z0-9_-]+)\/\*\*$/.exec(glob)?.[1];
    if (name) args.push('--glob', `!**/${name}`);
  }
  // Fixed strings are spelled as expressions, so that one more can be added: a carriage return that no line feed
  // follows ends a line for the search (see lineEnds in text-worker.ts), but not for ripgrep, whose line numbers
  // count line feeds only. Every line holding one is printed, so that the lines after it can be numbered.
  for (const p of pattern.patterns) args.push('--regexp', pattern.fixed ? literalExpression(p, false) : p);
  args.push('--regexp', LONE_CARRIAGE_RETURN);
  // An explicit folder: without one, ripgrep searches its standard input whenever that is not a terminal.
  args.push('--', '.');
  return args;
}

export interface RipgrepRun {
  /** The ripgrep program. */
  program: string;
  /** Real path of the workspace root. */
  root: string;
  pattern: RipgrepPattern;
  rules: Pick<WalkRules, 'showHiddenFiles' | 'extensions' | 'exclude'>;
  maxFileSize: number;
  /** More lines than this and ripgrep is stopped (`overflow`): reading files in order and stopping early is cheaper. */
  maxLines: number;
  /** More bytes of output than this and ripgrep is stopped (`overflow`). */
  maxBytes: number;
  signal?: AbortSignal;
  /**
   * Where ripgrep writes: a temporary file, unlinked at once and read when it is done (the default; a pipe when
   * no such file can be made), or a pipe read as it writes.
   */
  output?: 'file' | 'pipe';
}

/** How often the size of ripgrep's output file is looked at, to stop a run whose output is too large. */
const OUTPUT_POLL_MS = 10;

/** A temporary file only this process can name: unlinked as soon as it is open where the system allows it. */
interface OutputFile {
  fd: number;
  size(): number;
  /** The whole file, in a buffer of its own (it is moved to a worker thread). */
  read(): Uint8Array;
  close(): void;
}

function openOutputFile(): OutputFile | undefined {
  const file = path.join(os.tmpdir(), `notesapp-rg-${process.pid}-${randomBytes(8).toString('hex')}`);
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx+', 0o600);
  } catch {
    return undefined;
  }
  let leftover: string | undefined = file;
  try {
    fs.unlinkSync(file);
    leftover = undefined;
  } catch {
    // Windows may refuse while it is open: removed once closed.
  }
  return {
    fd,
    size: () => fs.fstatSync(fd).size,
    read: () => {
      const out = new Uint8Array(fs.fstatSync(fd).size);
      for (let at = 0; at < out.length; ) {
        const n = fs.readSync(fd, out, at, out.length - at, at);
        if (n === 0) throw new Error('the output file ended early');
        at += n;
      }
      return out;
    },
    close: () => {
      try {
        fs.closeSync(fd);
        if (leftover) fs.rmSync(leftover, { force: true });
      } catch {
        // already closed, or gone
      }
    },
  };
}

export type RipgrepOutput = { lines: Uint8Array } | { overflow: true } | { error: string };

/**
 * Runs ripgrep over the workspace and collects its output: every line that holds `pattern`, after its file's path
 * (relative, starting with `./`). An error (not installed, a failed run, a file it could not read) or too much
 * output is reported instead: the caller then searches without it. A run that fails writing to its temporary file
 * (a full temporary folder, say) is run once more through a pipe.
 */
export async function runRipgrep(run: RipgrepRun): Promise<RipgrepOutput> {
  const { out, toFile } = await runOnce(run);
  if ('error' in out && toFile && !run.signal?.aborted) {
    const piped = (await runOnce({ ...run, output: 'pipe' })).out;
    return 'error' in piped ? out : piped;
  }
  return out;
}

/** One run of ripgrep; `toFile`: it wrote to a temporary file (see RipgrepRun.output). */
async function runOnce(run: RipgrepRun): Promise<{ out: RipgrepOutput; toFile: boolean }> {
  // Cancelled before it started (while the index was checked): an abort event would never come to stop it.
  if (run.signal?.aborted) return { out: { error: 'cancelled' }, toFile: false };
  // ripgrep writes each file's lines as it is done with the file: for the benchmark's regex, a thousand small
  // writes. Through a pipe each one woke the protocol thread, and ripgrep could wait for it to read; to a file,
  // that run took 83-87 ms instead of 107-110 ms (medians of 9 runs each, spawned from Node).
  const file = run.output === 'pipe' ? undefined : openOutputFile();
  const out = await new Promise<RipgrepOutput>((resolve) => {
    let settled = false;
    let child: ChildProcess | undefined;
    let poll: NodeJS.Timeout | undefined;
    const onAbort = () => child?.kill();
    const finish = (value: RipgrepOutput) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      file?.close();
      run.signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    try {
      // node:child_process is loaded by the first search, not at every start (its networking modules: a few ms).
      child = process.getBuiltinModule('node:child_process').spawn(run.program, ripgrepArgs(run.pattern, run.rules, run.maxFileSize), { cwd: run.root, stdio: ['ignore', file ? file.fd : 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      return finish({ error: (err as Error).message });
    }
    run.signal?.addEventListener('abort', onAbort);
    const overflow = () => {
      child?.kill();
      finish({ overflow: true });
    };
    const chunks: Buffer[] = [];
    let bytes = 0;
    let lines = 0;
    let errText = '';
    if (file) {
      // Too much output stops ripgrep, as it does through a pipe (a few milliseconds later, at most).
      poll = setInterval(() => {
        try {
          if (file.size() > run.maxBytes) overflow();
        } catch {
          // looked at again at the end
        }
      }, OUTPUT_POLL_MS);
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      if (lines > run.maxLines || bytes > run.maxBytes) overflow();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (errText.length < 4096) errText += chunk.toString('utf8');
    });
    child.on('error', (err) => finish({ error: err.message }));
    child.on('close', (code, signal) => {
      if (run.signal?.aborted) return finish({ error: 'cancelled' });
      // 0: lines found, 1: none. 2 is an error, even when other files were searched: the caller searches without it.
      if (code !== 0 && code !== 1) return finish({ error: `${run.program} exited with ${code ?? signal}: ${errText.trim().split('\n')[0] ?? ''}` });
      if (file) {
        let output: Uint8Array;
        try {
          output = file.read();
        } catch (err) {
          return finish({ error: `reading ripgrep's output failed: ${(err as Error).message}` });
        }
        const view = Buffer.from(output.buffer, output.byteOffset, output.byteLength);
        for (let i = view.indexOf(10); i >= 0 && lines <= run.maxLines; i = view.indexOf(10, i + 1)) lines++;
        return lines > run.maxLines || output.length > run.maxBytes ? finish({ overflow: true }) : finish({ lines: output });
      }
      // A buffer of its own (never the shared pool's), so that it can be moved to a worker thread.
      const output = new Uint8Array(bytes);
      let at = 0;
      for (const chunk of chunks) {
        output.set(chunk, at);
        at += chunk.length;
      }
      finish({ lines: output });
    });
  });
  return { out, toFile: file !== undefined };
}
