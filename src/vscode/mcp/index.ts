// Wires the MCP shell: server manager, commands, status bar, VS Code chat provider; returns the API part.
import path from 'node:path';
import * as vscode from 'vscode';
import type { ConfigStore, NotesConfig } from '../../core/config';
import { keepingUsableSettings, loadConfigFile } from '../../core/config';
import type { BridgeEndpoint } from '../bridge/bridge-server';
import { createMcpShellApi, registerServerCommands, type McpShellApi } from './commands';
import { mcpServerDefinitions, registerDefinitionProvider } from './definition-provider';
import { ServerManager } from './server-manager';
import { notesFolderProblem, serverRuntime, vscodeRipgrep, type LaunchOptions } from './server-process';
import { refreshLauncher, writeLauncher } from './launcher';
import { registerStatusBar } from './status-bar';
import { SnapshotMaker } from './snapshot-maker';
import { discardSnapshot, usableSnapshot } from '../../core/startup-snapshot';

export interface McpShell extends McpShellApi {
  /** What the VS Code chat provider offers, for scripts and tests. */
  mcpServerDefinitions(): vscode.McpStdioServerDefinition[];
  /** Stops the server and waits until its process is gone (deactivate). */
  shutdown(): Promise<void>;
  /** The notes folder the server is started on: the first local folder of the window, else workspace.defaultPath. */
  notesFolder(): string | undefined;
  /** Makes the server's start-up snapshot for the runtime in use unless it is there (see snapshot-maker.ts); says what it did. */
  prepareStartupSnapshot(): Promise<string>;
}

export interface McpShellDeps {
  log: vscode.LogOutputChannel;
  store: ConfigStore;
  bridge: BridgeEndpoint | undefined;
}

