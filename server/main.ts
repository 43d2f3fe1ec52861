// Process entry: argv/env -> configuration and workspace -> createNotesServer -> stdio transport.
import './fast-start'; // first: settings that must precede every other module's start-up code
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { InitializeRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { configFilePath, logDir } from '../src/core/config/paths';
import { keepingUsableSettings, loadConfigFile, parseConfigBytes, useConfigLoadMemo } from '../src/core/config/load';
import { ConfigStore } from '../src/core/config/store';
import { CONFIG_VERSION, type NotesConfig } from '../src/core/config/schema';
import { createPathFilter } from '../src/core/workspace/listing';
import { cacheDir } from '../src/core/workspace/listing-hint';
import { handshakeDone, startupPathRun } from './code-cache-point';
import { configLoadCache } from './config-load-cache';
import { limitsFromFlags, maxSendBytes, type ServerLimits } from './limits';
import { startEarlyWork } from './early-start';
import { collectSecrets, Logger, type LogLevel } from './logger';
import { snapshotBeingBuilt } from './per-process';
import { createNotesServer } from './server';
import { registerTestHooks, testHooksEnabled } from './test-hooks';
import { HardenedStdioTransport } from './transport';
import { SERVER_NAME, SERVER_VERSION } from './version';

const USAGE = `Usage: notesapp-mcp [--workspace DIR] [--config PATH]

MCP server for a folder of notes, speaking JSON-RPC 2.0 over stdio.
  --workspace DIR   notes folder (else NOTESAPP_WORKSPACE, else workspace.defaultPath, else the current directory)
  --config PATH     config.json (else NOTESAPP_CONFIG_PATH, else the platform path)
  --rate-limit N    requests per minute (default 100; raise for benchmarks only)
  --timeout-ms N    operation timeout in milliseconds (default 30000; raise for benchmarks only)
  --version         print the version and exit
  --help            print this text and exit`;

// stderr plus ~/.notesapp/logs/mcp-server.log; created on first use so --help and --version touch no file.
let logger: Logger | undefined;
const getLogger = (): Logger => (logger ??= new Logger({ file: path.join(logDir(), 'mcp-server.log') }));
function log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  getLogger().log(level, message, fields);
}

/** This bundle's build (set by esbuild.mjs); run from the sources there is none. */
declare const NOTESAPP_BUILD_ID: string | undefined;

/**
 * Keeps what reading the config file gives in the cache folder, for the next start of this build with the same file
 * (see config-load-cache.ts). Run from the sources, or with the caches off (NOTESAPP_NO_CODE_CACHE), nothing is kept.
 */
function rememberConfigReads(): void {
  const dir = cacheDir();
  const build = typeof NOTESAPP_BUILD_ID === 'string' ? NOTESAPP_BUILD_ID : undefined;
  if (!dir || !build) return;
  useConfigLoadMemo(configLoadCache(dir, build, (message) => log('debug', message)));
}

function loadConfig(file: string): { config: NotesConfig; unusable: boolean; readError?: string } {
  // Same reading as the extension: migrated in memory, invalid fields defaulted; the server never writes the file.
  const { config, problems, migrated, migrationNotes, readError, syntaxError } = loadConfigFile(file);
  if (migrated) log('info', `Configuration ${file} is of an older version; migrated in memory (the file is not changed): ${migrationNotes.map((n) => n.trim()).join('; ')}`);
  if (readError !== undefined || syntaxError !== undefined) {
    log('error', `Configuration ${file} cannot be used; the server starts on the defaults:\n  ${problems.join('\n  ')}`);
  } else if (problems.length) {
    // Each problem says what stands in its place: a default, or nothing for a setting this version does not know.
    log('error', `Configuration ${file} has problems:\n  ${problems.join('\n  ')}`);
  }
  return { config, unusable: (readError ?? syntaxError) !== undefined, ...(readError === undefined ? {} : { readError }) };
}

