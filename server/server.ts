// createNotesServer(deps): builds the MCP server with everything it offers. No side effects at import.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { NotesConfig } from '../src/core/config/schema';
import { SERVER_NAME, SERVER_VERSION } from './version';

export interface NotesServerDeps {
  /** Absolute path of the notes workspace. */
  workspaceRoot: string;
  /** The configuration in force. */
  config: NotesConfig;
  /** Where the configuration was read from. */
  configPath: string;
  /** Diagnostics sink; never stdout. */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

export function createNotesServer(deps: NotesServerDeps): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Notes', version: SERVER_VERSION },
    {
      instructions: `Notes workspace at ${deps.workspaceRoot}. Notes are markdown files; paths are workspace-relative.`,
    },
  );
  return server;
}
