// The extension and the server's start-up snapshot: made for the runtime of notesapp.mcp.nodePath, then used by the
// server the extension starts and by VS Code chat's definition; notesapp.mcp.startupSnapshot false leaves it unused.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ConfigStore } from '../../../src/core/config/store';
import { buildStartupSnapshot } from '../../../src/core/startup-snapshot';
import { registerMcpShell, type McpShell } from '../../../src/vscode/mcp';
import * as fake from '../fake-vscode';

const repoRoot = path.resolve(__dirname, '../../..');
const serverScript = path.join(repoRoot, 'dist', 'server.js');

describe('extension: the start-up snapshot of the MCP server', function () {
  this.timeout(60_000);
  let dir: string;
  let context: { subscriptions: { dispose(): void }[]; extension: unknown; extensionPath: string };
  let shell: McpShell;
  let log: ReturnType<typeof fake.fakeLog>;
  let notes: string;
  const previousCache = process.env.NOTESAPP_CACHE_DIR;
  const previousStarts = process.env.NOTESAPP_SNAPSHOT_STARTS;

  beforeEach(() => {
    fake.resetFake();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-snapshot-launch-'));
    process.env.NOTESAPP_CACHE_DIR = path.join(dir, 'cache');
    // Kept without timing it against the code cache, whichever start is sooner on this machine (that timing, and a
    // snapshot found slower, have tests of their own).
    process.env.NOTESAPP_SNAPSHOT_STARTS = '0';
    context = { subscriptions: [], extension: { packageJSON: { version: '0.0.0' } }, extensionPath: repoRoot };
    notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'a.md'), '# A\n\nthe snapshot note\n');
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ integrations: { mcp: { autoStart: false } } }));
    fake.workspace.workspaceFolders = [{ uri: fake.Uri.file(notes), name: 'notes', index: 0 }];
    // A real Node: the test's own.
    fake.folderSettings.values['notesapp.mcp.nodePath'] = process.execPath;
    log = fake.fakeLog();
    shell = registerMcpShell(context as unknown as vscodeTypes.ExtensionContext, { log: log as unknown as vscodeTypes.LogOutputChannel, store: new ConfigStore({ file }), bridge: undefined });
  });
  afterEach(async () => {
    await shell.shutdown();
    for (const d of context.subscriptions.splice(0)) d.dispose();
    if (previousCache === undefined) delete process.env.NOTESAPP_CACHE_DIR;
    else process.env.NOTESAPP_CACHE_DIR = previousCache;
    if (previousStarts === undefined) delete process.env.NOTESAPP_SNAPSHOT_STARTS;
    else process.env.NOTESAPP_SNAPSHOT_STARTS = previousStarts;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is made for the configured Node, then the extension starts its server from it and VS Code chat is offered it', async () => {
    assert.deepEqual(shell.mcpServerDefinitions()[0].args.slice(0, 1), [serverScript], 'none before it is made');
    const said = await shell.prepareStartupSnapshot();
    assert.match(said, new RegExp(`^Made a start-up snapshot of the MCP server for ${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in \\d+ ms: the next start uses it \\(`));
    assert.ok(log.lines.includes(`info ${said}`), 'and says so in the log');
    const blob = fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.blob'));
    assert.equal(blob.length, 1);
    const expected = ['--snapshot-blob', path.join(dir, 'cache', blob[0]), serverScript, '--workspace', notes];
    assert.deepEqual(shell.mcpServerDefinitions()[0].args.slice(0, 5), expected);

    await fake.commands.executeCommand('notesapp.startServer');
    assert.ok(log.lines.some((l) => l.startsWith(`info Starting MCP server: ${process.execPath} ${expected.join(' ')}`)), log.lines.join('\n'));
    assert.equal(shell.serverStatus().is_running, true);
    const found = await shell.callTool('search_files', { query: 'snapshot note' });
    assert.equal((JSON.parse((found.content[0] as { text: string }).text) as { count: number }).count, 1);
  });

  it('found slower than the code cache on this machine, is not used: the server and chat start without it', async () => {
    // A snapshot made and timed for this very runtime and server, its servers answering later.
    const made = await buildStartupSnapshot({ distDir: path.dirname(serverScript), runtime: process.execPath, starts: 1, timeStart: async (start) => (start.fromSnapshot ? 190 : 150) });
    assert.equal(made.ok, false);
    const reason = 'servers started from it answered later than servers started from the code cache (190.0 ms against 150.0 ms to the first tools/list answer, one start each)';
    assert.equal(await shell.prepareStartupSnapshot(), `no start-up snapshot for ${process.execPath}: ${reason}`);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'cache')).filter((f) => f.endsWith('.blob')), []);
    assert.equal(shell.mcpServerDefinitions()[0].args[0], serverScript);
    await fake.commands.executeCommand('notesapp.startServer');
    assert.ok(log.lines.some((l) => l.startsWith(`info Starting MCP server: ${process.execPath} ${serverScript} --workspace`)), log.lines.join('\n'));
    const found = await shell.callTool('search_files', { query: 'snapshot note' });
    assert.equal((JSON.parse((found.content[0] as { text: string }).text) as { count: number }).count, 1);
  });

  it('with notesapp.mcp.startupSnapshot false, is not used though it is there, and is not made', async () => {
    await shell.prepareStartupSnapshot();
    fake.folderSettings.values['notesapp.mcp.startupSnapshot'] = false;
    assert.equal(shell.mcpServerDefinitions()[0].args[0], serverScript);
    assert.equal(await shell.prepareStartupSnapshot(), 'start-up snapshots are off (notesapp.mcp.startupSnapshot)');
    await fake.commands.executeCommand('notesapp.startServer');
    assert.ok(log.lines.some((l) => l.startsWith(`info Starting MCP server: ${process.execPath} ${serverScript} --workspace`)), log.lines.join('\n'));
  });

  it('starts the server without a snapshot its runtime cannot use, and puts that snapshot aside', async () => {
    await shell.prepareStartupSnapshot();
    const blob = shell.mcpServerDefinitions()[0].args[1];
    // Damaged on disk, its size kept: the runtime aborts as it reads it.
    const fd = fs.openSync(blob, 'r+');
    fs.writeSync(fd, Buffer.alloc(64));
    fs.closeSync(fd);
    const status = (await fake.commands.executeCommand('notesapp.startServer')) as { is_running: boolean; last_error: string | null };
    assert.deepEqual([status.is_running, status.last_error], [true, null]);
    assert.ok(log.lines.some((l) => l.startsWith(`warn The MCP server did not start from its start-up snapshot ${blob} (`)), log.lines.join('\n'));
    assert.ok(log.lines.includes(`warn The MCP server's start-up snapshot ${blob} is not used again for this runtime and extension version`), log.lines.join('\n'));
    assert.equal(fs.existsSync(blob), false);
    assert.equal(shell.mcpServerDefinitions()[0].args[0], serverScript, 'no longer offered');
    assert.match(await shell.prepareStartupSnapshot(), /^no start-up snapshot for .*: the runtime did not start the server from it: /);
    const found = await shell.callTool('search_files', { query: 'snapshot note' });
    assert.equal((JSON.parse((found.content[0] as { text: string }).text) as { count: number }).count, 1);
  });
});
