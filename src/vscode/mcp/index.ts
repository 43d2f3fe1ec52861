// Wires the MCP shell: server manager, commands, status bar, VS Code chat provider; returns the API part.
import path from 'node:path';
import * as vscode from 'vscode';
import type { ConfigStore, NotesConfig } from '../../core/config';
import { loadConfigFile } from '../../core/config';
import type { BridgeEndpoint } from '../bridge/bridge-server';
import { createMcpShellApi, registerServerCommands, type McpShellApi } from './commands';
import { mcpServerDefinitions, registerDefinitionProvider } from './definition-provider';
import { ServerManager } from './server-manager';
import type { LaunchOptions } from './server-process';
import { registerStatusBar } from './status-bar';

export interface McpShell extends McpShellApi {
  /** What the VS Code chat provider offers, for scripts and tests. */
  mcpServerDefinitions(): vscode.McpStdioServerDefinition[];
  /** Stops the server and waits until its process is gone (deactivate). */
  shutdown(): Promise<void>;
}

export interface McpShellDeps {
  log: vscode.LogOutputChannel;
  store: ConfigStore;
  bridge: BridgeEndpoint | undefined;
}

export function registerMcpShell(context: vscode.ExtensionContext, { log, store, bridge }: McpShellDeps): McpShell {
  const version = String(context.extension.packageJSON.version);
  let config: NotesConfig = loadConfigFile(store.file).config;
  const unwatch = store.watchConfig((next) => (config = next));
  context.subscriptions.push({ dispose: unwatch });

  const nodePath = () => vscode.workspace.getConfiguration('notesapp.mcp').get<string>('nodePath')?.trim() || undefined;
  const launch = (): LaunchOptions => ({
    serverScript: path.join(context.extensionPath, 'dist', 'server.js'),
    workspaceFolder: vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath,
    configPath: store.file,
    nodePath: nodePath(),
    bridge,
  });

  const manager = new ServerManager({
    launch,
    configuredPort: () => config.integrations.mcp.port,
    log,
    clientVersion: version,
    notify: (message) => {
      void vscode.window.showErrorMessage(message, 'Show Log').then((choice) => choice && log.show());
    },
  });
  context.subscriptions.push(manager);

  const base = createMcpShellApi({
    manager,
    store,
    log,
    clientConfig: () => ({ ...launch(), execPath: process.execPath }),
  });
  const refuseWhenDisabled = <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (!config.integrations.mcp.enabled) {
        throw new Error('The MCP server is disabled in the configuration (integrations.mcp.enabled is false).');
      }
      return fn(...a);
    };
  const api: McpShell = {
    ...base,
    startServer: refuseWhenDisabled(base.startServer),
    restartServer: refuseWhenDisabled(base.restartServer),
    mcpServerDefinitions: () => (config.integrations.mcp.enabled ? mcpServerDefinitions(launch(), version) : []),
    shutdown: () => manager.shutdownForDeactivate(),
  };

  registerServerCommands(context, api, store, log);
  registerStatusBar(context, manager);
  const definitionsChanged = registerDefinitionProvider(context, () => launch(), version, () => config.integrations.mcp.enabled);
  context.subscriptions.push(
    { dispose: store.watchConfig((next, old) => next.integrations.mcp.enabled !== old.integrations.mcp.enabled && definitionsChanged.fire()) },
  );

  if (config.integrations.mcp.enabled && config.integrations.mcp.autoStart) {
    log.info('Auto-starting the MCP server (integrations.mcp.autoStart)');
    void manager.start();
  }
  return api;
}
