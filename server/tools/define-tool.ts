// The one place tools are registered: category toggles, and NotesError / thrown errors mapped to isError results.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isNotesError } from '../../src/core/errors';
import { DEFAULT_LIMITS, maxSendBytes } from '../limits';
import { clientRequestId } from '../transport';
import { dropEncodedAnswer, markEncodedAnswer, markStructuredJson, type EncodedAnswer } from '../structured-json';
import type { NotesConfig } from '../../src/core/config/schema';
import type { NotesContext } from './context';

/** `integrations.mcp.tools` keys. Note and workspace tools belong to fileOperations. */
export type ToolCategory = 'fileOperations' | 'search' | 'editor' | 'ai';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

interface ToolBase<I extends z.ZodRawShape> {
  name: string;
  category: ToolCategory;
  title: string;
  description: string;
  input: I;
  annotations: Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>;
  /**
   * For a tool whose description or argument descriptions quote settings (search.maxResults, the defaults of its
   * flags): made again from each configuration the running server takes, and the tool updated when they changed.
   */
  describe?: (config: NotesConfig) => { description: string; input: I };
}

/**
 * A tool whose answer is a record of bounded size: advertised as its output schema, sent as structuredContent and,
 * as the MCP specification asks for clients that read only text, again as JSON in the text block.
 */
export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> extends ToolBase<I> {
  output: O;
  /**
   * Returns the structured result; `text` overrides the JSON text block (e.g. raw file content). `warnings`: text
   * blocks after the first, for what a client that shows the model only the text would otherwise not see.
   */
  run: (args: z.infer<z.ZodObject<I>>, extra: ToolExtra) => Promise<{ structured: z.infer<z.ZodObject<O>>; text?: string; warnings?: string[] }>;
}

/**
 * A tool whose answer grows with the workspace (search_files, list_files): sent once, as JSON in the text block,
 * with no output schema (which would oblige it to send the same answer again as structuredContent). Its description
 * says the JSON's fields.
 */
export interface JsonToolSpec<I extends z.ZodRawShape> extends ToolBase<I> {
  /** Returns the answer's JSON, or that JSON's bytes as the text block holds them (see EncodedAnswer). */
  run: (args: z.infer<z.ZodObject<I>>, extra: ToolExtra) => Promise<{ json: string } | { answer: EncodedAnswer }>;
}

/** The largest reply a tool sends (see maxSendBytes): search_files and list_files cut their answers to fit. */
export function maxReplyBytes(ctx: NotesContext): number {
  return ctx.deps.maxResultBytes ?? maxSendBytes(DEFAULT_LIMITS);
}

/** maxReplyBytes less what the reply to this request echoes of it: its id, which the client chose. */
export function replyBytesFor(ctx: NotesContext, extra: ToolExtra): number {
  return maxReplyBytes(ctx) - Buffer.byteLength(JSON.stringify(extra.requestId === undefined ? null : clientRequestId(extra.requestId)));
}

export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(ctx: NotesContext, spec: ToolSpec<I, O>): void {
  register(ctx, spec, spec.output, async (args, extra) => {
    const { structured, text, warnings = [] } = await spec.run(args, extra);
    // Compact: the text block repeats structuredContent, and indentation would double large results.
    const block = text ?? JSON.stringify(structured);
    // The transport writes this text as the structuredContent too, instead of serialising the record again.
    if (text === undefined) markStructuredJson(block);
    return { content: [block, ...warnings].map((t) => ({ type: 'text' as const, text: t })), structuredContent: structured };
  });
}

export function defineJsonTool<I extends z.ZodRawShape>(ctx: NotesContext, spec: JsonToolSpec<I>): void {
  register(ctx, spec, undefined, async (args, extra) => {
    const made = await spec.run(args, extra);
    if ('json' in made) return { content: [{ type: 'text', text: made.json }] };
    // The transport writes the answer's bytes, made already by the workers that found it, in place of this text.
    const text = markEncodedAnswer(made.answer);
    // A request cancelled from now on gets no reply (the SDK drops it): its answer is let go.
    extra.signal.addEventListener('abort', () => dropEncodedAnswer(text), { once: true });
    return { content: [{ type: 'text', text }] };
  });
}

function register<I extends z.ZodRawShape>(
  ctx: NotesContext,
  spec: ToolBase<I>,
  outputSchema: z.ZodRawShape | undefined,
  run: (args: z.infer<z.ZodObject<I>>, extra: ToolExtra) => Promise<CallToolResult>,
): void {
  const registered = ctx.server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      ...(outputSchema ? { outputSchema } : {}),
      annotations: { title: spec.title, openWorldHint: false, ...spec.annotations },
    },
    // The SDK's callback type is generic over the shape; the arguments it passes were validated against spec.input.
    (async (args: z.infer<z.ZodObject<I>>, extra: ToolExtra): Promise<CallToolResult> => {
      try {
        return await run(args, extra);
      } catch (err) {
        if (isNotesError(err)) return errorResult(err.message);
        ctx.deps.log('error', `${spec.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return errorResult(`${spec.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }) as never,
  );
  ctx.toolCategories.set(spec.name, spec.category);
  if (!ctx.config.integrations.mcp.tools[spec.category]) {
    // Absent from tools/list; a call answers error -32602 naming the setting (see refuseUnknownTools).
    registered.disable();
  }
  // A category switched in the config file of a running server: the SDK sends notifications/tools/list_changed.
  ctx.onConfigChanged((config, previous) => {
    if (spec.describe) {
      const before = spec.describe(previous);
      const now = spec.describe(config);
      const descriptions = (input: I) => JSON.stringify(Object.values(input).map((schema) => (schema as z.ZodType).description));
      if (now.description !== before.description || descriptions(now.input) !== descriptions(before.input)) {
        registered.update({ description: now.description, paramsSchema: now.input });
      }
    }
    const on = config.integrations.mcp.tools[spec.category];
    if (on === previous.integrations.mcp.tools[spec.category]) return;
    if (on) registered.enable();
    else registered.disable();
  });
}
