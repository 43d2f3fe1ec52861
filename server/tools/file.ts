// File tools: read_file, write_file, list_files, create_file, delete_file.
import { z } from 'zod';
import { READ_CHUNK_BYTES } from '../../src/core/workspace/file-access';
import type { NotesContext } from './context';
import { defineJsonTool, defineTool, replyBytesFor } from './define-tool';

const pathArg = z
  .string()
  .min(1)
  .describe('File path, relative to the workspace root (POSIX "/" separators) or absolute inside the workspace.');

export function registerFileTools(ctx: NotesContext): void {
  defineTool(ctx, {
    name: 'read_file',
    category: 'fileOperations',
    title: 'Read file',
    description:
      'Read a text file of the notes workspace. Files up to 1 MB come whole; larger files come in 1 MB ranges: when `truncated` is true, call again with `offset` set to `nextOffset`. The text content block is the file text itself; a second one warns when the file is not valid UTF-8.',
    input: {
      path: pathArg,
      offset: z.number().int().min(0).optional().describe('Byte offset to start reading at (default 0). For files over 1 MB.'),
      length: z.number().int().min(1).max(READ_CHUNK_BYTES).optional().describe('Number of bytes to read (default and maximum 1048576); at least one whole character comes back. For files over 1 MB.'),
    },
    output: {
      path: z.string().describe('Workspace-relative path.'),
      content: z.string().describe('The text read.'),
      size: z.number().describe('Size of the whole file in bytes.'),
      offset: z.number().describe('Byte offset of the returned text.'),
      length: z.number().describe('Bytes returned.'),
      truncated: z.boolean().describe('True when the file continues after this range.'),
      nextOffset: z.number().nullable().describe('Offset to continue from, or null at the end of the file.'),
      invalidUtf8: z
        .boolean()
        .describe('True when the bytes read are not valid UTF-8 (a file in another encoding, such as Latin-1): each invalid sequence comes back as U+FFFD, and writing this text back would replace those bytes in the file.'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ path, offset, length }) => {
      const result = await (await ctx.files()).read(path, { offset, length });
      const warnings = result.invalidUtf8
        ? [`Warning: "${result.path}" is not valid UTF-8 (it may be in another encoding, such as Latin-1 or Windows-1252). Each invalid byte sequence above is shown as U+FFFD (�); writing this text back with write_file would replace those bytes in the file.`]
        : [];
      return { structured: result, text: result.content, warnings };
    },
  });

  defineTool(ctx, {
    name: 'write_file',
    category: 'fileOperations',
    title: 'Write file',
    description:
      'Create or completely replace a text file in the workspace with the given content. Parent folders are created. The write is atomic: readers see the old or the new file, never a partial one.',
    input: { path: pathArg, content: z.string().describe('The full new text of the file (UTF-8).') },
    output: {
      success: z.literal(true),
      path: z.string().describe('Workspace-relative path written.'),
      bytes: z.number().describe('Bytes written.'),
      created: z.boolean().describe('True when the file did not exist before.'),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async ({ path, content }, extra) => {
      const result = await (await ctx.files()).write(path, content, { exclusive: false, signal: extra.signal });
      if (result.created) ctx.notesChanged();
      return { structured: { success: true as const, ...result } };
    },
  });

  defineJsonTool(ctx, {
    name: 'list_files',
    category: 'fileOperations',
    title: 'List files',
    description:
      'List every file of the workspace, recursively, as sorted workspace-relative paths. Answers JSON {"files": [paths], "count", "total", "truncated", "nextCursor"}: the paths of this answer (POSIX "/" separators, sorted by UTF-16 code units), their number, the number in the whole listing, and whether more follow. Files matching files.excludePatterns are left out, and so are hidden files (names starting with ".") unless files.showHiddenFiles is on. All paths come in one answer unless `limit` asks for fewer or they do not fit in 10 MB; when `truncated` is true, call again with `cursor` set to `nextCursor` for the paths that follow.',
    input: {
      cursor: z.string().optional().describe('Continue after this path: the `nextCursor` of the previous answer. Paths sorted after it are listed.'),
      limit: z.number().int().min(1).optional().describe('At most this many paths in the answer (default: all that fit in 10 MB).'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ cursor, limit }, extra) => {
      return { answer: await ctx.listAnswer({ cursor, limit, maxBytes: replyBytesFor(ctx, extra) }) };
    },
  });

  defineTool(ctx, {
    name: 'create_file',
    category: 'fileOperations',
    title: 'Create file',
    description:
      'Create a new text file (parent folders included). Fails if a file already exists at the path, so nothing is ever overwritten (and a repeated call changes nothing).',
    input: { path: pathArg, content: z.string().optional().describe('Initial text of the file (default: empty).') },
    output: {
      success: z.literal(true),
      path: z.string().describe('Workspace-relative path of the created file.'),
      bytes: z.number().describe('Bytes written.'),
    },
    // Idempotent as MCP means it: a repeated call has no further effect (it fails with "already exists").
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: async ({ path, content }, extra) => {
      const result = await (await ctx.files()).write(path, content ?? '', { exclusive: true, signal: extra.signal });
      ctx.notesChanged();
      return { structured: { success: true as const, path: result.path, bytes: result.bytes } };
    },
  });

  defineTool(ctx, {
    name: 'delete_file',
    category: 'fileOperations',
    title: 'Delete file',
    description:
      'Delete one file of the workspace permanently. Folders are refused. The result says which file was deleted and its size; a file that is not there (already deleted) is an error, and nothing changes.',
    input: { path: pathArg },
    output: {
      success: z.literal(true),
      deleted: z.string().describe('Workspace-relative path of the deleted file.'),
      size: z.number().describe('Size in bytes of the file that was deleted.'),
      message: z.string(),
    },
    // Idempotent as MCP means it: a repeated call has no further effect (it fails with "File not found").
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async ({ path }, extra) => {
      const result = await (await ctx.files()).delete(path, { signal: extra.signal });
      ctx.notesChanged();
      return { structured: { success: true as const, deleted: result.path, size: result.size, message: `Deleted ${result.path} (${result.size} bytes).` } };
    },
  });
}
