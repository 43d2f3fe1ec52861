// Workspace info and statistics records (spec 2.4), computed from the notes' sizes and modification times.
import fs from 'node:fs/promises';
import path from 'node:path';
import { comparePaths } from './listing';

export interface WorkspaceInfo {
  path: string;
  name: string;
  noteCount: number;
  /** Total bytes of the notes. */
  size: number;
}

export interface RecentFile {
  path: string;
  /** ISO 8601 modification time. */
  modified: string;
  size: number;
}

export interface WorkspaceStats {
  totalNotes: number;
  totalSize: number;
  /** Folder (workspace-relative, "." for the root) to the number of notes directly in it. */
  notesByFolder: Record<string, number>;
  /** The RECENT_FILES_COUNT most recently modified notes, newest first. */
  recentFiles: RecentFile[];
}

export const RECENT_FILES_COUNT = 10;

/** A note's size and modification time, as the index keeps them or as read from the disk. */
export interface NoteStat {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Stats `notes` on the disk (the fallback when the index cannot be trusted); notes gone meanwhile are left out. */
export async function statNotes(root: string, notes: readonly string[]): Promise<NoteStat[]> {
  const out: NoteStat[] = [];
  // Bounded parallelism: fast on large workspaces without exhausting file handles.
  for (let i = 0; i < notes.length; i += 64) {
    const batch = await Promise.all(
      notes.slice(i, i + 64).map(async (rel) => {
        try {
          const st = await fs.stat(path.join(root, ...rel.split('/')));
          return { path: rel, size: st.size, mtimeMs: st.mtimeMs };
        } catch {
          return undefined; // removed since listing
        }
      }),
    );
    for (const s of batch) if (s) out.push(s);
  }
  return out;
}

export function workspaceInfo(displayPath: string, stats: readonly NoteStat[]): WorkspaceInfo {
  let size = 0;
  for (const n of stats) size += n.size;
  return { path: displayPath, name: path.basename(displayPath), noteCount: stats.length, size };
}

/**
 * Newer first by the time the answer shows (whole milliseconds); equal times by path as every listing sorts, so the
 * order depends neither on the locale nor on a fraction of a millisecond the answer does not show.
 */
function newerFirst(a: NoteStat, b: NoteStat): number {
  return Math.floor(b.mtimeMs) - Math.floor(a.mtimeMs) || comparePaths(a.path, b.path);
}

export function workspaceStats(stats: readonly NoteStat[]): WorkspaceStats {
  // A Map, then own properties: a folder may be named "__proto__".
  const byFolder = new Map<string, number>();
  let totalSize = 0;
  // The newest RECENT_FILES_COUNT, kept sorted while scanning: no sort of every note.
  const recent: NoteStat[] = [];
  for (const n of stats) {
    totalSize += n.size;
    const slash = n.path.lastIndexOf('/');
    const folder = slash < 0 ? '.' : n.path.slice(0, slash);
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
    if (recent.length === RECENT_FILES_COUNT && newerFirst(n, recent[recent.length - 1]) >= 0) continue;
    let at = recent.length;
    while (at > 0 && newerFirst(n, recent[at - 1]) < 0) at--;
    recent.splice(at, 0, n);
    if (recent.length > RECENT_FILES_COUNT) recent.pop();
  }
  const recentFiles = recent.map((n) => ({ path: n.path, modified: new Date(n.mtimeMs).toISOString(), size: n.size }));
  return { totalNotes: stats.length, totalSize, notesByFolder: Object.fromEntries(byFolder), recentFiles };
}
