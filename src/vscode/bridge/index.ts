// Starts the editor bridge and its discovery files; everything is disposed with the extension.
import path from 'node:path';
import * as vscode from 'vscode';
import { configFilePath } from '../../core/config/paths';
import { BridgeServer, type BridgeEndpoint } from './bridge-server';
import { DiscoveryFiles } from './discovery-writer';
import { getEditorContent, insertAtCursor, setEditorContent } from './editor-operations';

function folderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

export function startEditorBridge(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): BridgeEndpoint {
  const server = BridgeServer.start({ getEditorContent, setEditorContent, insertAtCursor, workspaceFolders: folderPaths }, log);
  context.subscriptions.push(server);
  const discovery = new DiscoveryFiles(path.dirname(configFilePath()), server.endpoint, log);
  discovery.write(folderPaths());
  context.subscriptions.push(
    discovery,
    vscode.workspace.onDidChangeWorkspaceFolders(() => discovery.write(folderPaths())),
  );
  return server.endpoint;
}
