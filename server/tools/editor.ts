// Editor tools: get_editor_content, set_editor_content, insert_at_cursor, through the editor bridge to VS Code.
import { z } from 'zod';
import type { EditResult } from '../../src/core/bridge/protocol';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';

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
    run: async () => {
      const content = await ctx.bridge.getEditorContent();
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
