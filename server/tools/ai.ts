// AI tools: summarize_note (client sampling when offered, else an extractive summary) and extract_tasks.
import { z } from 'zod';
import { splitNote } from '../../src/core/notes/frontmatter';
import { analysedPart } from '../../src/core/notes/limits';
import { headOf } from '../../src/core/notes/summary';
import { TASK_STATUSES } from '../../src/core/notes/tasks';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';

export const DEFAULT_SUMMARY_LENGTH = 500;
export const SAMPLING_TIMEOUT_MS = 20000;

const statuses = [...new Set(Object.values(TASK_STATUSES))] as [string, ...string[]];
const markers = Object.entries(TASK_STATUSES)
  .map(([marker, status]) => `[${marker}] ${status}`)
  .join(', ');

async function sampleSummary(ctx: NotesContext, body: string, maxLength: number, signal: AbortSignal): Promise<string> {
  const result = await ctx.server.server.createMessage(
    {
      systemPrompt: 'You summarize markdown notes faithfully and concisely. Answer with the summary only.',
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize this note in at most ${maxLength} characters:\n\n${body}` } }],
      maxTokens: Math.max(64, Math.ceil(maxLength / 2)),
      includeContext: 'none',
    },
    // Not past the end of the client's input: no answer can come then, and the server would wait out the timeout.
    { timeout: SAMPLING_TIMEOUT_MS, signal: ctx.deps.inputEnded ? AbortSignal.any([signal, ctx.deps.inputEnded]) : signal },
  );
  if (result.content.type !== 'text' || !result.content.text.trim()) throw new Error('the client returned no text');
  const text = result.content.text.trim();
  return text.length > maxLength ? `${headOf(text, maxLength - 1).trimEnd()}…` : text;
}

export function registerAiTools(ctx: NotesContext): void {
  defineTool(ctx, {
    name: 'summarize_note',
    category: 'ai',
    title: 'Summarize note',
    description: `Summarize a note in at most maxLength characters (default ${DEFAULT_SUMMARY_LENGTH}). When the client supports MCP sampling its model writes the summary; otherwise (or if sampling fails or takes over ${SAMPLING_TIMEOUT_MS / 1000} s) the note's most representative sentences are extracted. \`method\` says which one produced it.`,
    input: {
      path: z.string().min(1).describe('Path of the note, workspace-relative or absolute inside the workspace.'),
      maxLength: z.number().int().min(20).max(10000).optional().describe(`Maximum length of the summary in characters (default ${DEFAULT_SUMMARY_LENGTH}).`),
    },
    output: {
      path: z.string(),
      summary: z.string(),
      method: z.enum(['sampling', 'extractive']).describe('sampling: written by the client model; extractive: sentences taken from the note.'),
      maxLength: z.number(),
      truncated: z.boolean().describe('True when the note is over 1 MB and only its first 1 MB was summarized.'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
    run: async ({ path, maxLength }, extra) => {
      const limit = maxLength ?? DEFAULT_SUMMARY_LENGTH;
      const { path: relative, text: whole } = await (await ctx.files()).readText(path);
      const { text, truncated } = analysedPart(whole);
      const { body } = splitNote(text);
      // A note with nothing after its frontmatter has nothing for a model to summarise: asked, it would write about
      // the empty text it was given.
      if (body.trim() !== '' && ctx.server.server.getClientCapabilities()?.sampling) {
        try {
          const summary = await sampleSummary(ctx, body, limit, extra.signal);
          return { structured: { path: relative, summary, method: 'sampling' as const, maxLength: limit, truncated } };
        } catch (err) {
          ctx.deps.log('warn', `summarize_note: sampling failed, using the extractive summary: ${(err as Error).message}`);
        }
      }
      return { structured: { path: relative, summary: await ctx.analyser.summary(text, limit, extra.signal), method: 'extractive' as const, maxLength: limit, truncated } };
    },
  });

  defineTool(ctx, {
    name: 'extract_tasks',
    category: 'ai',
    title: 'Extract tasks',
    description: `List the task-list items of a note (\`- [ ] text\`) with their status and 1-based line. Markers: ${markers}.`,
    input: { path: z.string().min(1).describe('Path of the note, workspace-relative or absolute inside the workspace.') },
    output: {
      path: z.string(),
      tasks: z.array(z.object({ text: z.string(), status: z.enum(statuses), line: z.number().describe('1-based line in the file.') })),
      truncated: z.boolean().describe('True when tasks may be missing: the note is over 1 MB (only its first 1 MB is read) or it has over 5000 tasks.'),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ path }, extra) => {
      const { path: relative, text } = await (await ctx.files()).readText(path);
      return { structured: { path: relative, ...(await ctx.analyser.tasks(text, extra.signal)) } };
    },
  });
}
