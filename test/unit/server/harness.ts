// Starts dist/server.js over real stdio on a fresh copy of the fixture workspace, with an MCP SDK client.
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const serverJs = path.resolve(__dirname, '../../../dist/server.js');
export const fixture = path.resolve(__dirname, '../../fixtures/workspace');

export interface Harness {
  client: Client;
  /** The temporary workspace (a copy of the fixture). */
  workspace: string;
  /** Temporary folder holding config.json (and bridge discovery files). */
  configDir: string;
  configPath: string;
  stderr: () => string;
  /** The server's process id. */
  pid: () => number | null;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  /** Written as config.json; absent keys take the schema's defaults. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  clientOptions?: ClientOptions;
  /** Called before connecting, e.g. to register sampling handlers. */
  setup?: (client: Client) => void;
  /** Workspace to use instead of a fixture copy. */
  workspace?: string;
  /** How the server is told the workspace (default: `--workspace DIR`). */
  workspaceArgs?: (workspace: string) => string[];
  /** Runtime options before dist/server.js (a start-up snapshot's --snapshot-blob FILE). */
  nodeArgs?: string[];
}

// One HOME for every server this test process starts: logs and the server's code cache stay out of the real
// home folder, and the cache is shared between servers so each one starts warm. Removed when the process exits.
let sharedHome: string | undefined;
function testHome(): string {
  if (!sharedHome) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-home-'));
    sharedHome = home;
    process.on('exit', () => fs.rmSync(home, { recursive: true, force: true }));
  }
  return sharedHome;
}

export function copyFixture(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-ws-'));
  fs.cpSync(fixture, dir, { recursive: true });
  return dir;
}

export async function startServer(options: HarnessOptions = {}): Promise<Harness> {
  assert.ok(fs.existsSync(serverJs), 'dist/server.js is built (npm run build)');
  const workspace = options.workspace ?? copyFixture();
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-cfg-'));
  const configPath = path.join(configDir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify(options.config ?? {}, null, 2));
  const client = new Client({ name: 'notesapp-test', version: '1.0.0' }, options.clientOptions);
  options.setup?.(client);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), serverJs, ...(options.workspaceArgs ?? ((dir) => ['--workspace', dir]))(workspace), '--config', configPath],
    env: { ...(process.env as Record<string, string>), HOME: testHome(), USERPROFILE: testHome(), NOTESAPP_BRIDGE_ADDRESS: '', NOTESAPP_BRIDGE_TOKEN: '', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await client.connect(transport);
  return {
    client,
    workspace,
    configDir,
    configPath,
    stderr: () => stderr,
    pid: () => transport.pid,
    close: async () => {
      await client.close();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  };
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Calls a tool that must succeed and returns its structured content. */
/** Tools whose answer grows with the workspace: it comes once, as JSON in the only text block, with no structuredContent. */
export const JSON_TOOLS = ['search_files', 'list_files'];

/** The answer of a call that must succeed: its structuredContent, or for JSON_TOOLS the JSON of its text block. */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await call(client, name, args);
  assert.ok(!result.isError, `${name} failed: ${JSON.stringify(result.content)}`);
  if (JSON_TOOLS.includes(name)) {
    assert.equal(result.structuredContent, undefined, `${name} sends its answer once, as text`);
    assert.equal(result.content.length, 1, `${name} answers one text block`);
    return JSON.parse(textOf(result)) as T;
  }
  assert.ok(result.structuredContent, `${name} returns structuredContent`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail and returns its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(client, name, args);
  assert.equal(result.isError, true, `${name} should fail, got ${JSON.stringify(result.structuredContent ?? result.content)}`);
  const first = result.content[0];
  assert.equal(first.type, 'text');
  return first.type === 'text' ? first.text : '';
}

/** The answer of a JSON tool (JSON_TOOLS) as sent: the JSON of its only text block; it has no structuredContent. */
export function answerOf<T>(result: CallToolResult | Record<string, unknown>): T {
  const { content, structuredContent } = result as CallToolResult;
  assert.equal(structuredContent, undefined, 'the answer is sent once, as text');
  assert.equal(content.length, 1, 'one text block');
  return JSON.parse(textOf(result as CallToolResult)) as T;
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
