// "Notes: Show Status": the extension version, the configuration file in use and the notes workspace folder.
import * as vscode from 'vscode';
import { configFilePath } from '../core/config/paths';

export interface StatusSummary {
  version: string;
  configPath: string;
  workspaceFolder: string | null;
}

export function statusSummary(context: vscode.ExtensionContext): StatusSummary {
  return {
    version: String(context.extension.packageJSON.version),
    configPath: configFilePath(),
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null,
  };
}

export function registerShowStatus(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('notesapp.showStatus', async () => {
      const s = statusSummary(context);
      const text = `Notes ${s.version} — configuration: ${s.configPath} — workspace: ${s.workspaceFolder ?? 'no folder open'}`;
      log.info(text);
      void vscode.window.showInformationMessage(text);
      return s;
    }),
  );
}