export function registerMcpShell(context: vscode.ExtensionContext, { log, store, bridge }: McpShellDeps): McpShell {
  const version = String(context.extension.packageJSON.version);
  // Kept current by the one watchConfig subscription below.
  let config: NotesConfig = loadConfigFile(store.file).config;

  const nodePath = () => vscode.workspace.getConfiguration('notesapp.mcp').get<string>('nodePath')?.trim() || undefined;
  // The first local folder of the window; with none open, workspace.defaultPath of the config; else nothing to serve.
  const notesFolder = () =>
    vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? (config.workspace.defaultPath || undefined);
  // Searches before the index has read the notes go through ripgrep: VS Code's own, so none need be installed.
  const ripgrep = vscodeRipgrep(vscode.env.appRoot);
  log.info(ripgrep ? `MCP server searches use VS Code's ripgrep: ${ripgrep}` : `no ripgrep found in VS Code (${vscode.env.appRoot}); the MCP server looks for rg on PATH`);
  // Where the launcher copied configurations name lives (see launcher.ts): the extension's global storage, which
  // an update keeps.
  const launcherFolder = context.globalStorageUri?.fsPath;
  const distDir = path.join(context.extensionPath, 'dist');
  const snapshotsOn = () => vscode.workspace.getConfiguration('notesapp.mcp').get<boolean>('startupSnapshot') !== false;
  const launch = (): LaunchOptions => ({
    serverScript: path.join(distDir, 'server.js'),
    workspaceFolder: notesFolder(),
    configPath: store.file,
    nodePath: nodePath(),
    bridge,
    ripgrep,
    snapshot: snapshotsOn() ? usableSnapshot(distDir, serverRuntime(nodePath()).command) : undefined,
  });
  const snapshots = new SnapshotMaker(distDir, log);
  const prepareSnapshot = () => (snapshotsOn() ? snapshots.prepare(nodePath()) : Promise.resolve('start-up snapshots are off (notesapp.mcp.startupSnapshot)'));

  const manager = new ServerManager({
    launch,
    configuredPort: () => config.integrations.mcp.port,
    log,
    clientVersion: version,
    snapshotFailed: (blob, reason) => {
      try {
        discardSnapshot(blob, reason);
        log.warn(`The MCP server's start-up snapshot ${blob} is not used again for this runtime and extension version`);
      } catch (err) {
        log.warn(`The MCP server's start-up snapshot ${blob} could not be put aside: ${(err as Error).message}`);
      }
    },
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
    clientScript: launcherFolder ? (serverScript) => writeLauncher(launcherFolder, serverScript, context.extension.id) : undefined,
  });
  // A launcher made by an earlier copy is pointed at this version (after an update, the old folder goes).
  if (launcherFolder) {
    refreshLauncher(launcherFolder, launch().serverScript, context.extension.id).catch((err: Error) => log.warn(`The MCP server's launcher could not be updated: ${err.message}`));
  }
  // With folders open that are not on this computer's disk (a repository opened remotely, another virtual file
  // system), "open a folder" would not tell the user what is wrong.
  const noNotesFolder = () => {
    const open = vscode.workspace.workspaceFolders ?? [];
    if (!open.length) return 'Open a notes folder first (or set workspace.defaultPath in the configuration).';
    const which = open.map((f) => f.uri.toString()).join(', ');
    return `No notes folder: the MCP server serves a folder on this computer's disk, and ${open.length === 1 ? 'the open folder is not' : 'none of the open folders is'} one (${which}). Open a local folder, or set workspace.defaultPath in the configuration.`;
  };
  const refuseWhenDisabled = <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (!config.integrations.mcp.enabled) {
        throw new Error('The MCP server is disabled in the configuration (integrations.mcp.enabled is false).');
      }
      if (!notesFolder()) throw new Error(noNotesFolder());
      return fn(...a);
    };
  const offered = () => config.integrations.mcp.enabled && notesFolder() !== undefined;
  // A configuration for another client must name a folder it can serve: without --workspace the server would serve
  // whatever folder that client starts it in (often / or the home folder).
  const copyClientConfiguration = refuseWhenDisabled(async () => {
    const folder = notesFolder();
    const problem = folder === undefined ? undefined : notesFolderProblem(folder);
    if (problem) throw new Error(`No MCP client configuration copied: ${problem}`);
    return base.copyClientConfiguration();
  });
  const api: McpShell = {
    ...base,
    startServer: refuseWhenDisabled(base.startServer),
    restartServer: refuseWhenDisabled(base.restartServer),
    copyClientConfiguration,
    mcpServerDefinitions: () => (offered() ? mcpServerDefinitions(launch(), version) : []),
    shutdown: () => manager.shutdownForDeactivate(),
    notesFolder,
    prepareStartupSnapshot: prepareSnapshot,
  };

  registerServerCommands(context, api, store, log);
  registerStatusBar(context, manager);
  const definitionsChanged = registerDefinitionProvider(context, () => launch(), version, offered);
  const autoStart = () => {
    if (!config.integrations.mcp.enabled || !config.integrations.mcp.autoStart || !notesFolder()) return;
    log.info('Auto-starting the MCP server (integrations.mcp.autoStart)');
    void manager.start();
  };
  // The local folder served may leave the window (a folder removed from a workspace of several), or one be added
  // before it: the running server follows, as Show Status and the client configuration do.
  context.subscriptions.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void manager.followFolder()));
  // A save that is not JSON (a comma missing while typing) reads as the defaults; applied, they would stop a server
  // serving workspace.defaultPath and take it from VS Code chat, and nothing would start it again once the file is
  // fixed. The settings the server had are kept instead, as the server itself keeps them.
  const follow = keepingUsableSettings(store.file, config, 'the MCP server');
  context.subscriptions.push({
    dispose: store.watchConfig((read, _told, { unusable }) => {
      const { config: next, warning } = follow(read, unusable);
      if (warning) log.warn(warning);
      const old = config;
      if (JSON.stringify(old) === JSON.stringify(next)) return;
      config = next;
      const was = old.integrations.mcp.enabled;
      const now = next.integrations.mcp.enabled;
      // Another notes folder means another definition for VS Code chat (a missing folder that is created later
      // changes nothing here: the definition is offered again when VS Code next asks), and so does switching the
      // server on or off: one event for both.
      if (old.workspace.defaultPath !== next.workspace.defaultPath || was !== now) definitionsChanged.fire();
      // A running server serving workspace.defaultPath moves to the new one (see followFolder).
      if (old.workspace.defaultPath !== next.workspace.defaultPath) void manager.followFolder();
      if (was === now) return;
      // Disabling the server in the configuration stops it, a start under way included (stop waits in the same
      // queue, after it); enabling it again honours autoStart.
      if (!now) {
        if (manager.status().is_running) log.info('integrations.mcp.enabled turned off: stopping the MCP server');
        void manager.stop();
      } else autoStart();
    }),
  });
  autoStart();
  // Made once per runtime and server version, after the window has settled: the build takes a second of CPU.
  const snapshotTimer = setTimeout(() => void prepareSnapshot(), SNAPSHOT_DELAY_MS);
  context.subscriptions.push(
    { dispose: () => clearTimeout(snapshotTimer) },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('notesapp.mcp.nodePath') || e.affectsConfiguration('notesapp.mcp.startupSnapshot')) void prepareSnapshot();
    }),
  );
  return api;
}

/** How long after activation the start-up snapshot is made, when there is none. */
const SNAPSHOT_DELAY_MS = 10_000;
