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
  /**
   * Set when a listing kept from an earlier start was given (see KeptListing): how many folders' entries were
   * taken from it rather than read, and whether the whole listing was (every folder unchanged: nothing to keep anew).
   */
  kept?: { reused: number; whole: boolean };
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
 * How recent a folder's times may be for its stat to tell nothing (racy): more than FAT's two-second ticks. A
 * folder changed in the same tick as it was stat'ed keeps the times it was stat'ed with, so a folder whose times are
 * this close to (or after) the start of a listing is read again rather than trusted.
 */
export const RACY_MS = 3000;

/**
 * An early listing kept from an earlier start (see kept-listing.ts): what that start listed, with the device of the
 * workspace folder. A folder whose stat is as it was then, on that device, and whose times were older than
 * `started` less the racy margin, holds the same entries now: adding, removing or renaming an entry changes a
 * folder's modification and change times (and a change in the same clock tick as the stat would have left them
 * within the margin of `started`).
 */
export interface KeptListing {
  root: string;
  dev: number;
  started: number;
  folders: string[];
  stats: number[];
  joined: string;
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
export function prelist(fs: typeof fsModule, root: string, maxEntries: number, wanted?: Int32Array, onWanted?: (head: PrelistHead) => void, kept?: KeptListing, racyMs?: number): Prelisting | undefined {
  const next = prelister(fs, root, maxEntries, wanted, onWanted, kept, racyMs);
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
 * Given `kept` (the listing of an earlier start, see KeptListing), it first stats each of that listing's folders:
 * when every one is unchanged, that listing is the answer, with the stats just taken, and no folder is read (one
 * step, whatever the budget; `wanted` is not looked at, so the index checks every folder once a request waits).
 * Otherwise it lists as without one, but takes the entries of each folder found unchanged by the stat taken before
 * reading it from `kept` instead of reading them.
 *
 * Self-contained: a worker runs its source.
 */
export function prelister(fs: typeof fsModule, root: string, maxEntries: number, wanted?: Int32Array, onWanted?: (head: PrelistHead) => void, kept?: KeptListing, racyMs = RACY_MS): (folders: number) => PrelistStep {
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
  /** Each folder of `kept` with its place there and its entries' sort keys, sorted; once a folder of it changed. */
  let keptKeys: Map<string, { at: number; keys: string[] }> | undefined;
  /** Folders whose entries were taken from `kept`. */
  let reused = 0;
  /** True when `stat` is that of kept's folder `at`, on kept's device, and older than kept's racy margin. */
  const unchangedSinceKept = (stat: fsModule.Stats, at: number): boolean => {
    const k = kept as KeptListing;
    const then = k.stats;
    return stat.dev === k.dev && stat.mtimeMs === then[3 * at] && stat.ctimeMs === then[3 * at + 1] && stat.ino === then[3 * at + 2] && Math.max(stat.mtimeMs, stat.ctimeMs) < k.started - racyMs;
  };
  /** `kept` with the stats taken now, when every one of its folders is unchanged; undefined otherwise. */
  const wholeKept = (): Prelisting | undefined => {
    const k = kept as KeptListing;
    const now: number[] = [];
    for (let i = 0; i < k.folders.length; i++) {
      const rel = k.folders[i];
      const stat = rel ? fs.lstatSync(`${real}/${rel}`, { throwIfNoEntry: false }) : fs.statSync(real, { throwIfNoEntry: false });
      if (!stat?.isDirectory() || !unchangedSinceKept(stat, i)) return undefined;
      now.push(stat.mtimeMs, stat.ctimeMs, stat.ino);
    }
    return { root: real, started, finished: Date.now(), folders: k.folders, stats: now, joined: k.joined, kept: { reused: k.folders.length, whole: true } };
  };
  /** kept's entries by folder (see keptKeys); it throws when a path of it is in none of its folders. */
  const keysOfKept = (): Map<string, { at: number; keys: string[] }> => {
    const k = kept as KeptListing;
    const byFolder = new Map<string, { at: number; keys: string[] }>();
    k.folders.forEach((rel, at) => byFolder.set(rel, { at, keys: [] }));
    const add = (rel: string, folder: boolean) => {
      const cut = rel.lastIndexOf('/');
      const parent = byFolder.get(cut < 0 ? '' : rel.slice(0, cut));
      if (!parent) throw new Error('a kept path in no kept folder');
      parent.keys.push(folder ? `${rel.slice(cut + 1)}/` : rel.slice(cut + 1));
    };
    for (let i = 1; i < k.folders.length; i++) add(k.folders[i], true);
    if (k.joined !== '') for (const file of k.joined.split('\0')) add(file, false);
    for (const entry of byFolder.values()) entry.keys.sort();
    return byFolder;
  };
  const enter = (rel: string): boolean => {
    const absolute = rel ? `${real}/${rel}` : real;
    // Seen before the folder is stat'ed and read: it is read after the request.
    if (wantedAt === undefined && wanted !== undefined && Atomics.load(wanted, 0) !== 0) {
      wantedAt = folders.length;
      onWanted?.({ root: real, folders: folders.slice(), stats: stats.slice() });
    }
    folders.push(rel);
    let keys: string[];
    try {
      const stat = rel ? fs.lstatSync(absolute) : fs.statSync(absolute);
      if (!stat.isDirectory()) throw new Error('not a folder');
      const known = keptKeys?.get(rel);
      if (known && unchangedSinceKept(stat, known.at)) {
        keys = known.keys;
        count += keys.length;
        reused++;
      } else {
        const dirents = fs.readdirSync(absolute, { withFileTypes: true });
        count += dirents.length;
        keys = [];
        for (const e of dirents) {
          const name = e.name;
          if (name.startsWith('.')) continue;
          if (e.isDirectory()) {
            if (name !== 'node_modules') keys.push(`${name}/`);
          } else if (e.isFile()) keys.push(name);
        }
        // By UTF-16 code units, as the default sort compares strings.
        keys.sort();
      }
      stats.push(stat.mtimeMs, stat.ctimeMs, stat.ino);
    } catch {
      // Gone or unreadable: noted with no stat, so the index reads it again itself.
      stats.push(NaN, NaN, NaN);
      return rel !== '';
    }
    if (count > maxEntries) return false;
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
        if (kept?.root === real) {
          try {
            const whole = wholeKept();
            if (whole) return stop(whole);
            keptKeys = keysOfKept();
          } catch {
            // A folder that cannot be stat'ed, or a kept listing that does not hold together: read as without one.
            keptKeys = new Map();
          }
        }
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
      if (keptKeys) listing.kept = { reused, whole: false };
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
 * when a path holds a character JSON escapes (`"`, `\\`, a control character, a lone surrogate), or there is none.
 * No path holds NUL: the paths are names read from folders, which the file system keeps as NUL-terminated strings.
 *
 * Characters beyond Latin-1 (above U+00FF: typographic quotes and dashes in titles, emoji, CJK) are written as
 * `\\uXXXX` escapes when they are at most one in 32 of the characters, as search answers write them (see
 * matchEncoder in encoded-matches.ts): a JavaScript client then decodes the whole reply into a string of one byte a
 * character, which it decodes and parses sooner (a 2.4 MB listing of 50 000 paths, one in 50 with a typographic
 * apostrophe: 37.7 ms instead of 43.3 ms in fresh Node processes, medians of 20). Where they are more common (names
 * in Cyrillic, CJK, Greek) they are written as they are.
 *
 * Self-contained: a worker runs its source.
 */
export function encodeJoinedPaths(joined: string): Uint8Array | undefined {
  if (joined === '') return undefined;
  let text = joined;
  // One scan for the usual listing, in which no character is either.
  // eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
  if (/["\\\u0001-\u001f\u0100-\uffff]/.test(joined)) {
    // eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
    if (/["\\\u0001-\u001f]/.test(joined)) return undefined;
    // A lone surrogate (a half of a pair without the other) is escaped by JSON.stringify itself.
    if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(joined)) return undefined;
    let wide = 0;
    const beyondLatin1 = /[\u0100-\uffff]/g;
    while (beyondLatin1.test(joined)) wide++;
    // Each UTF-16 unit of a pair (an emoji) counts, and is escaped, as one.
    if (wide * 32 <= joined.length) text = joined.replace(beyondLatin1, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  // Split and joined again rather than replaceAll: on the 50 000 paths of the benchmark's corpus, in a fresh worker,
  // replaceAll took 22-29 ms and split with join 15-18 ms, and the string it leaves encodes faster (2-3 ms, not 4-7).
  return new TextEncoder().encode(text.split('\0').join('\\",\\"'));
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
