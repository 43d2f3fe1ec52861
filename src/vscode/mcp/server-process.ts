// How the MCP server child is launched: which runtime, which arguments, which environment.
import fs from 'node:fs';
import path from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BRIDGE_ENV } from '../../core/bridge/protocol';
import { RIPGREP_ENV } from '../../core/workspace/ripgrep';
import type { BridgeEndpoint } from '../bridge/bridge-server';

export interface LaunchOptions {
  /** Absolute path of dist/server.js. */
  serverScript: string;
  /** Notes workspace folder; the server falls back to its own default when absent. */
  workspaceFolder: string | undefined;
  /** The config file the extension uses, so both read the same one. */
  configPath: string;
  /** A Node binary the user configured; otherwise VS Code's own runtime runs the server. */
  nodePath: string | undefined;
  bridge: BridgeEndpoint | undefined;
  /** The ripgrep program VS Code ships (see vscodeRipgrep); the server then needs none on PATH. */
  ripgrep?: string;
  /** A start-up snapshot made for this runtime and server (see core/startup-snapshot.ts), to start from. */
  snapshot?: string;
}

export interface LaunchCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

/**
 * The program that runs the server: the Node binary the user configured, else VS Code's own runtime, which runs as
 * Node with ELECTRON_RUN_AS_NODE (a real Node ignores it).
 */
export function serverRuntime(nodePath: string | undefined): { command: string; env: Record<string, string> } {
  return nodePath ? { command: nodePath, env: {} } : { command: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export function launchCommand(o: LaunchOptions): LaunchCommand {
  const args = o.snapshot ? ['--snapshot-blob', o.snapshot, o.serverScript] : [o.serverScript];
  if (o.workspaceFolder) args.push('--workspace', o.workspaceFolder);
  args.push('--config', o.configPath);
  const runtime = serverRuntime(o.nodePath);
  const env: Record<string, string> = { NOTESAPP_CONFIG_PATH: o.configPath, ...runtime.env };
  if (o.bridge) {
    env[BRIDGE_ENV.address] = o.bridge.address;
    env[BRIDGE_ENV.token] = o.bridge.token;
  }
  if (o.ripgrep) env[RIPGREP_ENV] = o.ripgrep;
  // VS Code starts a definition's process with its own whole environment. With NODE_EXTRA_CA_CERTS set (common where
  // a proxy has its own certificate authority), Node loads every root certificate before it runs any code: about
  // 75 ms of each start on the benchmark's machine. The server makes no TLS connection (a test reads its bundles for
  // tls, https, http2 and fetch), so the variable is emptied, which Node takes as unset.
  env.NODE_EXTRA_CA_CERTS = '';
  return {
    command: runtime.command,
    args,
    env,
    cwd: o.workspaceFolder ?? path.dirname(o.serverScript),
  };
}

/**
 * Why `folder` cannot be served as the notes folder, naming it, or undefined when it can: it must be an absolute path
 * (`workspace.defaultPath` is taken as written: a leading ~ is not expanded) of a folder that exists.
 */
export function notesFolderProblem(folder: string): string | undefined {
  const fix = 'create it, open a folder, or change workspace.defaultPath in the configuration';
  if (!path.isAbsolute(folder)) {
    return `The notes folder "${folder}" is not an absolute path (workspace.defaultPath is taken as written; a leading ~ is not expanded): set the folder's full path, or open a folder.`;
  }
  let stat: fs.Stats;
  try {
    stat = fs.statSync(folder);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `The notes folder ${folder} does not exist: ${fix}.`;
    return `The notes folder ${folder} cannot be reached (${(err as Error).message}): ${fix}.`;
  }
  return stat.isDirectory() ? undefined : `The notes folder ${folder} is not a folder: ${fix}.`;
}

/**
 * Why the configured Node binary could not be started, naming the setting, or undefined when the failure is not that
 * (without the setting the server runs on VS Code's own runtime, which is there). Node's own words ("spawn
 * /usr/local/bin/node ENOENT") do not say where the program came from.
 */
export function runtimeProblem(nodePath: string | undefined, err: unknown): string | undefined {
  if (!nodePath) return undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const what = code === 'ENOENT' ? 'which does not exist' : code === 'EACCES' ? 'which is not a program that can be run (EACCES)' : undefined;
  if (!what) return undefined;
  return `The notesapp.mcp.nodePath setting names ${nodePath}, ${what}: set it to a Node.js binary, or clear it to run the server on VS Code's own runtime.`;
}

/** The environment the child really gets: the SDK's safe default set plus ours (never the whole host environment). */
export function childEnvironment(extra: Record<string, string>): Record<string, string> {
  return { ...getDefaultEnvironment(), ...extra };
}

/**
 * The ripgrep program inside VS Code (`vscode.env.appRoot`), which its own search runs: where recent versions keep
 * it (one package for every platform), then where earlier ones did. Undefined when none is there.
 */
export function vscodeRipgrep(appRoot: string, platform: string = process.platform, arch: string = process.arch): string | undefined {
  const name = platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = [
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, name),
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin', name),
    path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', name),
  ];
  return candidates.find((file) => {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
