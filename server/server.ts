// createNotesServer(deps): builds the MCP server with everything it offers. No side effects at import.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { NotesConfig } from '../src/core/config/schema';
import { registerPrompts } from './prompts';
import { registerResources } from './resources';
import { NotesContext } from './tools/context';
import { skipsOutputCheck } from './structured-json';
import { registerTools } from './tools/index';
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

type OutputCheck = (tool: unknown, result: unknown, toolName: string) => Promise<void>;

/**
 * The SDK checks each tool result against the tool's output schema (with zod) before sending it. An answer the
 * text workers encoded as bytes (search_files) would have to be decoded into objects for that: on the benchmark's
 * 8.6 MB answer, 8 386 records parsed and checked on the protocol thread. Its records are made by one function
 * (encodeMatches), whose output the tests hold to the advertised schema, so that check is skipped for such results,
 * and for the results of tools marked `unchecked` (list_files, whose 50 000 paths took it 7 ms). Should the SDK's
 * method be gone (another version), every result is checked, decoded: slower, still right.
 */
export function skipCheckOfEncodedAnswers(server: McpServer): void {
  const sdk = server as unknown as { validateToolOutput?: OutputCheck };
  const check = sdk.validateToolOutput;
  if (typeof check !== 'function') return;
  sdk.validateToolOutput = function (this: unknown, tool, result, toolName) {
    return skipsOutputCheck(result) ? Promise.resolve() : check.call(this, tool, result, toolName);
  };
}

export function createNotesServer(deps: NotesServerDeps): McpServer {
  const disabled = disabledCategories(deps.config);
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Notes', version: SERVER_VERSION },
    {
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: { listChanged: true }, prompts: { listChanged: true }, completions: {} },
      instructions:
        `Notes workspace at ${deps.workspaceRoot}. Notes are markdown files; every path in arguments and results is workspace-relative with "/" separators. ` +
        'Use search_files to find notes, get_note_metadata for frontmatter, tags and links, and the editor tools to work in the note open in VS Code.' +
        (disabled.length ? ` Disabled tool categories (integrations.mcp.tools): ${disabled.join(', ')}.` : ''),
      jsonSchemaValidator: new LazySchemaValidator(),
    },
  );
  skipCheckOfEncodedAnswers(server);
  const ctx = new NotesContext(server, deps);
  registerTools(ctx);
  const watchers = registerResources(ctx);
  registerPrompts(ctx);
  // Live configuration (see NotesContext.applyConfig); stopped with the connection so the process can exit.
  const stopWatchingConfig = deps.watchConfig?.((next) => ctx.applyConfig(next));
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    stopWatchingConfig?.();
    previousOnClose?.();
    watchers.dispose();
    ctx.bridge.dispose();
    ctx.dispose();
  };
  // Listing, watching and indexing the workspace wait until the handshake is done, so they never delay it; only
  // the text worker threads boot meanwhile, on other cores.
  ctx.prepareBackgroundWork();
  const previousOnInitialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    previousOnInitialized?.();
    ctx.startBackgroundWork();
  };
  return server;
}
