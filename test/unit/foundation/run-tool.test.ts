// "Notes: Run MCP Tool…" on the built server (dist/server.js): the call goes to the server running when the user has
// answered the last argument, not to the one running when the command began.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { runTool } from '../../../src/vscode/mcp/run-tool';
import { ServerManager } from '../../../src/vscode/mcp/server-manager';
import { argumentPrompts } from '../../../src/vscode/mcp/tool-arguments';
import { fakeLog, resetFake, window } from '../fake-vscode';

const serverScript = path.resolve(__dirname, '../../../dist/server.js');

describe('extension: Run MCP Tool while the server restarts', () => {
  let dir: string;
  let manager: ServerManager;

  beforeEach(async function () {
    this.timeout(30_000);
    assert.ok(fs.existsSync(serverScript), 'dist/server.js is built (npm run build)');
    resetFake();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-run-tool-'));
    const notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'a.md'), '# Alpha\n');
    manager = new ServerManager({
      launch: () => ({ serverScript, workspaceFolder: notes, configPath: path.join(dir, 'config.json'), nodePath: process.execPath, bridge: undefined }),
      configuredPort: () => 4000,
      log: fakeLog() as unknown as vscodeTypes.LogOutputChannel,
      notify: () => undefined,
      clientVersion: '0',
    });
    const started = await manager.start();
    assert.equal(started.is_running, true, String(started.last_error));
  });
  afterEach(async () => {
    await manager.shutdownForDeactivate();
    manager.dispose();
    resetFake();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Picks read_file; while the path is being typed `meanwhile` happens; the optional arguments are left empty. */
  function answerReadFile(meanwhile: () => Promise<unknown>): void {
    const readFile = manager.toolList().find((t) => t.name === 'read_file');
    assert.ok(readFile, 'the server has read_file');
    const optional = argumentPrompts(readFile.inputSchema).filter((p) => p.name !== 'path');
    window.answers.push({ label: 'read_file' }, async () => {
      await meanwhile();
      return 'a.md';
    }, ...optional.map(() => ''));
  }

  it('calls the restarted server when it was restarted while the arguments were typed', async function () {
    this.timeout(30_000);
    const before = manager.status().pid;
    answerReadFile(() => manager.restart());
    const outcome = await runTool(manager);
    assert.notEqual(manager.status().pid, before, 'the server was restarted');
    assert.ok(outcome, 'not cancelled');
    assert.equal(outcome.result.isError, undefined, JSON.stringify(outcome.result));
    assert.deepEqual(outcome.result.content, [{ type: 'text', text: '# Alpha\n' }]);
    assert.match(outcome.document.getText(), /# Alpha/);
  });

  it('says the server stopped, and how to start it, when it was stopped while the arguments were typed', async function () {
    this.timeout(30_000);
    answerReadFile(() => manager.stop());
    await assert.rejects(runTool(manager), (err: Error) => {
      assert.equal(err.message, 'The Notes MCP server stopped while the arguments of read_file were entered. Start it with "Notes: Start MCP Server" and run the tool again.');
      return true;
    });
  });
});
