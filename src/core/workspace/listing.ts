// Lists the workspace's files (fdir), honouring exclude globs (picomatch) and the hidden-files setting.
import path from 'node:path';
import picomatch from 'picomatch';
import { isTempFileName } from './temp-files';
// The CommonJS build on purpose: bundling fdir's ESM build into the CommonJS server breaks on import.meta.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see the line above
import fdirPackage = require('fdir');

const { fdir } = fdirPackage;

export interface ListOptions {
  excludePatterns: readonly string[];
  showHiddenFiles: boolean;
  /**
   * Count the temporary files of our writes (see temp-files.ts) as listed when hidden files are. Listings leave
   * them out, whatever showHiddenFiles says; only the write guard's question (which pattern excludes a path) sets it.
   */
  listTempFiles?: boolean;
}

function isHidden(relative: string): boolean {
  return relative.split('/').some((part) => part.startsWith('.'));
}

/** The name of a file at a workspace-relative path. */
function nameOf(relative: string): string {
  return relative.slice(relative.lastIndexOf('/') + 1);
}

/** The listing's two questions about workspace-relative POSIX paths; shared by the crawl and the index. */
export interface PathFilter {
  /** True when the whole folder is left out (pruned). */
  folderExcluded(relative: string): boolean;
  /** True when the file itself is listed (its folders are checked separately). */
  fileIncluded(relative: string): boolean;
  /** folderExcluded for `relative`, named `name`, inside a folder that is itself listed. */
  childFolderExcluded(relative: string, name: string): boolean;
  /** fileIncluded for `relative`, named `name`, inside a folder that is itself listed. */
  childFileIncluded(relative: string, name: string): boolean;
}

/** A glob as picomatch compiles it: the pattern itself and its regular expression (source and flags). */
export interface CompiledGlob {
  glob: string;
  source: string;
  flags: string;
}

/**
 * How exclude globs are read: VS Code's glob syntax (`*`, `**`, `?`, `[…]`, `{a,b}`), matching names that start
 * with a dot. The extension hands the same patterns to VS Code's `files.exclude` and `search.exclude`, whose globs
 * know no negation and no extglobs: a leading `!` and `+(…)`, `@(…)`, `!(…)` are plain characters here too (read
 * as picomatch reads them by default, `!keep.md` would exclude every file but one from list_files while VS Code's
 * tree showed them all).
 */
export const GLOB_OPTIONS = { dot: true, nonegate: true, noextglob: true } as const;

/** Compiles exclude globs as `picomatch(patterns, GLOB_OPTIONS)` does (on Windows, with its Windows slashes). */
export function compileGlobs(patterns: readonly string[]): CompiledGlob[] {
  const windows = process.platform === 'win32';
  return patterns.map((glob) => {
    const re = picomatch.makeRe(glob, { ...GLOB_OPTIONS, windows });
    return { glob, source: re.source, flags: re.flags };
  });
}

/**
 * True when any glob matches `path`: exactly picomatch's matcher for these globs (a path equal to a pattern matches,
 * the empty path never does; paths here never contain backslashes, so its Windows slash conversion changes
 * nothing), without the two objects it allocates per test. Self-contained: the text worker runs its source.
 *
 * A glob of letters, digits, spaces, `.`, `_`, `-`, slashes and stars (most exclude globs, like the node_modules
 * one) matches only paths that contain each of its runs between slashes and stars: a path without the longest run
 * skips the expression, and most paths fail that cheap test. Left out of this: globs starting with `./` (which
 * picomatch drops), runs of dots alone, and globs holding `***` (picomatch's expression for those leaves a dot
 * after a letter unescaped, so it matches any character there).
 */
export function globMatcher(globs: readonly CompiledGlob[]): GlobMatcher {
  const tests = globs.map((g) => {
    const plain = /^[\p{L}\p{N} ._\-/*]+$/u.test(g.glob) && !g.glob.startsWith('./') && !g.glob.includes('***');
    let required = '';
    if (plain) for (const run of g.glob.split(/[*/]+/)) if (run.length > required.length && !/^\.+$/.test(run)) required = run;
    return { glob: g.glob, re: new RegExp(g.source, g.flags), required };
  });
  const matcher: GlobMatcher = (path) => {
    if (path === '') return false;
    for (const t of tests) if (path === t.glob || (path.includes(t.required) && t.re.test(path))) return true;
    return false;
  };
  // A glob matches a path it equals, or one holding its required run, which is part of the glob's own text: with
  // one for every glob, every path that matches holds one of them.
  if (tests.every((t) => t.required !== '')) matcher.needles = tests.map((t) => t.required);
  return matcher;
}

/** True when any of the globs matches a path. */
export interface GlobMatcher {
  (path: string): boolean;
  /** When set, every path a glob matches holds one of these texts (a set of paths holding none needs no test). */
  needles?: string[];
}

export function createPathFilter(options: ListOptions): PathFilter {
  const excluded = options.excludePatterns.length ? globMatcher(compileGlobs(options.excludePatterns)) : () => false;
  // A temporary file left behind by a killed write is hidden; shown hidden names leave it out all the same.
  const shownName = options.listTempFiles ? () => true : (name: string) => !isTempFileName(name);
  return {
    // Pruning a folder is only right when every file in it would be excluded: test the folder itself.
    folderExcluded: (rel) => (!options.showHiddenFiles && isHidden(rel)) || excluded(rel) || excluded(`${rel}/`),
    fileIncluded: (file) => (options.showHiddenFiles ? shownName(nameOf(file)) : !isHidden(file)) && !excluded(file),
    childFolderExcluded: (rel, name) => (!options.showHiddenFiles && name.startsWith('.')) || excluded(rel) || excluded(`${rel}/`),
    childFileIncluded: (file, name) => (options.showHiddenFiles ? shownName(name) : !name.startsWith('.')) && !excluded(file),
  };
}

/** True when the crawl would list `file`: the file is included and none of its folders is pruned. */
export function pathListed(file: string, filter: PathFilter): boolean {
  if (!filter.fileIncluded(file)) return false;
  for (let i = file.indexOf('/'); i >= 0; i = file.indexOf('/', i + 1)) if (filter.folderExcluded(file.slice(0, i))) return false;
  return true;
}

/** Sorts workspace paths the way every listing does (by UTF-16 code units). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every regular file under `root`, as sorted workspace-relative POSIX paths. Symbolic links are skipped, so a
 * link cannot pull files from outside the workspace into listings or search.
 */
export async function listWorkspaceFiles(root: string, options: ListOptions): Promise<string[]> {
  const filter = createPathFilter(options);
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const relativeOf = (absolute: string) => absolute.slice(prefix.length).split(path.sep).join('/').replace(/\/$/, '');
  const files = await new fdir({ excludeSymlinks: true, suppressErrors: true })
    .withRelativePaths()
    .withPathSeparator('/')
    .exclude((_name, dirPath) => filter.folderExcluded(relativeOf(dirPath)))
    .filter((file) => filter.fileIncluded(file))
    .crawl(root)
    .withPromise();
  return files.sort(comparePaths);
}
