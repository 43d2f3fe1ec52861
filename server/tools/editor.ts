// Editor tools: get_editor_content, set_editor_content, insert_at_cursor, through the editor bridge to VS Code.
import { z } from 'zod';
import type { EditorContent, EditResult } from '../../src/core/bridge/protocol';
import { NotesError } from '../../src/core/errors';
import { REPLY_ROOM } from '../limits';
import type { NotesContext } from './context';
import { defineTool, maxReplyBytes, replyBytesFor } from './define-tool';

const editOutput = {
  success: z.boolean().describe('True when VS Code applied the edit.'),
  path: z.string().nullable().describe('Workspace-relative path of the edited document, or null when it is outside the workspace or untitled.'),
  uri: z.string().describe('URI of the edited document.'),
  edits: z.number().describe('Number of places edited (one per cursor for insert_at_cursor).'),
};

/** The bridge's answer as the edit tools report it. */
function editRecord(r: EditResult): { success: boolean; path: string | null; uri: string; edits: number } {
  return { success: r.applied, path: r.path, uri: r.uri, edits: r.edits };
}

/**
 * The bytes of get_editor_content's reply: the text comes twice (the text block and structuredContent.content), as
 * JSON strings, with the other fields once and the envelope around them.
 */
function editorReplyBytes(editor: EditorContent): number {
  const { content, omittedLength, ...about } = editor;
  // A text the window left out would take at least a byte a code unit, and its quotes.
  const text = omittedLength === undefined ? Buffer.byteLength(JSON.stringify(content)) : omittedLength + 2;
  return 2 * text + Buffer.byteLength(JSON.stringify({ ...about, content: '' })) + REPLY_ROOM;
}

/** The bytes of the answer's fields but the text, at their shortest (editorReplyBytes counts them so). */
const LEAST_FIELDS_BYTES = Buffer.byteLength(JSON.stringify({ path: null, uri: '', languageId: '', isDirty: false, content: '' }));

/**
 * The longest text (UTF-16 code units) that can fit in a reply of `room` bytes: each unit takes at least a byte, the
 * text comes twice, each time in quotes, and the other fields take at least LEAST_FIELDS_BYTES. The window leaves a
 * longer one out (only its length is sent), as it could never be answered.
 */
function longestText(room: number): number {
  return Math.max(0, Math.floor((room - REPLY_ROOM - LEAST_FIELDS_BYTES - 4) / 2));
}

/**
 * A document whose answer would pass the reply limit: what it is, and the one way to get its text in pieces,
 * read_file on its saved file (which an untitled document, or one outside the workspace, must first become).
 */
function tooLargeForReply(editor: EditorContent, bytes: number, limit: number): NotesError {
  const omitted = editor.omittedLength !== undefined;
  const what =
    `The document in the editor (${editor.uri}) is too large to answer whole: its ${editor.omittedLength ?? editor.content.length} characters make an answer of ` +
    `${omitted ? 'at least' : 'about'} ${bytes} bytes (the text comes twice, as the text block and in structuredContent), over the limit of ${limit} bytes.`;
  const pieces = 'with read_file and its offset and length arguments';
  const advice =
    editor.path === null
      ? `It is not a file of this workspace (untitled, or outside it): save it into the workspace, then read it in pieces ${pieces}.`
      : editor.isDirty
        ? `It has unsaved changes: save it, then read "${editor.path}" in pieces ${pieces}.`
        : `Its saved file holds the same text: read "${editor.path}" in pieces ${pieces}.`;
  return new NotesError('FILE_TOO_LARGE', `${what} ${advice}`);
}

export function registerEditorTools(ctx: NotesContext): void {
  defineTool(ctx, {
    name: 'get_editor_content',
    category: 'editor',
    title: 'Get editor content',
    description:
      "Return the full text of the active editor in VS Code (usually markdown), including unsaved changes, with the document's path and whether it is dirty. Needs VS Code open on this workspace with the Notes App extension.",
    input: {},
    output: {
      content: z.string().describe('Current text of the editor, unsaved changes included.'),
      path: z.string().nullable().describe('Workspace-relative path, or null for untitled or outside documents.'),
      uri: z.string().describe('Document URI.'),
      languageId: z.string().describe('VS Code language id, e.g. markdown.'),
      isDirty: z.boolean().describe('True when the document has unsaved changes.'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async (_args, extra) => {
      // The reply also echoes the request id, which the client chose; the limit named is the reply limit.
      const room = replyBytesFor(ctx, extra);
      const content = await ctx.bridge.getEditorContent(longestText(room));
      const bytes = editorReplyBytes(content);
      // The answer's size named counts the request id too, so it is always over the limit it is said to pass.
      if (bytes > room) throw tooLargeForReply(content, bytes + (maxReplyBytes(ctx) - room), maxReplyBytes(ctx));
      return { structured: content, text: content.content };
    },
  });

  defineTool(ctx, {
    name: 'set_editor_content',
    category: 'editor',
    title: 'Set editor content',
    description:
      'Replace the whole text of the active VS Code editor. The change is an ordinary edit: it can be undone in VS Code and is not saved to disk until the user (or auto-save) saves.',
    input: { content: z.string().describe('The new full text of the active editor.') },
    output: editOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async ({ content }) => {
      return { structured: editRecord(await ctx.bridge.setEditorContent(content)) };
    },
  });

  defineTool(ctx, {
    name: 'insert_at_cursor',
    category: 'editor',
    title: 'Insert at cursor',
    description:
      'Insert text at the cursor of the active VS Code editor (at every cursor when there are several; a selection is replaced). Undoable, not saved automatically.',
    input: { content: z.string().describe('Text to insert.') },
    output: editOutput,
    // Destructive: a selection is replaced, so text can be lost (an insertion with no selection only adds).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    run: async ({ content }) => {
      return { structured: editRecord(await ctx.bridge.insertAtCursor(content)) };
    },
  });
}
