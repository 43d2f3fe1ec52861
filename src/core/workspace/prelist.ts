// The early listing: while the server is still loading, the first text worker thread lists the workspace by the
// default listing rules (no hidden names, no node_modules folders), noting each folder's state as it reads it,
// and sends the result to the protocol thread. The index then checks each folder is unchanged (see
// WorkspaceIndex) instead of reading them all again.
//
// This module is small on purpose: the loader (dist/server.js) bundles it, and the worker runs prelist's source.
import type fsModule from 'node:fs';

/** What the early listing found: every folder it read and every regular file in them. */
export interface Prelisting {
  /** Real path of the workspace folder listed. */
  root: string;
  /** Date.now() before the first folder was read (folders changed shortly before it are read again). */
  started: number;
  /** Date.now() once it was complete. */
  finished: number;
  /** Workspace-relative POSIX paths of the folders read ('' is the workspace folder), each before its children. */
  folders: string[];
  /** For each folder, in order: its modification time, change time (ms) and inode number, taken before reading it. */
  stats: number[];
  /**
   * The regular files in those folders, workspace-relative, sorted by UTF-16 code units (as listings sort), joined
   * by NUL (no path holds one): a worker sends one string, where 50 000 strings would each cost the receiver.
   */
  joined: string;
  /**
   * Set when a request waited for the listing while the worker made it: the folders from this index on were read
   * after that, so they need no check (as a crawl's, their entries are as the request found them).
   */
  wantedAt?: number;
  /** True when the worker checks the folders read before a request waited (see recheck) and sends the result. */
  checking?: boolean;
  /** Added where the listing is received, when `checking`: that check, or undefined if none came. */
  check?: Promise<PrelistCheck | undefined>;
  /**
   * Added where the listing is received: the files as list_files' answer writes them (see encodeJoinedPaths), made
   * by the worker after it sent the listing; undefined when a path needs escaping or none came.
   */
  encoded?: Promise<readonly Uint8Array[] | undefined>;
}

/**
 * The folders an early listing had read when it saw that a request waits (those before its wantedAt), sent at once
 * so that the protocol thread, idle until the listing comes, checks them while the worker reads the rest.
 */
export interface PrelistHead {
  root: string;
  folders: string[];
  stats: number[];
}

/** The check of the folders an early listing read before a request waited for it (see recheck). */
export interface PrelistCheck {
  /**
   * For each folder from the first up to the listing's wantedAt (all of them without one): its modification time,
   * change time (ms) and inode number now; NaN when it is no longer a folder, or was not read in the first place.
   */
  stats: number[];
  /** Who made it: the worker after its listing, or the protocol thread from the listing's head meanwhile. */
  by: 'worker' | 'protocol thread';
}

/**
 * An early listing stops (and is not used) past this many entries: a folder that large is listed the usual way,
 * after the worker's attempt (its paths would take about 100 MB of the worker's heap at this count).
 */
export const PRELIST_MAX_ENTRIES = 1_000_000;

/**
 * Lists `root` as the index's crawl does under the default settings, but skipping every folder named
 * `node_modules` and every hidden name (the index uses the result only when its settings prune those too).
 * Symbolic links are skipped. Each folder is stat'ed before it is read: if the stat is unchanged later (and not
 * racy), so is the list of its entries. Undefined when the root cannot be read or there are over `maxEntries`.
 * `onWanted` gets the folders read so far the moment `wanted` is seen set (see PrelistHead).
 *
 * Files come out sorted without sorting them all: each folder's entries are sorted by name, a folder's name with
 * a "/" after it, and the folders are entered depth first in that order. A path is then its folders' keys and its
 * name one after another, and two paths compare as the first two keys in which they differ.
 *
 * Few objects outlive a folder: its entries are kept as their sort keys alone (a key ending in "/" is a folder), and
 * each run of files between two of its subfolders is kept as one string, their paths joined by NUL. Keeping a
 * tuple per entry and a string per file made the worker spend a fifth of the listing collecting garbage.
 */
export function prelist(fs: typeof fsModule, root: string, maxEntries: number, wanted?: Int32Array, onWanted?: (head: PrelistHead) => void): Prelisting | undefined {
  const next = prelister(fs, root, maxEntries, wanted, onWanted);
  for (;;) {
    const step = next(Infinity);
    if (step.done) return step.listing;
  }
}

