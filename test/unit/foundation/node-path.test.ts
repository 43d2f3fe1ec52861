// "Notes: Start MCP Server" when the notesapp.mcp.nodePath setting names no Node.js that can be run.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ConfigStore } from '../../../src/core/config/store';
import { registerMcpShell, type McpShell } from '../../../src/vscode/mcp';
import * as fake from '../fake-vscode';

const repoRoot = path.resolve(__dirname, '../../..');

describe('extension: a notesapp.mcp.nodePath that cannot be run', () => {
  let dir: string;
  let context: { subscriptions: { dispose(): void }[]; extension: unknown; extensionPath: string };
  let shell: McpShell | undefined;

  beforeEach(() => {
    fake.resetFake();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-node-path-'));
    context = { subscriptions: [], extension: { packageJSON: { version: '0.0.0' } }, extensionPath: repoRoot };
    const notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ integrations: { mcp: { autoStart: false } } }));
    fake.workspace.workspaceFolders = [{ uri: fake.Uri.file(notes), name: 'notes', index: 0 }];
    const log = fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel;
    shell = registerMcpShell(context as unknown as vscodeTypes.ExtensionContext, { log, store: new ConfigStore({ file }), bridge: undefined });
  });
  afterEach(async () => {
    await shell?.shutdown();
    shell = undefined;
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs "Notes: Start MCP Server" with the setting; returns last_error and what the user was shown. */
  const startWith = async (nodePath: string) => {
    fake.folderSettings.values['notesapp.mcp.nodePath'] = nodePath;
    fake.shown.length = 0;
    const status = (await fake.commands.executeCommand('notesapp.startServer')) as { is_running: boolean; last_error: string | null };
    assert.equal(status.is_running, false);
    return { last_error: status.last_error, shown: fake.shown.map((n) => `${n.kind}: ${n.message}`) };
  };
  const fix = "set it to a Node.js binary, or clear it to run the server on VS Code's own runtime.";

  it('a path where there is nothing: the error names the setting, not "spawn … ENOENT"', async () => {
    const missing = path.join(dir, 'node-20', 'bin', 'node');
    const expected = `The MCP server did not start: The notesapp.mcp.nodePath setting names ${missing}, which does not exist: ${fix}`;
    assert.deepEqual(await startWith(missing), { last_error: expected, shown: [`error: Notes MCP server stopped (port 3456). Last error: ${expected}`] });
  });

  it('a folder, not a program: the error names the setting', async function () {
    if (process.platform === 'win32') this.skip();
    const expected = `The MCP server did not start: The notesapp.mcp.nodePath setting names ${dir}, which is not a program that can be run (EACCES): ${fix}`;
    assert.equal((await startWith(dir)).last_error, expected);
  });
});
