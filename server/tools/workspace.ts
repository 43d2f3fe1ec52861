// Workspace tools: get_workspace_info, get_workspace_stats.
import { z } from 'zod';
import { RECENT_FILES_COUNT, workspaceInfo, workspaceStats, type NoteStat, type WorkspaceStats } from '../../src/core/workspace/stats';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';

export const workspaceInfoShape = {
  path: z.string().describe('Absolute path of the workspace folder.'),
  name: z.string().describe('Folder name.'),
  noteCount: z.number().describe('Number of notes (markdown files, outside excluded patterns).'),
  size: z.number().describe('Total size of the notes in bytes.'),
};

export async function currentWorkspaceInfo(ctx: NotesContext) {
  return workspaceInfo(ctx.deps.workspaceRoot, await ctx.noteStats());
}

/**
 * The statistics of one answer of noteStats(). The index gives the same array again while no note changed, so on a
 * large workspace a repeated call does not count 50 000 notes by folder again.
 */
const statsOf = new WeakMap<readonly NoteStat[], WorkspaceStats>();

function statsFor(notes: readonly NoteStat[]): WorkspaceStats {
  let stats = statsOf.get(notes);
  if (!stats) statsOf.set(notes, (stats = workspaceStats(notes)));
  return stats;
}

export function registerWorkspaceTools(ctx: NotesContext): void {
  defineTool(ctx, {
    name: 'get_workspace_info',
    category: 'fileOperations',
    title: 'Get workspace info',
    description: 'Return the workspace folder: its absolute path, name, number of notes and their total size in bytes.',
    input: {},
    output: workspaceInfoShape,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async () => ({ structured: await currentWorkspaceInfo(ctx) }),
  });

  defineTool(ctx, {
    name: 'get_workspace_stats',
    category: 'fileOperations',
    title: 'Get workspace statistics',
    description: `Return statistics on the notes: total count and size, the number of notes per folder ("." is the root), and the ${RECENT_FILES_COUNT} most recently modified notes, newest first.`,
    input: {},
    output: {
      totalNotes: z.number(),
      totalSize: z.number().describe('Bytes.'),
      notesByFolder: z.record(z.string(), z.number()).describe('Workspace-relative folder ("." for the root) to the number of notes directly in it.'),
      recentFiles: z
        .array(z.object({ path: z.string(), modified: z.string().describe('ISO 8601.'), size: z.number() }))
        .describe(`Up to ${RECENT_FILES_COUNT} notes, newest first.`),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async () => ({ structured: statsFor(await ctx.noteStats()) }),
  });
}