/**
 * Follows changes of the config file (read-only: the server never writes it) so that a running server uses what
 * the extension or an editor changed. Secrets and the log level are applied here, before anything is logged.
 *
 * A file that cannot be used (a comma missing in a save while it is being edited, or unreadable) gives the defaults
 * in memory; applying them would lift the limits and exclusions the file sets and rebuild the workspace index twice
 * for one typo. The server keeps the settings it had instead, except that a server or tool category the readable
 * part of the file turns off is off.
 */
function configWatcher(file: string, start: { config: NotesConfig; unusable: boolean; readError?: string }): (apply: (config: NotesConfig) => void) => () => void {
  return (apply) => {
    const store = new ConfigStore({
      file,
      readOnly: true,
      // Logged at the start already: once while it lasts.
      unreadable: start.readError,
      logger: { info: (m) => log('info', m), warn: (m) => log('warn', m), error: (m) => log('error', m) },
    });
    const follow = keepingUsableSettings(file, start.config, 'the server');
    let current = start.config;
    // From the read the server started with: a save between it and the start of the watch is applied too.
    return store.watchConfig((read, _old, { unusable }) => {
      const { config: next, warning } = follow(read, unusable);
      if (warning) log('warn', warning);
      // A file fixed back to the settings kept meanwhile changes nothing.
      if (JSON.stringify(next) === JSON.stringify(current)) return;
      current = next;
      getLogger().addSecrets(collectSecrets(next));
      getLogger().setLevel(next.development.debugLogging ? 'debug' : 'info');
      apply(next);
      log('info', `Configuration ${file} changed; the new values apply from the next request`);
    }, { since: start });
  };
}

/**
 * The folder to serve, or the exit status after saying why there is none: `--workspace`, else NOTESAPP_WORKSPACE (an
 * empty one counts as unset), else workspace.defaultPath, which is taken as written (an absolute path, ~ not
 * expanded, as the extension takes it), else the current directory.
 */
