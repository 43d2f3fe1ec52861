// Workspace info and statistics records (spec 2.4) computed from the listing.
import fs from 'node:fs/promises';
import path from 'node:path';

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

interface NoteStat {
  path: string;
  size: number;
  mtimeMs: number;
}

async function statNotes(root: string, notes: readonly string[]): Promise<NoteStat[]> {
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

export async function workspaceInfo(root: string, displayPath: string, notes: readonly string[]): Promise<WorkspaceInfo> {
  const stats = await statNotes(root, notes);
  return { path: displayPath, name: path.basename(displayPath), noteCount: stats.length, size: stats.reduce((s, n) => s + n.size, 0) };
}

export async function workspaceStats(root: string, notes: readonly string[]): Promise<WorkspaceStats> {
  const stats = await statNotes(root, notes);
  const notesByFolder: Record<string, number> = {};
  for (const n of stats) {
    const folder = path.posix.dirname(n.path);
    notesByFolder[folder] = (notesByFolder[folder] ?? 0) + 1;
  }
  const recentFiles = [...stats]
    .sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path))
    .slice(0, RECENT_FILES_COUNT)
    .map((n) => ({ path: n.path, modified: new Date(n.mtimeMs).toISOString(), size: n.size }));
  return { totalNotes: stats.length, totalSize: stats.reduce((s, n) => s + n.size, 0), notesByFolder, recentFiles };
}
