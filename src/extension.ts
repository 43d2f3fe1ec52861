// Composition root: wires the features and returns the public API. Nothing else lives here.
import * as vscode from 'vscode';
import { registerShowStatus, statusSummary, type StatusSummary } from './vscode/show-status';

export interface NotesApi {
  status(): StatusSummary;
}

export function activate(context: vscode.ExtensionContext): NotesApi {
  const log = vscode.window.createOutputChannel('Notes', { log: true });
  context.subscriptions.push(log);
  registerShowStatus(context, log);
  log.info(`Notes ${context.extension.packageJSON.version} activated`);
  return { status: () => statusSummary(context) };
}

export function deactivate(): void {
  // Every resource is a disposable in context.subscriptions.
}
