// Shared by the shell integration tests: the activated API, waiting for status events, liveness of a pid.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import type { NotesApi } from '../../src/extension';
import type { ServerStatus } from '../../src/vscode/mcp/status';

export const EXTENSION_ID = 'notesapp.notesapp';

export async function notesApi(): Promise<NotesApi> {
  const ext = vscode.extensions.getExtension<NotesApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not installed in the host`);
  return ext.activate();
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the first status change that satisfies `predicate` (or the current status if it already does). */
export function statusWhere(api: NotesApi, predicate: (s: ServerStatus) => boolean, what: string, timeoutMs = 20000): Promise<ServerStatus> {
  const now = api.serverStatus();
  if (predicate(now)) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}; status is ${JSON.stringify(api.serverStatus())}`));
    }, timeoutMs);
    const sub = api.onDidChangeServerStatus((s) => {
      if (!predicate(s)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(s);
    });
  });
}

/** The text of the first text item of a tool result. */
export function resultText(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const first: unknown = content[0];
  if (first && typeof first === 'object' && 'text' in first && typeof first.text === 'string') return first.text;
  throw new Error(`tool result has no text: ${JSON.stringify(result)}`);
}

/** A fresh note in the open workspace, shown in the active editor; `dispose` reverts, closes and deletes it. */
export async function openScratchNote(text: string): Promise<{ editor: vscode.TextEditor; relative: string; dispose(): Promise<void> }> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test host has no workspace folder open');
  const relative = `shell-scratch-${process.pid}-${Date.now()}.md`;
  const uri = vscode.Uri.joinPath(folder.uri, relative);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  return {
    editor,
    relative,
    dispose: async () => {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await vscode.workspace.fs.delete(uri);
    },
  };
}

/** An MCP client of a server started as VS Code starts `definition` (its env over a minimal environment). */
export async function connectToDefinition(definition: vscode.McpStdioServerDefinition, name: string): Promise<{ client: Client; pid: number; stderr: () => string }> {
  const env: Record<string, string> = { ...getDefaultEnvironment() };
  for (const [k, v] of Object.entries(definition.env)) if (v !== null) env[k] = String(v);
  const transport = new StdioClientTransport({ command: definition.command, args: definition.args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid!, stderr: () => stderr };
}
