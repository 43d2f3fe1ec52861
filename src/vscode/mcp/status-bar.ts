// The status bar item: running (with the number of tools), stopped, or error; a click opens the server actions.
import * as vscode from 'vscode';
import type { ServerManager } from './server-manager';

export const SHOW_ACTIONS_COMMAND = 'notesapp.showServerActions';

export function statusBarText(running: boolean, lastError: string | null, tools: number): { text: string; error: boolean } {
  if (running) return { text: `$(server-process) Notes MCP: ${tools} tool${tools === 1 ? '' : 's'}`, error: false };
  if (lastError) return { text: '$(error) Notes MCP: error', error: true };
  return { text: '$(circle-slash) Notes MCP: stopped', error: false };
}

export function registerStatusBar(context: vscode.ExtensionContext, manager: ServerManager): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem('notesapp.mcpServer', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Notes MCP Server';
  item.command = SHOW_ACTIONS_COMMAND;
  const update = () => {
    const s = manager.status();
    const view = statusBarText(s.is_running, s.last_error, manager.toolList().length);
    item.text = view.text;
    item.backgroundColor = view.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    item.tooltip = s.is_running
      ? `Notes MCP server running (pid ${s.pid}, ${s.url})${s.last_error ? `\nLast error: ${s.last_error}` : ''}\nClick for server actions`
      : `Notes MCP server stopped${s.last_error ? `\nLast error: ${s.last_error}` : ''}\nClick for server actions`;
  };
  update();
  item.show();
  context.subscriptions.push(item, manager.onDidChangeStatus(update));
  return item;
}
