// The server commands of spec 4.3 (category "Notes") and the same operations as the extension's API.
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ConfigStore } from '../../core/config';
import { clientConfiguration, clientNode, type ClientConfigOptions } from './client-config';
import { checkArgs, getPluginSetting, isSecretKey, setPluginSetting, shownArgument, shownPluginSetting } from './plugin-settings';
import { runTool, type RunToolOutcome } from './run-tool';
import type { ServerManager } from './server-manager';
import type { ServerStatus } from './status';
import { SHOW_ACTIONS_COMMAND } from './status-bar';

export interface McpShellApi {
  startServer(port?: number): Promise<ServerStatus>;
  stopServer(): Promise<ServerStatus>;
  restartServer(port?: number): Promise<ServerStatus>;
  serverStatus(): ServerStatus;
  /** The tools of the running server (empty when stopped), as the status bar counts them. */
  serverTools(): { name: string; title?: string; description?: string }[];
  healthCheck(): Promise<boolean>;
  getPluginSetting(plugin_name: string, key: string): Promise<unknown>;
  setPluginSetting(plugin_name: string, key: string, value: unknown): Promise<void>;
  runTool(name?: string, args?: Record<string, unknown>): Promise<RunToolOutcome | undefined>;
  /** Calls a tool of the running server through the extension's MCP client, with no UI. */
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  copyClientConfiguration(): Promise<string>;
  onDidChangeServerStatus: vscode.Event<ServerStatus>;
}

const portArg = z.union([z.number().int().min(1).max(65535), z.object({ port: z.number().int().min(1).max(65535) }).transform((o) => o.port)]).optional();

function parsePort(value: unknown): number | undefined {
  const parsed = portArg.safeParse(value);
  if (!parsed.success) throw new Error(`port must be a whole number from 1 to 65535, got ${JSON.stringify(value)}`);
  return parsed.data;
}

export interface CommandDeps {
  manager: ServerManager;
  store: ConfigStore;
  log: vscode.LogOutputChannel;
  clientConfig: () => ClientConfigOptions;
  /**
   * The script a copied configuration names for `serverScript` (the extension's dist/server.js): the launcher,
   * which stays where it is across updates (see launcher.ts). Without it, dist/server.js itself.
   */
  clientScript?: (serverScript: string) => Promise<string>;
  /** The version of a Node binary (see nodeVersion); tests replace it. */
  nodeVersion?: (program: string) => Promise<number[] | undefined>;
}

export function createMcpShellApi({ manager, store, log, clientConfig, clientScript, nodeVersion }: CommandDeps): McpShellApi {
  return {
    startServer: (port) => manager.start(parsePort(port)),
    stopServer: () => manager.stop(),
    restartServer: (port) => manager.restart(parsePort(port)),
    serverStatus: () => manager.status(),
    serverTools: () => manager.toolList().map((t) => ({ name: t.name, title: t.title, description: t.description })),
    healthCheck: () => manager.healthCheck(),
    // Both check their arguments (names and value) and reject, changing nothing, when one is not valid.
    getPluginSetting: (plugin_name, key) => getPluginSetting(store, plugin_name, key),
    setPluginSetting: async (plugin_name, key, value) => {
      await setPluginSetting(store, plugin_name, key, value);
      log.info(`Plugin setting ${plugin_name}.${key} updated`); // the value may be a secret: never logged
    },
    runTool: (name, args) => runTool(manager, name, args),
    callTool: async (name, args = {}) => {
      const client = manager.client();
      if (!client) throw new Error('The Notes MCP server is not running. Start it with "Notes: Start MCP Server".');
      return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
    },
    copyClientConfiguration: async () => {
      const options = clientConfig();
      let serverScript = options.serverScript;
      try {
        if (clientScript) serverScript = await clientScript(serverScript);
      } catch (err) {
        log.warn(`The MCP server's launcher could not be written (${(err as Error).message}): the copied configuration names ${serverScript}, which moves when the extension is updated`);
      }
      const { node, skipped } = await clientNode(options, nodeVersion);
      if (skipped) log.warn(`The copied MCP client configuration does not use ${skipped}; it runs ${node ?? "VS Code's own runtime"} instead (set notesapp.mcp.nodePath to choose)`);
      const text = JSON.stringify(clientConfiguration({ ...options, serverScript }, node), null, 2);
      await vscode.env.clipboard.writeText(text);
      return text;
    },
    onDidChangeServerStatus: manager.onDidChangeStatus,
  };
}