/** One step of an early listing (see prelister): done, with the listing (undefined: none), or more to read. */
export type PrelistStep = { done: true; listing: Prelisting | undefined } | { done: false };

/**
 * The early listing of `root` (see prelist) made a few folders at a time: each call reads up to `folders` more
 * folders, so that the worker can set the listing aside between two calls (while a search runs, see PRELUDE).
 *
 * Self-contained: a worker runs its source.
 */
export function prelister(fs: typeof fsModule, root: string, maxEntries: number, wanted?: Int32Array, onWanted?: (head: PrelistHead) => void): (folders: number) => PrelistStep {
  let real = '';
  let started = 0;
  const folders: string[] = [];
  const stats: number[] = [];
  /** The files found so far, in order, in runs: each the paths of files listed one after another, joined by NUL. */
  const runs: string[] = [];
  /** Folders being listed, innermost last: each one's sort keys, the next one's place, and its paths' prefix. */
  const open: Array<{ prefix: string; keys: string[]; next: number }> = [];
  let count = 0;
  let wantedAt: number | undefined;
  let finished: PrelistStep | undefined;
  const enter = (rel: string): boolean => {
    const absolute = rel ? `${real}/${rel}` : real;
    // Seen before the folder is stat'ed and read: it is read after the request.
    if (wantedAt === undefined && wanted !== undefined && Atomics.load(wanted, 0) !== 0) {
      wantedAt = folders.length;
      onWanted?.({ root: real, folders: folders.slice(), stats: stats.slice() });
    }
    folders.push(rel);
    let dirents: fsModule.Dirent[];
    try {
      const stat = rel ? fs.lstatSync(absolute) : fs.statSync(absolute);
      if (!stat.isDirectory()) throw new Error('not a folder');
      dirents = fs.readdirSync(absolute, { withFileTypes: true });
      stats.push(stat.mtimeMs, stat.ctimeMs, stat.ino);
    } catch {
      // Gone or unreadable: noted with no stat, so the index reads it again itself.
      stats.push(NaN, NaN, NaN);
      return rel !== '';
    }
    count += dirents.length;
    if (count > maxEntries) return false;
    const keys: string[] = [];
    for (const e of dirents) {
      const name = e.name;
      if (name.startsWith('.')) continue;
      if (e.isDirectory()) {
        if (name !== 'node_modules') keys.push(`${name}/`);
      } else if (e.isFile()) keys.push(name);
    }
    // By UTF-16 code units, as the default sort compares strings.
    keys.sort();
    open.push({ prefix: rel ? `${rel}/` : '', keys, next: 0 });
    return true;
  };
  const stop = (listing: Prelisting | undefined): PrelistStep => (finished = { done: true, listing });
  return (budget) => {
    if (finished) return finished;
    try {
      if (!real) {
        real = fs.realpathSync(root);
        started = Date.now();
        if (!enter('')) return stop(undefined);
      }
      let entered = 0;
      while (open.length) {
        const top = open[open.length - 1];
        const { prefix, keys } = top;
        // The files up to the next folder (no file's name ends in "/"), as one run.
        const from = top.next;
        let at = from;
        while (at < keys.length && !keys[at].endsWith('/')) at++;
        if (at > from) runs.push(prefix + keys.slice(from, at).join(`\0${prefix}`));
        if (at === keys.length) {
          open.pop();
          continue;
        }
        if (entered >= budget) {
          // Resumed here: the files just taken are not taken again.
          top.next = at;
          return { done: false };
        }
        top.next = at + 1;
        entered++;
        if (!enter(prefix + keys[at].slice(0, -1))) return stop(undefined);
      }
      const listing: Prelisting = { root: real, started, finished: Date.now(), folders, stats, joined: runs.join('\0') };
      if (wantedAt !== undefined) listing.wantedAt = wantedAt;
      return stop(listing);
    } catch {
      return stop(undefined);
    }
  };
}

