// "Notes: Show Status": the extension version, the configuration file in use and the notes folder the MCP server serves.
import * as vscode from 'vscode';

export interface StatusSummary {
  version: string;
  configPath: string;
  /** The notes folder: the first local folder of the window, else workspace.defaultPath; null with neither. */
  workspaceFolder: string | null;
}

/**
 * `configPath` is the file the configuration store uses (which may differ from NOTESAPP_CONFIG_PATH: see register.ts);
 * `notesFolder` the folder the MCP server serves (see mcp/index.ts), not merely the window's first folder, which may
 * be a remote or virtual one.
 */
export function statusSummary(context: vscode.ExtensionContext, configPath: string, notesFolder: () => string | undefined): StatusSummary {
  return {
    version: String(context.extension.packageJSON.version),
    configPath,
    workspaceFolder: notesFolder() ?? null,
  };
}

export function registerShowStatus(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  configPath: string,
  notesFolder: () => string | undefined,
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('notesapp.showStatus', async () => {
      const s = statusSummary(context, configPath, notesFolder);
      const none = vscode.workspace.workspaceFolders?.length ? "none (no open folder is on this computer's disk)" : 'no folder open';
      const text = `Notes ${s.version} — configuration: ${s.configPath} — workspace: ${s.workspaceFolder ?? none}`;
      log.info(text);
      void vscode.window.showInformationMessage(text);
      return s;
    }),
  );
}
