// "Notes: Run MCP Tool…": pick a tool of the running server, answer its argument prompts, read the result.
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import type { ServerManager } from './server-manager';
import { askForArguments } from './tool-arguments';

function asJson(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/** A markdown rendering of a tool result that a person can read. */
export function renderToolResult(name: string, args: Record<string, unknown>, result: CallToolResult): string {
  const parts = [`# ${name}`, '', '## Arguments', '', '```json', JSON.stringify(args, null, 2), '```', '', result.isError ? '## Error' : '## Result', ''];
  let shownAsJson: unknown;
  for (const item of result.content ?? []) {
    if (item.type === 'text') {
      const json = asJson(item.text);
      if (json === undefined) parts.push(item.text, '');
      else {
        shownAsJson = json;
        parts.push('```json', JSON.stringify(json, null, 2), '```', '');
      }
    }
    else if (item.type === 'resource') parts.push(`Resource ${item.resource.uri}`, '', 'text' in item.resource ? String(item.resource.text) : '(binary)', '');
    else if (item.type === 'resource_link') parts.push(`Resource link: ${item.uri}`, '');
    else parts.push(`(${item.type} content${'mimeType' in item ? `, ${String(item.mimeType)}` : ''})`, '');
  }
  // Servers usually repeat structured content as JSON text; show it once.
  if (result.structuredContent !== undefined && JSON.stringify(result.structuredContent) !== JSON.stringify(shownAsJson)) {
    parts.push('## Structured content', '', '```json', JSON.stringify(result.structuredContent, null, 2), '```', '');
  }
  return parts.join('\n');
}

export interface RunToolOutcome {
  tool: string;
  arguments: Record<string, unknown>;
  result: CallToolResult;
  document: vscode.TextDocument;
}

/**
 * With `toolName` and `args` nothing is asked (scripts and tests); otherwise the user picks and answers.
 * Returns undefined when the user cancels.
 */
export async function runTool(manager: ServerManager, toolName?: string, args?: Record<string, unknown>): Promise<RunToolOutcome | undefined> {
  const client = manager.client();
  if (!client) throw new Error('The Notes MCP server is not running. Start it with "Notes: Start MCP Server".');
  const tools = manager.toolList().length ? manager.toolList() : (await client.listTools()).tools;
  let name = toolName;
  if (!name) {
    const picked = await vscode.window.showQuickPick(
      tools.map((t) => ({ label: t.name, description: t.title, detail: t.description })),
      { title: 'Run MCP Tool', placeHolder: 'Pick a tool of the Notes MCP server', matchOnDetail: true },
    );
    if (!picked) return undefined;
    name = picked.label;
  }
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`The Notes MCP server has no tool named "${name}".`);
  const finalArgs = args ?? (await askForArguments(tool.name, tool.inputSchema));
  if (!finalArgs) return undefined;
  // The server may have been restarted (or stopped) while the user picked and typed: call the one running now.
  const current = manager.client();
  if (!current) {
    throw new Error(`The Notes MCP server stopped while the arguments of ${tool.name} were entered. Start it with "Notes: Start MCP Server" and run the tool again.`);
  }
  if (current !== client && manager.toolList().length && !manager.toolList().some((t) => t.name === tool.name)) {
    throw new Error(`The Notes MCP server was restarted while the arguments were entered and no longer has a tool named "${tool.name}".`);
  }
  const result = CallToolResultSchema.parse(await current.callTool({ name: tool.name, arguments: finalArgs }));
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: renderToolResult(tool.name, finalArgs, result) });
  await vscode.window.showTextDocument(document, { preview: true });
  return { tool: tool.name, arguments: finalArgs, result, document };
}
