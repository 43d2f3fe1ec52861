// Lets VS Code's chat (agent mode) use the notes tools with no setup: one stdio server for the open notes folder.
import * as vscode from 'vscode';
import { launchCommand, notesFolderProblem, type LaunchOptions } from './server-process';

export const PROVIDER_ID = 'notesapp.mcpServers';

/** One definition for the notes folder; none when that folder cannot be served (not there, not absolute). */
export function mcpServerDefinitions(launch: LaunchOptions, version: string): vscode.McpStdioServerDefinition[] {
  if (launch.workspaceFolder !== undefined && notesFolderProblem(launch.workspaceFolder)) return [];
  const cmd = launchCommand(launch);
  const definition = new vscode.McpStdioServerDefinition('Notes', cmd.command, cmd.args, cmd.env, version);
  if (cmd.cwd) definition.cwd = vscode.Uri.file(cmd.cwd);
  return [definition];
}

export function registerDefinitionProvider(
  context: vscode.ExtensionContext,
  launch: () => LaunchOptions,
  version: string,
  enabled: () => boolean,
): vscode.EventEmitter<void> {
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => (enabled() ? mcpServerDefinitions(launch(), version) : []),
    }),
    // A different folder means a different server definition.
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
  );
  return changed;
}