/**
 * The check of a listing made once a request waits for it: stats each folder read before the request (all of them
 * without `wantedAt`) again, as the index would on the protocol thread (see WorkspaceIndex). The index compares the
 * stats, so that the rules (which stats tell a folder unchanged) stay in one place. Made by the worker after its
 * listing, or by the protocol thread from the listing's head, in slices (see checkHead).
 *
 * Self-contained: a worker runs its source.
 */
export function recheck(fs: typeof fsModule, listing: Pick<Prelisting, 'root' | 'folders' | 'stats' | 'wantedAt'>): PrelistCheck {
  const n = listing.wantedAt ?? listing.folders.length;
  const stats: number[] = new Array<number>(3 * n).fill(NaN);
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(listing.stats[3 * i])) continue; // not read: the index reads it itself
    const rel = listing.folders[i];
    try {
      const stat = fs.lstatSync(rel ? `${listing.root}/${rel}` : listing.root, { throwIfNoEntry: false });
      if (stat?.isDirectory()) [stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]] = [stat.mtimeMs, stat.ctimeMs, stat.ino];
    } catch {
      // gone or unreadable: NaN, so read again
    }
  }
  return { stats, by: 'worker' };
}

/** An early listing's folders (with their stats) and files, less those an exclude matcher leaves out. */
export interface PrelistedFiles {
  folders: string[];
  stats: number[];
  /** Each folder's place in the early listing's folders. */
  places: number[];
  files: string[];
  /** True when `files` are all of the early listing's files. */
  whole: boolean;
}

/**
 * Paths joined by NUL (as Prelisting.joined) as list_files' answer holds them between its first path's opening
 * quote and its last path's closing quote (see listAnswer): joined by `","` escaped (`\\",\\"`), in UTF-8. Undefined
 * when a path holds a character JSON escapes (lone surrogates among them; a pair is also taken, for the test is by
 * UTF-16 unit), or there is none. No path holds NUL: the paths are names read from folders, which the file system
 * keeps as NUL-terminated strings.
 *
 * Self-contained: a worker runs its source.
 */
export function encodeJoinedPaths(joined: string): Uint8Array | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
  if (joined === '' || /["\\\u0001-\u001f\ud800-\udfff]/.test(joined)) return undefined;
  // Split and joined again rather than replaceAll: on the 50 000 paths of the benchmark's corpus, in a fresh worker,
  // replaceAll took 22-29 ms and split with join 15-18 ms, and the string it leaves encodes faster (2-3 ms, not 4-7).
  return new TextEncoder().encode(joined.split('\0').join('\\",\\"'));
}

/**
 * `early` less the folders `excluded` prunes (and everything under them) and the files it leaves out, as the crawl
 * prunes and filters them. `needles`: texts every path `excluded` matches holds (see globMatcher); when no folder
 * path (with a "/" after it) holds one, no folder is tested, and when no file path holds one, no file is.
 */
export function filterPrelisting(early: Prelisting, excluded: (path: string) => boolean, needles?: readonly string[]): PrelistedFiles {
  const parentOf = (rel: string) => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
  const pruned = new Set<string>();
  const folders: string[] = [];
  const stats: number[] = [];
  const places: number[] = [];
  // Each folder as "rel/": a needle in "rel" or in "rel/" is found.
  const folderPaths = `${early.folders.join('/\0')}/`;
  const testFolders = needles === undefined || needles.some((needle) => folderPaths.includes(needle));
  early.folders.forEach((rel, i) => {
    // Folders come before their children, so a pruned parent is known.
    if (testFolders && rel !== '' && (pruned.has(parentOf(rel)) || excluded(rel) || excluded(`${rel}/`))) return void pruned.add(rel);
    folders.push(rel);
    stats.push(early.stats[3 * i], early.stats[3 * i + 1], early.stats[3 * i + 2]);
    places.push(i);
  });
  const all = early.joined === '' ? [] : early.joined.split('\0');
  // Most often no path holds what the globs need (the early listing left out node_modules and hidden names).
  const untouched = pruned.size === 0 && needles !== undefined && needles.every((needle) => !early.joined.includes(needle));
  const files = untouched ? all : all.filter((f) => !pruned.has(parentOf(f)) && !excluded(f));
  return { folders, stats, places, files, whole: files.length === all.length };
}