/** The ids, titles and what each does, in the order the status bar's quick pick shows them. */
export const SERVER_COMMANDS = [
  { id: 'notesapp.startServer', title: 'Start MCP Server', detail: 'Start the notes MCP server (stdio child process)' },
  { id: 'notesapp.stopServer', title: 'Stop MCP Server', detail: 'Stop the server gracefully' },
  { id: 'notesapp.restartServer', title: 'Restart MCP Server', detail: 'Stop and start again' },
  { id: 'notesapp.serverStatus', title: 'Show MCP Server Status', detail: 'is_running, port, pid, url, last_error' },
  { id: 'notesapp.healthCheck', title: 'MCP Server Health Check', detail: 'MCP ping round trip' },
  { id: 'notesapp.runTool', title: 'Run MCP Tool…', detail: 'Pick a tool, enter its arguments, read the result' },
  { id: 'notesapp.copyClientConfiguration', title: 'Copy MCP Client Configuration', detail: 'JSON for Claude Desktop, Cursor and similar clients' },
  { id: 'notesapp.getPluginSetting', title: 'Get Plugin Setting', detail: 'Read plugins.settings.<plugin>.<key>' },
  { id: 'notesapp.setPluginSetting', title: 'Set Plugin Setting', detail: 'Write plugins.settings.<plugin>.<key>' },
] as const;

function describe(s: ServerStatus): string {
  const state = s.is_running ? `running (pid ${s.pid}, port ${s.port}, ${s.url})` : `stopped (port ${s.port})`;
  return `Notes MCP server ${state}${s.last_error ? `. Last error: ${s.last_error}` : ''}`;
}

/**
 * Every command returns its result (for callers such as tests and other extensions) and also reports it as a
 * notification, whoever called it. An error is shown and logged once, and the command then returns undefined, as
 * the configuration commands and VS Code's own Git commands do: a command that rejected would have VS Code report
 * the error again (a modal dialog from the Command Palette, a second notification from a keybinding). Scripts that
 * need the error itself call the API object's methods, which reject with it.
 */
