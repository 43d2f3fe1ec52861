// Starts the editor bridge and its discovery files (kept in step with the open folders and the window's focus);
// everything is disposed with the extension.
import path from 'node:path';
import * as vscode from 'vscode';
import { BridgeServer, type BridgeEndpoint } from './bridge-server';
import { DiscoveryFiles } from './discovery-writer';
import { getEditorContent, insertAtCursor, setEditorContent } from './editor-operations';

function folderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * `configFile`: the configuration file in use (the store's, which falls back to the platform path when
 * NOTESAPP_CONFIG_PATH is not usable); the discovery files go next to it, where the server, given that file, looks.
 */
export function startEditorBridge(context: vscode.ExtensionContext, configFile: string, log: vscode.LogOutputChannel): BridgeEndpoint {
  const version = String(context.extension.packageJSON.version);
  const server = BridgeServer.start({ getEditorContent, setEditorContent, insertAtCursor, workspaceFolders: folderPaths, version }, log);
  context.subscriptions.push(server);
  const discovery = new DiscoveryFiles(path.dirname(configFile), server.endpoint, log);
  discovery.sync(folderPaths());
  context.subscriptions.push(
    discovery,
    vscode.workspace.onDidChangeWorkspaceFolders(() => discovery.sync(folderPaths())),
    vscode.window.onDidChangeWindowState((state) => {
      if (state.focused) discovery.touch();
    }),
  );
  return server.endpoint;
}
