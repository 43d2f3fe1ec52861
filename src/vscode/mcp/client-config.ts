// The JSON a user pastes into Claude Desktop, Cursor or a similar MCP client to reach this machine's notes server.
import fs from 'node:fs';
import path from 'node:path';

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
  const names = process.platform === 'win32' ? ['node.exe'] : ['node'];
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // Not here.
      }
    }
  }
  return undefined;
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