export function registerServerCommands(context: vscode.ExtensionContext, api: McpShellApi, store: ConfigStore, log: vscode.LogOutputChannel): void {
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = (err as Error).message;
        log.error(message);
        void vscode.window.showErrorMessage(message);
        return undefined;
      }
    };
  const report = (s: ServerStatus) => {
    log.info(describe(s));
    if (s.last_error && !s.is_running) void vscode.window.showErrorMessage(describe(s));
    else void vscode.window.showInformationMessage(describe(s));
    return s;
  };

  const askPlugin = async (): Promise<string | undefined> => {
    const config = await store.readConfig();
    const known = [...new Set([...config.plugins.enabled, ...Object.keys(config.plugins.settings)])];
    return vscode.window.showInputBox({ title: 'Plugin name', prompt: known.length ? `Configured: ${known.join(', ')}` : undefined, value: known[0] });
  };

  const register = (id: string, fn: (...args: never[]) => Promise<unknown>) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(fn as (...args: unknown[]) => Promise<unknown>)));

  register('notesapp.startServer', async (port?: unknown) => report(await api.startServer(parsePort(port))));
  register('notesapp.stopServer', async () => report(await api.stopServer()));
  register('notesapp.restartServer', async (port?: unknown) => report(await api.restartServer(parsePort(port))));
  register('notesapp.serverStatus', async () => report(api.serverStatus()));
  register('notesapp.healthCheck', async () => {
    const ok = await api.healthCheck();
    const message = ok ? 'Notes MCP server is healthy (ping answered).' : 'Notes MCP server did not answer a ping (is it running?).';
    log.info(message);
    void (ok ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
    return ok;
  });
  register('notesapp.getPluginSetting', async (pluginArg?: unknown, keyArg?: unknown) => {
    const { plugin, key } = pluginObject('get plugin setting', pluginArg, keyArg);
    const pluginName = plugin ?? (await askPlugin());
    if (pluginName === undefined) return undefined;
    const k = key ?? (await vscode.window.showInputBox({ title: `Setting of ${pluginName}`, prompt: 'Key' }));
    if (k === undefined) return undefined;
    const value = await api.getPluginSetting(pluginName, k);
    if (pluginArg === undefined) {
      const open = 'Open Configuration';
      const buttons = value === undefined || shownPluginSetting(value).startsWith('=') ? [] : [open];
      void vscode.window.showInformationMessage(`${pluginName}.${k} ${shownPluginSetting(value)}`, ...buttons).then((choice) => {
        if (choice === open) void vscode.commands.executeCommand('notesapp.openConfiguration');
      });
    }
    return value;
  });
  register('notesapp.setPluginSetting', async (pluginArg?: unknown, keyArg?: unknown, valueArg?: unknown) => {
    const { plugin, key, value, hasValue } = pluginObject('set plugin setting', pluginArg, keyArg, valueArg);
    const pluginName = plugin ?? (await askPlugin());
    if (pluginName === undefined) return undefined;
    const k = key ?? (await vscode.window.showInputBox({ title: `Setting of ${pluginName}`, prompt: 'Key' }));
    if (k === undefined) return undefined;
    let v = value;
    if (!hasValue) {
      const text = await vscode.window.showInputBox({
        title: `${pluginName}.${k}`,
        prompt: 'Value (JSON such as 42, true, "text" or {"a":1}; anything else is stored as text)',
        password: isSecretKey(k),
      });
      if (text === undefined) return undefined;
      try {
        v = JSON.parse(text);
      } catch {
        v = text;
      }
    }
    await api.setPluginSetting(pluginName, k, v);
    if (pluginArg === undefined) void vscode.window.showInformationMessage(`Saved ${pluginName}.${k} to ${store.file}`);
    return undefined;
  });
  register('notesapp.runTool', async (name?: unknown, args?: unknown) =>
    api.runTool(typeof name === 'string' ? name : undefined, checkArgs(z.record(z.string(), z.unknown()).optional(), 'tool arguments', args)),
  );
  register('notesapp.copyClientConfiguration', async () => {
    const text = await api.copyClientConfiguration();
    void vscode.window.showInformationMessage('MCP client configuration copied: paste it into Claude Desktop, Cursor or another MCP client.');
    return text;
  });
  register(SHOW_ACTIONS_COMMAND, async () => {
    const picked = await vscode.window.showQuickPick(
      SERVER_COMMANDS.map((c) => ({ label: c.title, detail: c.detail, id: c.id })),
      { title: describe(api.serverStatus()), placeHolder: 'Notes MCP server actions' },
    );
    if (!picked) return undefined;
    // The chosen command shows its own error and returns undefined; a rejection here (none is expected) would have
    // VS Code report it a second time.
    return vscode.commands.executeCommand(picked.id).then(undefined, () => undefined);
  });
}

const pluginObjectArg = z.strictObject({ plugin_name: z.unknown(), key: z.unknown(), value: z.unknown() }).partial();

/**
 * Accepts positional arguments or one object {plugin_name, key, value}. A name left out is asked for; a name given must
 * be a string (the API then checks it further): anything else is refused, never turned into text ("[object Object]").
 */
function pluginObject(what: string, a?: unknown, b?: unknown, c?: unknown): { plugin?: string; key?: string; value?: unknown; hasValue: boolean } {
  const text = (argument: string, v: unknown): string | undefined => {
    if (v === undefined || typeof v === 'string') return v;
    throw new Error(`${what}: ${argument} must be a string, got ${shownArgument(v)}`);
  };
  if (typeof a === 'object' && a !== null && !Array.isArray(a)) {
    if (b !== undefined || c !== undefined) throw new Error(`${what}: give either one {plugin_name, key, value} object or the arguments one by one, not both`);
    const o = checkArgs(pluginObjectArg, what, a);
    return { plugin: text('plugin_name', o.plugin_name), key: text('key', o.key), value: o.value, hasValue: Object.hasOwn(a, 'value') };
  }
  return { plugin: text('plugin_name', a), key: text('key', b), value: c, hasValue: c !== undefined };
}
