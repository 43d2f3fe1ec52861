// The JSON a user pastes into Claude Desktop, Cursor or a similar MCP client to reach this machine's notes server.
import { execFile } from 'node:child_process';
import { findOnPath } from '../../core/program-path';

/** The oldest Node the server runs on (package.json `engines`). */
export const MIN_NODE: readonly [number, number] = [20, 19];

export interface ClientConfigOptions {
  /** The script the client runs: the launcher (see launcher.ts), else the extension's dist/server.js. */
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

/** The version a Node binary reports (`node --version`), as [major, minor, patch]; undefined when it does not run. */
export function nodeVersion(program: string): Promise<number[] | undefined> {
  return new Promise((resolve) => {
    execFile(program, ['--version'], { timeout: 10_000, env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } }, (err, stdout) => {
      const match = /^v(\d+)\.(\d+)\.(\d+)/.exec(String(stdout).trim());
      resolve(err || !match ? undefined : match.slice(1).map(Number));
    });
  });
}

/**
 * The Node binary the client should run: the `notesapp.mcp.nodePath` setting as given; else the first `node` on
 * PATH when it is recent enough to run the server (`skipped` says why one was not taken); else none, and the client
 * runs VS Code's own runtime.
 */
export async function clientNode(o: Pick<ClientConfigOptions, 'nodePath' | 'envPath'>, versionOf = nodeVersion): Promise<{ node?: string; skipped?: string }> {
  if (o.nodePath) return { node: o.nodePath };
  const found = findNodeOnPath(o.envPath);
  if (!found) return {};
  const version = await versionOf(found);
  if (!version) return { skipped: `${found} (on PATH) did not answer --version` };
  const [major, minor] = version;
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return { node: found };
  return { skipped: `${found} (on PATH) is Node ${version.join('.')}, and the server needs ${MIN_NODE.join('.')} or later` };
}

/** The configuration, for `node` (see clientNode; none: VS Code's runtime, run as Node). */
export function clientConfiguration(o: ClientConfigOptions, node: string | undefined): { mcpServers: Record<string, unknown> } {
  const args = [o.serverScript];
  if (o.workspaceFolder) args.push('--workspace', o.workspaceFolder);
  args.push('--config', o.configPath);
  const server: Record<string, unknown> = { command: node ?? o.execPath, args };
  if (!node) server.env = { ELECTRON_RUN_AS_NODE: '1' };
  return { mcpServers: { notes: server } };
}
