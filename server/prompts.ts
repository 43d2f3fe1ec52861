// MCP prompts over notes: summarize, extract action items, improve writing; note paths complete.
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isNotesError } from '../src/core/errors';
import { textMimeType } from '../src/core/workspace/file-types';
import { completeNotePath, noteUri } from './resources';
import type { NotesContext } from './tools/context';
import { ProtocolError, ProtocolErrorCode } from './tools/protocol-error';

async function readNote(ctx: NotesContext, userPath: string): Promise<{ path: string; text: string }> {
  try {
    return await (await ctx.files()).readText(userPath);
  } catch (err) {
    if (isNotesError(err)) throw new ProtocolError(ProtocolErrorCode.invalidParams, err.message);
    throw err;
  }
}

function withNote(ctx: NotesContext, instruction: string, note: { path: string; text: string }): GetPromptResult['messages'] {
  const mimeType = textMimeType(note.path, ctx.config.files.fileExtension);
  return [
    { role: 'user', content: { type: 'text', text: instruction } },
    { role: 'user', content: { type: 'resource', resource: { uri: noteUri(note.path), mimeType, text: note.text } } },
  ];
}

export function registerPrompts(ctx: NotesContext): void {
  const pathArg = () =>
    completable(z.string().describe('Workspace-relative path of the note.'), (value) => completeNotePath(ctx, value ?? ''));

  ctx.server.registerPrompt(
    'summarize-note',
    {
      title: 'Summarize a note',
      description: 'Ask for a concise summary of a note, with its key points.',
      argsSchema: { path: pathArg(), length: z.string().optional().describe('Desired length, e.g. "3 bullet points" or "one paragraph" (default: a short paragraph and up to 5 key points).') },
    },
    async ({ path, length }) => {
      const note = await readNote(ctx, path);
      return {
        description: `Summarize ${note.path}`,
        messages: withNote(
          ctx,
          `Summarize the note "${note.path}" below${length ? ` in ${length}` : ' in a short paragraph followed by up to 5 key points'}. Stay faithful to the note; do not add facts.`,
          note,
        ),
      };
    },
  );

  ctx.server.registerPrompt(
    'extract-action-items',
    {
      title: 'Extract action items',
      description: 'Ask for every action item of a note (explicit task-list items and implicit to-dos), with owners and due dates when stated.',
      argsSchema: { path: pathArg() },
    },
    async ({ path }, extra) => {
      const note = await readNote(ctx, path);
      const { tasks } = await ctx.analyser.tasks(note.text, extra.signal);
      const known = tasks.length
        ? `The note already has these task-list items (status, line): ${tasks.map((t) => `"${t.text}" (${t.status}, line ${t.line})`).join('; ')}.`
        : 'The note has no task-list items yet.';
      return {
        description: `Action items of ${note.path}`,
        messages: withNote(
          ctx,
          `List the action items of the note "${note.path}" below as a markdown task list (- [ ] ...), open items first. Include implicit to-dos written as prose, and keep owners and due dates when the note states them. ${known}`,
          note,
        ),
      };
    },
  );

  ctx.server.registerPrompt(
    'improve-writing',
    {
      title: 'Improve the writing of a note',
      description: "Ask for a clearer, tighter version of a note that keeps its meaning, frontmatter, links and tasks.",
      argsSchema: {
        path: pathArg(),
        focus: z.string().optional().describe('What to improve, e.g. "clarity", "concision", "tone for a newsletter" (default: clarity and concision).'),
      },
    },
    async ({ path, focus }) => {
      const note = await readNote(ctx, path);
      return {
        description: `Improve ${note.path}`,
        messages: withNote(
          ctx,
          `Rewrite the note "${note.path}" below to improve ${focus?.trim() || 'clarity and concision'}. Keep its meaning, the YAML frontmatter, headings structure, [[wikilinks]], links, #tags and task items unchanged. Answer with the full revised markdown, then a short list of the changes. Do not save it unless asked; to save, call write_file with the same path.`,
          note,
        ),
      };
    },
  );
}
