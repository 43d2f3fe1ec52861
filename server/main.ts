// Process entry: argv/env -> configuration and workspace -> createNotesServer -> stdio transport.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFilePath } from '../src/core/config/paths';
import { loadConfigFile } from '../src/core/config/load';
import { type NotesConfig } from '../src/core/config/schema';
import { createNotesServer } from './server';
import { SERVER_NAME, SERVER_VERSION } from './version';

const USAGE = `Usage: notesapp-mcp [--workspace DIR] [--config PATH]

MCP server for a folder of notes, speaking JSON-RPC 2.0 over stdio.
  --workspace DIR   notes folder (else NOTESAPP_WORKSPACE, else workspace.defaultPath, else the current directory)
  --config PATH     config.json (else NOTESAPP_CONFIG_PATH, else the platform path)
  --version         print the version and exit
  --help            print this text and exit`;

function log(level: string, message: string): void {
  process.stderr.write(`[${new Date().toISOString()}] [${level}] ${message}\n`);
}

function loadConfig(file: string): NotesConfig {
  // Same reading as the extension: migrated in memory, invalid fields defaulted; the server never writes the file.
  const { config, problems, migrated } = loadConfigFile(file);
  if (migrated) log('info', `Configuration ${file} is of an older version; migrated in memory`);
  if (problems.length) log('error', `Configuration ${file} is invalid; using defaults for:\n  ${problems.join('\n  ')}`);
  return config;
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
  const configPath = path.resolve(args.config ?? configFilePath());
  const config = loadConfig(configPath);
  const workspaceRoot = path.resolve(
    args.workspace ?? process.env.NOTESAPP_WORKSPACE ?? (config.workspace.defaultPath || process.cwd()),
  );
  if (!fs.existsSync(workspaceRoot) || !fs.statSync(workspaceRoot).isDirectory()) {
    process.stderr.write(`notesapp-mcp: workspace folder not found: ${workspaceRoot}\n`);
    return 1;
  }
  const server = createNotesServer({ workspaceRoot, config, configPath, log });
  await server.connect(new StdioServerTransport());
  log('info', `${SERVER_NAME} ${SERVER_VERSION} serving ${workspaceRoot} over stdio`);
  return -1; // keep running until stdin closes
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    process.stderr.write(`notesapp-mcp: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
