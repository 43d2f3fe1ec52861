// The MCP server definition VS Code chat gets: a stdio command that starts a working server with the bridge env.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import { BRIDGE_ENV } from '../../src/core/bridge/protocol';
import { RIPGREP_ENV } from '../../src/core/workspace/ripgrep';
import { connectToDefinition, isAlive, notesApi } from './shell-helpers';

describe('shell: MCP server definition provider for VS Code chat', function () {
  this.timeout(60000);

  it('is contributed in package.json', () => {
    const ext = vscode.extensions.getExtension('notesapp.notesapp')!;
    assert.deepEqual(
      (ext.packageJSON.contributes.mcpServerDefinitionProviders as { id: string }[]).map((p) => p.id),
      ['notesapp.mcpServers'],
    );
  });

  it('defines a stdio server for the open folder whose command starts a working server', async () => {
    const api = await notesApi();
    const [definition, ...rest] = api.mcpServerDefinitions();
    assert.equal(rest.length, 0);
    assert.ok(definition instanceof vscode.McpStdioServerDefinition);
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    assert.equal(definition.label, 'Notes');
    assert.ok(path.isAbsolute(definition.command), 'an absolute runtime path');
    // Once the start-up snapshot is made (see shell-snapshot.test.ts), the runtime is told to start from it first.
    const args = definition.args[0] === '--snapshot-blob' ? definition.args.slice(2) : definition.args;
    assert.ok(args[0].endsWith(path.join('dist', 'server.js')));
    assert.deepEqual(args.slice(1), ['--workspace', folder, '--config', process.env.NOTESAPP_CONFIG_PATH]);
    assert.ok(definition.env[BRIDGE_ENV.address], 'the bridge address is in the environment');
    assert.ok(definition.env[BRIDGE_ENV.token], 'the bridge token is in the environment');
    assert.equal(definition.env.NODE_EXTRA_CA_CERTS, '', 'emptied: VS Code passes its own whole environment, and the server makes no TLS connection');
    const ripgrep = definition.env[RIPGREP_ENV];
    assert.ok(typeof ripgrep === 'string' && ripgrep.startsWith(vscode.env.appRoot) && fs.existsSync(ripgrep), `VS Code's own ripgrep is handed to the server: ${ripgrep}`);

    const { client, pid, stderr } = await connectToDefinition(definition, 'shell-provider-test');
    try {
      assert.deepEqual(await client.ping(), {});
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'get_editor_content'), 'the notes tools are offered');
      // The first search, before the index has read the notes, goes through VS Code's ripgrep.
      const found = (await client.callTool({ name: 'search_files', arguments: { query: 'standup' } })) as { content: Array<{ text: string }> };
      assert.ok((JSON.parse(found.content[0].text) as { count: number }).count > 0, 'the search finds the fixture notes');
      // stderr and stdout are separate pipes: the log line may arrive just after the answer.
      const said = `search: ripgrep ${ripgrep} narrows`;
      for (let waited = 0; !stderr().includes(said) && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(stderr().includes(said), stderr());
    } finally {
      await client.close();
    }
    assert.equal(isAlive(pid), false, 'the spawned server is gone after close');
  });

  it('"Notes: Copy MCP Client Configuration" copies JSON with absolute paths that start a working server', async () => {
    const text = await vscode.commands.executeCommand<string>('notesapp.copyClientConfiguration');
    assert.equal(await vscode.env.clipboard.readText(), text, 'the JSON is on the clipboard');
    const parsed = JSON.parse(text) as { mcpServers: { notes: { command: string; args: string[]; env?: Record<string, string> } } };
    const notes = parsed.mcpServers.notes;
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    assert.ok(path.isAbsolute(notes.command), `absolute runtime path: ${notes.command}`);
    // The launcher in the extension's global storage, which an update of the extension leaves where it is.
    assert.ok(path.isAbsolute(notes.args[0]) && path.basename(notes.args[0]) === 'notesapp-mcp-server.js', notes.args[0]);
    const extensionPath = vscode.extensions.getExtension('notesapp.notesapp')!.extensionPath;
    assert.ok(!notes.args[0].startsWith(extensionPath + path.sep), `not in the extension's own folder: ${notes.args[0]}`);
    assert.deepEqual(notes.args.slice(1), ['--workspace', folder, '--config', process.env.NOTESAPP_CONFIG_PATH]);

    const transport = new StdioClientTransport({ command: notes.command, args: notes.args, env: { ...getDefaultEnvironment(), ...(notes.env ?? {}) }, stderr: 'pipe' });
    const client = new Client({ name: 'shell-client-config-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.deepEqual(await client.ping(), {});
    } finally {
      await client.close();
    }
  });
});
