// createNotesServer(deps): builds the MCP server with everything it offers. No side effects at import.
import { McpServer, type RegisteredPrompt, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import fsPromises from 'node:fs/promises';
import { z } from 'zod';
import type { NotesConfig } from '../src/core/config/schema';
import { warmUpInTurns, type WarmUpStep } from './idle-warm-up';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { structuredPlaceholder } from './structured-json';
import { NotesContext } from './tools/context';
import { registerTools } from './tools/index';
import { ProtocolError, ProtocolErrorCode } from './tools/protocol-error';
import { SERVER_NAME, SERVER_VERSION } from './version';

export interface NotesServerDeps {
  /** Absolute path of the notes workspace. */
  workspaceRoot: string;
  /** The configuration in force. */
  config: NotesConfig;
  /** Where the configuration was read from; its folder also holds the editor bridge discovery files. */
  configPath: string;
  /** Diagnostics sink; never stdout. */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Environment for the editor bridge address and token (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Resolves once the replies already sent have been written out (the transport's whenIdle()): background work
   * (the index's crawl, the reading of texts) waits for it, so a large answer is not held up.
   */
  waitForOutput?: () => Promise<void>;
  /** Aborted when the client's input has ended (the transport's inputEnded): sampling requests stop waiting. */
  inputEnded?: AbortSignal;
  /** Largest reply the transport sends (see maxSendBytes; default 10 MiB less 64 KiB): search_files and list_files cut their answers to fit. */
  maxResultBytes?: number;
  /** Starts watching the config file: `apply` gets each new configuration; returns a function that stops. */
  watchConfig?: (apply: (config: NotesConfig) => void) => () => void;
}

/**
 * What the first requests need and the handshake does not, made ready in the turns after it (see idle-warm-up.ts):
 * each of these cost the first tool call 1 to 4 ms when it was made then, and the handshake as much when made before.
 */
function afterHandshake(watchConfig: () => void): WarmUpStep[] {
  return [
    { name: 'the configuration watch', run: watchConfig },
    // node:crypto, loaded on first use (see lazy-modules.mjs), for the stand-ins of structured replies.
    { name: 'the structured replies', run: () => void structuredPlaceholder() },
    // The SDK checks every tool result with this schema, which the bundle builds on first use (lazy-sdk-schemas.mjs).
    { name: "the SDK's check of tool results", run: () => void CallToolResultSchema.safeParse({ content: [{ type: 'text', text: '' }] }) },
    // Loaded on first use as well (see lazy-modules.mjs); the tools read and write files with it.
    { name: 'node:fs/promises', run: () => void fsPromises.constants },
  ];
}

/** How long after the server is made its configuration is watched when the client has not said it is initialized. */
const CONFIG_WATCH_DELAY_MS = 1000;

function disabledCategories(config: NotesConfig): string[] {
  return Object.entries(config.integrations.mcp.tools)
    .filter(([, on]) => !on)
    .map(([name]) => name);
}

/**
 * The SDK's JSON Schema validator (Ajv, for answers to elicitation requests, which this server does not send),
 * made on first use instead of with every server: loading and setting up Ajv took about 5 ms of each start.
 */
export class LazySchemaValidator implements jsonSchemaValidator {
  private real: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.real ??= new AjvJsonSchemaValidator();
    return this.real.getValidator<T>(schema);
  }
}

type RequestCheck = (params: Record<string, unknown>) => void;

/**
 * Puts `check` in front of the SDK's handler of `method`, which still does everything else: the SDK installs its
 * handlers through the server's setRequestHandler (tools/call at the first registerTool, when the tools capability
 * is not given to its constructor, which would install it at once; prompts/get at the first registerPrompt), and
 * gets them wrapped here. Call before the first registration; returns whether the handler was wrapped.
 */
function checkBefore(server: McpServer, method: string, check: RequestCheck): () => boolean {
  let wrapped = false;
  const protocol = server.server;
  const setRequestHandler = protocol.setRequestHandler.bind(protocol);
  protocol.setRequestHandler = ((schema: { shape?: { method?: { value?: unknown } } }, handler: (request: { params: Record<string, unknown> }, extra: unknown) => unknown) => {
    if (schema.shape?.method?.value !== method) return setRequestHandler(schema as never, handler as never);
    wrapped = true;
    return setRequestHandler(schema as never, ((request: { params: Record<string, unknown> }, extra: unknown) => {
      check(request.params);
      return handler(request, extra);
    }) as never);
  }) as typeof protocol.setRequestHandler;
  return () => wrapped;
}

/**
 * A tools/call naming no tool of the server, or a disabled one, is a protocol error in every MCP revision: JSON-RPC
 * -32602. The SDK's tools/call handler answers it with a tool result (`isError`) instead; this checks the name
 * first (see checkBefore). Tools are known by what registerTool returned, so that tools registered later (the test
 * hooks) count too. `disabledBy` names the setting that disables a tool.
 */
export function refuseUnknownTools(server: McpServer, disabledBy: (name: string) => string | undefined): () => boolean {
  const tools = new Map<string, RegisteredTool>();
  const registerTool = server.registerTool.bind(server) as (name: string, config: never, callback: never) => RegisteredTool;
  server.registerTool = ((name: string, config: never, callback: never) => {
    const tool = registerTool(name, config, callback);
    tools.set(name, tool);
    return tool;
  }) as typeof server.registerTool;

  return checkBefore(server, 'tools/call', ({ name }) => {
    const tool = tools.get(name as string);
    if (tool?.enabled) return;
    if (tool) {
      const setting = disabledBy(name as string);
      const details = `Tool ${String(name)} is disabled${setting ? `: ${setting}` : ''}. It is not in tools/list while it is disabled.`;
      throw new ProtocolError(ProtocolErrorCode.invalidParams, details, { tool: name });
    }
    const available = [...tools].filter(([, t]) => t.enabled).map(([n]) => n);
    const details = `Unknown tool "${String(name)}". This server's tools: ${available.join(', ') || 'none'}.`;
    throw new ProtocolError(ProtocolErrorCode.invalidParams, details, { tool: name });
  });
}

/**
 * prompts/get naming no prompt, or with arguments that do not fit the prompt's, gets -32602 with `details`, the
 * prompt's name and each problem in `issues`, as every other -32602 of this server does; the SDK's own answers to
 * these carry no `data`. The arguments are checked against the same schema the SDK then checks them against.
 */
export function checkPromptRequests(server: McpServer): () => boolean {
  const prompts = new Map<string, { enabled: boolean; args: z.ZodObject }>();
  const registerPrompt = server.registerPrompt.bind(server) as (name: string, config: { argsSchema?: z.ZodRawShape }, callback: never) => RegisteredPrompt;
  server.registerPrompt = ((name: string, config: { argsSchema?: z.ZodRawShape }, callback: never) => {
    const prompt = registerPrompt(name, config, callback);
    prompts.set(name, { get enabled() { return prompt.enabled; }, args: z.object(config.argsSchema ?? {}) });
    return prompt;
  }) as typeof server.registerPrompt;

  return checkBefore(server, 'prompts/get', ({ name, arguments: args }) => {
    const prompt = prompts.get(name as string);
    if (!prompt?.enabled) {
      const available = [...prompts].filter(([, p]) => p.enabled).map(([n]) => n);
      throw new ProtocolError(ProtocolErrorCode.invalidParams, `Unknown prompt "${String(name)}". This server's prompts: ${available.join(', ') || 'none'}.`, { prompt: name });
    }
    const parsed = prompt.args.safeParse(args ?? {});
    if (parsed.success) return;
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ProtocolError(ProtocolErrorCode.invalidParams, `Invalid arguments for prompt ${String(name)}: ${issues.join('; ')}`, { prompt: name, issues });
  });
}

export function createNotesServer(deps: NotesServerDeps): McpServer {
  const disabled = disabledCategories(deps.config);
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Notes', version: SERVER_VERSION },
    {
      // tools and prompts ({ listChanged: true }) are declared by the first registerTool and registerPrompt, which
      // install their handlers then (see checkBefore).
      capabilities: { resources: { subscribe: true, listChanged: true }, completions: {} },
      instructions:
        `Notes workspace at ${deps.workspaceRoot}. Notes are markdown files; every path in arguments and results is workspace-relative with "/" separators. ` +
        'Use search_files to find notes, get_note_metadata for frontmatter, tags and links, and the editor tools to work in the note open in VS Code.' +
        (disabled.length ? ` Disabled tool categories (integrations.mcp.tools): ${disabled.join(', ')}.` : ''),
      jsonSchemaValidator: new LazySchemaValidator(),
    },
  );
  const ctx = new NotesContext(server, deps);
  const toolCallsChecked = refuseUnknownTools(server, (name) => {
    const category = ctx.toolCategories.get(name);
    return category && `integrations.mcp.tools.${category} is false in the configuration`;
  });
  registerTools(ctx);
  // Another version of the SDK could install its tools/call handler some other way: fail here, not answer wrongly.
  if (!toolCallsChecked()) throw new Error('the MCP SDK did not install its tools/call handler through setRequestHandler');
  const watchers = registerResources(ctx);
  const promptRequestsChecked = checkPromptRequests(server);
  registerPrompts(ctx);
  if (!promptRequestsChecked()) throw new Error('the MCP SDK did not install its prompts/get handler through setRequestHandler');
  // Live configuration (see NotesContext.applyConfig), watched once the handshake is done (the first step of the
  // warm-up below), or a second after the server is made for a client that never says it is initialized: setting up
  // the watches took about 2.5 ms, which the handshake need not wait for. A change made before then is still seen
  // (the watch rereads the file as it starts). Stopped with the connection so the process can exit.
  let stopWatchingConfig: (() => void) | undefined;
  let stopWarmUp: (() => void) | undefined;
  let closed = false;
  const watchConfig = () => {
    clearTimeout(configWatchTimer);
    if (!closed && !stopWatchingConfig) stopWatchingConfig = deps.watchConfig?.((next) => ctx.applyConfig(next));
  };
  const configWatchTimer = setTimeout(watchConfig, CONFIG_WATCH_DELAY_MS);
  configWatchTimer.unref();
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    closed = true;
    stopWarmUp?.();
    clearTimeout(configWatchTimer);
    stopWatchingConfig?.();
    previousOnClose?.();
    watchers.dispose();
    ctx.dispose();
  };
  // Listing, watching and indexing the workspace wait until the handshake is done, so they never delay it; only
  // when the loader booted a text worker to list the workspace early do the others boot meanwhile, on other cores
  // (see prepareBackgroundWork).
  ctx.prepareBackgroundWork();
  const previousOnInitialized = server.server.oninitialized;
  let initialized = false;
  server.server.oninitialized = () => {
    previousOnInitialized?.();
    // Once: a client may send notifications/initialized again.
    if (!initialized) {
      ctx.startBackgroundWork();
      stopWarmUp = warmUpInTurns(afterHandshake(watchConfig), (message) => deps.log('debug', message));
    }
    initialized = true;
  };
  return server;
}
