// The JSON a user pastes into Claude Desktop, Cursor or a similar MCP client to reach this machine's notes server.
import { findOnPath } from '../../core/program-path';

export interface ClientConfigOptions {
  serverScript: string;
  workspaceFolder: string | undefined;
  configPath: string;
  /** A Node binary the user configured. */
  nodePath: string | undefined;
  /** VS Code's own runtime, used with ELECTRON_RUN_AS_NODE when no Node is found. */
  execPath: string;
  envPath?: string;
}

/** First `node` on PATH, as an absolute path; a client does not necessarily share this shell's PATH. */
export function findNodeOnPath(envPath = process.env.PATH ?? ''): string | undefined {
  return findOnPath('node', envPath);
}

export function clientConfiguration(o: ClientConfigOptions): { mcpServers: Record<string, unknown> } {
  const node = o.nodePath || findNodeOnPath(o.envPath);
  const args = [o.serverScript];
  if (o.workspaceFolder) args.push('--workspace', o.workspaceFolder);
  args.push('--config', o.configPath);
  const server: Record<string, unknown> = { command: node ?? o.execPath, args };
  if (!node) server.env = { ELECTRON_RUN_AS_NODE: '1' };
  return { mcpServers: { notes: server } };
}
