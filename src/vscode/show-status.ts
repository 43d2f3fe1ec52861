// "Notes: Show Status": the extension version, the configuration file in use and the notes workspace folder.
import * as vscode from 'vscode';

export interface StatusSummary {
  version: string;
  configPath: string;
  workspaceFolder: string | null;
}

/** `configPath` is the file the configuration store uses (which may differ from NOTESAPP_CONFIG_PATH: see register.ts). */
export function statusSummary(context: vscode.ExtensionContext, configPath: string): StatusSummary {
  return {
    version: String(context.extension.packageJSON.version),
    configPath,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null,
  };
}

export function registerShowStatus(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, configPath: string): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('notesapp.showStatus', async () => {
      const s = statusSummary(context, configPath);
      const text = `Notes ${s.version} — configuration: ${s.configPath} — workspace: ${s.workspaceFolder ?? 'no folder open'}`;
      log.info(text);
      void vscode.window.showInformationMessage(text);
      return s;
    }),
  );
}
