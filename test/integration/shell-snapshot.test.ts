// The MCP server's start-up snapshot, made by the extension for the runtime the extension host starts servers with,
// and used by the definition VS Code chat starts.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { connectToDefinition, notesApi } from './shell-helpers';

describe('shell: start-up snapshot of the MCP server', function () {
  this.timeout(120_000);

  it('is made for the runtime in use, and the server definition starts a working server from it', async () => {
    const api = await notesApi();
    const said = await api.prepareStartupSnapshot();
    const cache = process.env.NOTESAPP_CACHE_DIR!;
    const [definition] = api.mcpServerDefinitions();
    if (said.startsWith('No start-up snapshot')) {
      // A runtime that cannot make one (an Electron build): the server starts as before, and the reason is given.
      assert.match(said, new RegExp(`for ${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+\\. The server starts from its code cache\\.$`));
      assert.notEqual(definition.args[0], '--snapshot-blob');
      return;
    }
    assert.match(said, /^(Made a start-up snapshot of the MCP server for |start-up snapshot for )/, said);
    assert.equal(definition.args[0], '--snapshot-blob', definition.args.join(' '));
    const blob = definition.args[1];
    assert.equal(path.dirname(blob), cache, 'in the cache folder');
    assert.ok(fs.statSync(blob).size > 1_000_000, 'a heap image');
    assert.ok(definition.args[2].endsWith(path.join('dist', 'server.js')));
    // Asked again: nothing is made again.
    assert.equal(await api.prepareStartupSnapshot(), `start-up snapshot for ${process.execPath}: ${blob}`);

    const { client, stderr } = await connectToDefinition(definition, 'shell-snapshot-test');
    try {
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      assert.match(client.getInstructions() ?? '', new RegExp(`Notes workspace at ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`));
      // Worker threads (the search's text workers) start in a process restored from the snapshot.
      const listed = (await client.callTool({ name: 'list_files', arguments: {} })) as { content: Array<{ text: string }> };
      assert.ok((JSON.parse(listed.content[0].text) as { files: string[] }).files.includes('index.md'));
      for (let i = 0; i < 2; i++) {
        const found = (await client.callTool({ name: 'search_files', arguments: { query: 'standup' } })) as { isError?: boolean; content: Array<{ text: string }> };
        assert.ok(!found.isError, found.content[0].text);
        assert.ok((JSON.parse(found.content[0].text) as { count: number }).count > 0, 'the search finds the fixture notes');
      }
      const meta = (await client.callTool({ name: 'get_note_metadata', arguments: { path: 'index.md' } })) as { isError?: boolean; structuredContent?: { path?: string } };
      assert.equal(meta.structuredContent?.path, 'index.md');
    } finally {
      await client.close();
    }
    assert.doesNotMatch(stderr(), /\[error\]/, stderr());
  });
});
