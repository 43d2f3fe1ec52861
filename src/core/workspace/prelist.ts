// The early listing: while the server is still loading, the first text worker thread lists the workspace by the
// default listing rules (no hidden names, no node_modules folders), noting each folder's state as it reads it.
// The index then checks each folder is unchanged (see WorkspaceIndex) instead of reading them all again.
//
// This module is small on purpose: the loader (dist/server.js) bundles it, and the worker runs prelist's source.
import type fsModule from 'node:fs';

/** What the early listing found: every folder it read and every regular file in them. */
export interface Prelisting {
  /** Real path of the workspace folder listed. */
  root: string;
  /** Date.now() before the first folder was read (folders changed shortly before it are read again: see racy). */
  started: number;
  /** Date.now() once it was complete. */
  finished: number;
  /** Workspace-relative POSIX paths of the folders read ('' is the workspace folder), each before its children. */
  folders: string[];
  /** For each folder, in order: its modification time, change time (ms) and inode number, taken before reading it. */
  stats: number[];
  /** The regular files in those folders, workspace-relative, sorted by UTF-16 code units (as listings sort). */
  files: string[];
  /** The same files joined by NUL (no path holds one): a worker sends one string, not 50 000. */
  joined: string;
}

/** An early listing stops (and is not used) past this many entries: a folder that large is listed the usual way. */
export const PRELIST_MAX_ENTRIES = 400_000;

/**
 * Lists `root` as the index's crawl does under the default settings, but skipping every folder named
 * `node_modules` and every hidden name (the index uses the result only when its settings prune those too).
 * Symbolic links are skipped. Each folder is stat'ed before it is read: if the stat is unchanged later (and not
 * racy), so is the list of its entries. Undefined when the root cannot be read or there are over `maxEntries`.
 * Self-contained: a worker runs its source.
 */
export function prelist(fs: typeof fsModule, root: string, maxEntries: number): Prelisting | undefined {
  try {
    const real = fs.realpathSync(root);
    const started = Date.now();
    const folders: string[] = [];
    const stats: number[] = [];
    const files: string[] = [];
    const queue = [''];
    let entries = 0;
    while (queue.length) {
      const rel = queue.pop() as string;
      const absolute = rel ? `${real}/${rel}` : real;
      let stat: fsModule.Stats | undefined;
      let dirents: fsModule.Dirent[];
      try {
        stat = fs.statSync(absolute);
        dirents = fs.readdirSync(absolute, { withFileTypes: true });
      } catch {
        // Gone or unreadable: recorded with no stat, so the index reads it again itself.
        if (rel === '') return undefined;
        folders.push(rel);
        stats.push(NaN, NaN, NaN);
        continue;
      }
      folders.push(rel);
      stats.push(stat.mtimeMs, stat.ctimeMs, stat.ino);
      entries += dirents.length;
      if (entries > maxEntries) return undefined;
      for (const e of dirents) {
        if (e.name.startsWith('.')) continue;
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (e.name !== 'node_modules') queue.push(child);
        } else if (e.isFile()) files.push(child);
      }
    }
    files.sort();
    return { root: real, started, finished: Date.now(), folders, stats, files, joined: files.join('\0') };
  } catch {
    return undefined;
  }
}