function workspaceFolder(flag: string | undefined, configPath: string, config: NotesConfig): string | number {
  if (flag === '') {
    process.stderr.write(`notesapp-mcp: --workspace needs a folder, got an empty value\n\n${USAGE}\n`);
    return 2;
  }
  const defaultPath = config.workspace.defaultPath;
  const given = flag ?? (process.env.NOTESAPP_WORKSPACE || undefined);
  if (given === undefined && defaultPath && !path.isAbsolute(defaultPath)) {
    process.stderr.write(
      `notesapp-mcp: workspace.defaultPath "${defaultPath}" in ${configPath} is not an absolute path (it is taken as written; a leading ~ is not expanded): set the folder's full path there, or give --workspace DIR.\n`,
    );
    return 1;
  }
  const folder = path.resolve(given ?? (defaultPath || process.cwd()));
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(folder);
  } catch {
    stat = undefined;
  }
  if (!stat) {
    process.stderr.write(`notesapp-mcp: workspace folder not found: ${folder}\n`);
    return 1;
  }
  if (!stat.isDirectory()) {
    process.stderr.write(`notesapp-mcp: the workspace ${folder} is not a folder: give the folder that holds the notes\n`);
    return 1;
  }
  return folder;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        workspace: { type: 'string' },
        config: { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean' },
        'rate-limit': { type: 'string' },
        'timeout-ms': { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (args.version) {
    process.stderr.write(`${SERVER_NAME} ${SERVER_VERSION}\n`);
    return 0;
  }
  let limits: ServerLimits;
  try {
    limits = limitsFromFlags(args, process.env, testHooksEnabled());
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.config === '') {
    // path.resolve('') is the current folder: its settings, turned-off tools included, would be silently lost.
    process.stderr.write(`notesapp-mcp: --config needs a file, got an empty value\n\n${USAGE}\n`);
    return 2;
  }
  let configPath: string;
  try {
    configPath = path.resolve(args.config ?? configFilePath());
  } catch (err) {
    // A relative NOTESAPP_CONFIG_PATH: a usage error like a bad flag, not a crash.
    process.stderr.write(`notesapp-mcp: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  rememberConfigReads();
  const start = loadConfig(configPath);
  const { config } = start;
  if (!config.integrations.mcp.enabled) {
    process.stderr.write(`notesapp-mcp: the MCP server is disabled (integrations.mcp.enabled is false in ${configPath}); set it to true to use it.\n`);
    return 1;
  }
  getLogger().addSecrets(collectSecrets(config));
  if (config.development.debugLogging) getLogger().setLevel('debug');
  const workspaceRoot = workspaceFolder(args.workspace, configPath, config);
  if (typeof workspaceRoot === 'number') return workspaceRoot;
  // Created first (it touches stdin and stdout only once connected): the index's background work waits for it.
  // The code cache is made once the first tools/list is answered, when the loader has one to make (see code-cache-point.ts).
  const onAnswered = (method: string): void => {
    if (method === 'initialize') handshakeDone();
    else if (method === 'tools/list') startupPathRun();
  };
  const transport = new HardenedStdioTransport({ limits, log, onAnswered });
  const waitForOutput = () => transport.whenIdle();
  const server = createNotesServer({
    workspaceRoot,
    config,
    configPath,
    log,
    watchConfig: configWatcher(configPath, start),
    waitForOutput,
    inputEnded: transport.inputEnded,
    maxResultBytes: maxSendBytes(limits),
  });
  if (testHooksEnabled()) registerTestHooks(server, log);
  await server.connect(transport);
  log('info', `${SERVER_NAME} ${SERVER_VERSION} serving ${workspaceRoot} over stdio`);
  return -1; // keep running until stdin closes
}

const run = () =>
  main().then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err) => {
      process.stderr.write(`notesapp-mcp: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );

/**
 * Runs, while a start-up snapshot is built, code every start runs first (reading a configuration, compiling the
 * exclude globs, parsing the initialize request, making tools/list's JSON Schemas), so that the snapshot holds it
 * compiled. Paired A/B from the snapshot: initialize 8 + 5 ms sooner, the first tools/list answer 6.5 ms more. Pure
 * functions of their input only: what they leave in the heap is the same for every process.
 */
function warmUp(): void {
  // The MCP SDK's schemas, which the bundle builds on first use (see lazy-sdk-schemas.mjs), are left to each process
  // but for those used here: building all 154 into the snapshot made its blob 7.24 -> 7.56 MB and a start from it
  // no faster (paired A/B, 30 rounds twice: 4.3 and 1.0 ms slower).
  const { config } = parseConfigBytes(Buffer.from(JSON.stringify({ version: CONFIG_VERSION, search: { maxResults: 100 }, integrations: { mcp: { enabled: true } } })));
  // The exclude globs' compilation (picomatch), which making the server's objects does.
  createPathFilter({ excludePatterns: config.files.excludePatterns, showHiddenFiles: config.files.showHiddenFiles });
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'client', version: '1' } } };
  JSONRPCMessageSchema.parse(initialize);
  InitializeRequestSchema.parse(initialize);
  // tools/list's JSON Schemas, as the SDK makes them from the tools' zod schemas.
  const sample = z.object({
    path: z.string().min(1).describe('A note'),
    limit: z.number().int().min(1).max(10).optional(),
    flag: z.boolean().default(false),
    mode: z.enum(['a', 'b']).optional(),
    tags: z.array(z.string()).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  });
  toJsonSchemaCompat(sample, { strictUnions: true, pipeStrategy: 'input' });
  toJsonSchemaCompat(sample, { strictUnions: true, pipeStrategy: 'output' });
}

const snapshot = snapshotBeingBuilt();
if (snapshot) {
  warmUp();
  // Loaded into a start-up snapshot (see snapshot-entry.ts): each process restored from it starts here, with its
  // own arguments and environment, doing first what the loader (dist/server.js) does before it loads this bundle.
  snapshot.setDeserializeMainFunction(() => {
    startEarlyWork(process.argv.slice(2), process.env);
    void run();
  });
} else {
  void run();
}
