// Composition root: wires the features and returns the public API. Nothing else lives here.
import * as vscode from 'vscode';
import { registerShowStatus, statusSummary, type StatusSummary } from './vscode/show-status';
import { registerConfiguration } from './vscode/config/register';
import { startEditorBridge } from './vscode/bridge';
import { registerMcpShell, type McpShell } from './vscode/mcp';

export interface NotesApi extends Omit<McpShell, 'shutdown' | 'notesFolder'> {
  status(): StatusSummary;
  /** How long activate() took, in milliseconds (read by the benchmarks). */
  activationMs: number;
}

let mcpShell: McpShell | undefined;

export function activate(context: vscode.ExtensionContext): NotesApi {
  const activationStarted = performance.now();
  const log = vscode.window.createOutputChannel('Notes', { log: true });
  context.subscriptions.push(log);
  const configuration = registerConfiguration(context, log);
  // The file the store really uses: a relative NOTESAPP_CONFIG_PATH is refused there in favour of the platform path.
  const configPath = configuration.store.file;
  // The folder the MCP server serves, once the shell is there.
  const notesFolder = () => mcpShell?.notesFolder();
  registerShowStatus(context, log, configPath, notesFolder);
  const bridge = startEditorBridge(context, configuration.store.file, log);
  const shell = registerMcpShell(context, { log, store: configuration.store, bridge });
  mcpShell = shell;
  log.info(`Notes ${context.extension.packageJSON.version} activated`);
  const { shutdown: _shutdown, notesFolder: _notesFolder, ...shellApi } = shell;
  return { ...shellApi, status: () => statusSummary(context, configPath, notesFolder), activationMs: performance.now() - activationStarted };
}

export async function deactivate(): Promise<void> {
  // Disposables in context.subscriptions are not awaited; the server child is, so none outlives the window.
  await mcpShell?.shutdown();
  mcpShell = undefined;
}
