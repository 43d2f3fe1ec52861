// The notes folder the extension serves when no folder is open: workspace.defaultPath, which may name no folder.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ConfigStore } from '../../../src/core/config/store';
import { registerMcpShell, type McpShell } from '../../../src/vscode/mcp';
import type { ServerStatus } from '../../../src/vscode/mcp/status';
import { registerShowStatus } from '../../../src/vscode/show-status';
import * as fake from '../fake-vscode';

const repoRoot = path.resolve(__dirname, '../../..');

describe('extension: the notes folder from workspace.defaultPath', () => {
  let dir: string;
  let context: { subscriptions: { dispose(): void }[]; extension: unknown; extensionPath: string };
  let shell: McpShell | undefined;

  beforeEach(() => {
    fake.resetFake();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-folder-'));
    context = { subscriptions: [], extension: { packageJSON: { version: '0.0.0' } }, extensionPath: repoRoot };
  });
  afterEach(async () => {
    await shell?.shutdown();
    shell = undefined;
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs "Copy MCP Client Configuration"; returns what it put on the clipboard and what the user was shown. */
  const copy = async (): Promise<{ clipboard: string[]; outcome: string; shown: typeof fake.shown }> => {
    const clipboard: string[] = [];
    const writeText = fake.env.clipboard.writeText;
    fake.env.clipboard.writeText = async (text: string) => {
      clipboard.push(text);
    };
    fake.shown.length = 0;
    try {
      // A command that fails shows its error and returns undefined.
      const outcome = (await fake.commands.executeCommand('notesapp.copyClientConfiguration')) === undefined ? 'not copied' : 'copied';
      return { clipboard, outcome, shown: [...fake.shown] };
    } finally {
      fake.env.clipboard.writeText = writeText;
    }
  };

  let store: ConfigStore;
  const open = (defaultPath: string): McpShell => {
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ workspace: { defaultPath }, integrations: { mcp: { autoStart: false } } }));
    const log = fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel;
    store = new ConfigStore({ file });
    shell = registerMcpShell(context as unknown as vscodeTypes.ExtensionContext, { log, store, bridge: undefined });
    return shell;
  };

  it('a folder that does not exist: start fails naming it, and VS Code chat is offered no server', async () => {
    const missing = path.join(dir, 'Notes');
    const api = open(missing);
    const expected = `The MCP server did not start: The notes folder ${missing} does not exist: create it, open a folder, or change workspace.defaultPath in the configuration.`;
    const status = await api.startServer();
    assert.deepEqual({ is_running: status.is_running, pid: status.pid, last_error: status.last_error }, { is_running: false, pid: null, last_error: expected });
    assert.deepEqual(api.mcpServerDefinitions(), []);
    fake.shown.length = 0;
    await fake.commands.executeCommand('notesapp.startServer');
    assert.deepEqual(fake.shown, [{ kind: 'error', message: `Notes MCP server stopped (port 3456). Last error: ${expected}` }]);
  });

  it('a path that is not absolute, such as ~/Notes: start fails saying so (~ is not expanded), and no server is offered', async () => {
    const api = open('~/Notes');
    const status = await api.startServer();
    assert.equal(status.is_running, false);
    assert.equal(
      status.last_error,
      'The MCP server did not start: The notes folder "~/Notes" is not an absolute path (workspace.defaultPath is taken as written; a leading ~ is not expanded): set the folder\'s full path, or open a folder.',
    );
    assert.deepEqual(api.mcpServerDefinitions(), []);
  });

  it('no folder open and no workspace.defaultPath: "Copy MCP Client Configuration" copies nothing and says why', async () => {
    open('');
    const message = 'Open a notes folder first (or set workspace.defaultPath in the configuration).';
    assert.deepEqual(await copy(), { clipboard: [], outcome: 'not copied', shown: [{ kind: 'error', message }] });
  });

  it('only a folder that is not on this computer\'s disk open (a repository opened remotely): the commands say so, not "open a folder"', async () => {
    const virtual = fake.Uri.from({ scheme: 'vscode-vfs', path: '/github/owner/notes' });
    fake.workspace.workspaceFolders = [{ uri: virtual, name: 'notes', index: 0 }];
    const api = open('');
    const file = path.join(dir, 'config.json');
    registerShowStatus(context as unknown as vscodeTypes.ExtensionContext, fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel, file, () => api.notesFolder());
    const message = `No notes folder: the MCP server serves a folder on this computer's disk, and the open folder is not one (${virtual.toString()}). Open a local folder, or set workspace.defaultPath in the configuration.`;
    fake.shown.length = 0;
    assert.equal(await fake.commands.executeCommand('notesapp.startServer'), undefined);
    assert.deepEqual(fake.shown, [{ kind: 'error', message }]);
    assert.deepEqual(await copy(), { clipboard: [], outcome: 'not copied', shown: [{ kind: 'error', message }] });
    fake.shown.length = 0;
    await fake.commands.executeCommand('notesapp.showStatus');
    assert.deepEqual(fake.shown, [{ kind: 'info', message: `Notes 0.0.0 — configuration: ${file} — workspace: none (no open folder is on this computer's disk)` }]);
  });

  it('a workspace.defaultPath that cannot be served: "Copy MCP Client Configuration" copies nothing and names the problem', async () => {
    const missing = path.join(dir, 'Notes');
    open(missing);
    const message = `No MCP client configuration copied: The notes folder ${missing} does not exist: create it, open a folder, or change workspace.defaultPath in the configuration.`;
    assert.deepEqual(await copy(), { clipboard: [], outcome: 'not copied', shown: [{ kind: 'error', message }] });
    fs.mkdirSync(missing);
    const { clipboard, outcome } = await copy();
    assert.equal(outcome, 'copied');
    assert.deepEqual(JSON.parse(clipboard[0]).mcpServers.notes.args.slice(1), ['--workspace', missing, '--config', path.join(dir, 'config.json')]);
  });

  it('"Copy MCP Client Configuration" names the launcher in the extension storage, which an update leaves in place', async () => {
    const notes = path.join(dir, 'Notes');
    fs.mkdirSync(notes);
    const storage = path.join(dir, 'globalStorage');
    Object.assign(context, { globalStorageUri: fake.Uri.file(storage), extension: { id: 'notesapp.notesapp', packageJSON: { version: '0.0.0' } } });
    open(notes);
    const { clipboard, outcome } = await copy();
    assert.equal(outcome, 'copied');
    const launcher = path.join(storage, 'notesapp-mcp-server.js');
    assert.deepEqual(JSON.parse(clipboard[0]).mcpServers.notes.args, [launcher, '--workspace', notes, '--config', path.join(dir, 'config.json')]);
    assert.ok(fs.readFileSync(launcher, 'utf8').includes(JSON.stringify(path.join(repoRoot, 'dist', 'server.js'))), 'it runs this version');
  });

  it('"Notes: Show Status" names the folder served: workspace.defaultPath with no folder open, else the first local folder', async () => {
    const notes = path.join(dir, 'Notes');
    fs.mkdirSync(notes);
    const api = open(notes);
    const file = path.join(dir, 'config.json');
    registerShowStatus(context as unknown as vscodeTypes.ExtensionContext, fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel, file, () => api.notesFolder());
    const shownStatus = async () => {
      fake.shown.length = 0;
      const summary = await fake.commands.executeCommand('notesapp.showStatus');
      return { summary, shown: fake.shown.map((n) => n.message) };
    };
    assert.deepEqual(await shownStatus(), {
      summary: { version: '0.0.0', configPath: file, workspaceFolder: notes },
      shown: [`Notes 0.0.0 — configuration: ${file} — workspace: ${notes}`],
    });
    // A virtual folder first (a repository opened remotely), then a local one: the local one is served.
    const local = path.join(dir, 'local');
    fs.mkdirSync(local);
    const virtual = { uri: { scheme: 'vscode-vfs', fsPath: '/owner/repo' }, name: 'repo', index: 0 };
    fake.workspace.workspaceFolders = [virtual as unknown as { uri: fake.Uri; name: string; index: number }, { uri: fake.Uri.file(local), name: 'local', index: 1 }];
    assert.equal(((await shownStatus()).summary as { workspaceFolder: string }).workspaceFolder, local);
    assert.equal(api.mcpServerDefinitions()[0]?.args[2], local, 'the folder VS Code chat is offered');
  });

  it('a folder that exists is served, and offered to VS Code chat with it as the working folder', async function () {
    this.timeout(30_000);
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist', 'server.js')), 'dist/server.js is built (npm run build)');
    const notes = path.join(dir, 'Notes');
    fs.mkdirSync(notes);
    const api = open(notes);
    const [definition] = api.mcpServerDefinitions() as unknown as fake.McpStdioServerDefinition[];
    assert.equal(definition.cwd?.fsPath, notes);
    const status = await api.startServer();
    assert.equal(status.last_error, null);
    assert.equal(status.is_running, true);
  });
  describe('a running server when the notes folder changes', () => {
    /** The next status the server reports that `until` accepts. */
    const nextStatus = (api: McpShell, until: (s: ServerStatus) => boolean) =>
      new Promise<ServerStatus>((resolve) => {
        const sub = api.onDidChangeServerStatus((s) => {
          if (!until(s)) return;
          sub.dispose();
          resolve(s);
        });
      });
    /** The folder the running server serves, as its get_workspace_info tool says. */
    const served = async (api: McpShell) => ((await api.callTool('get_workspace_info')).structuredContent as { path: string }).path;
    const shownFolder = async () => ((await fake.commands.executeCommand('notesapp.showStatus')) as { workspaceFolder: string | null }).workspaceFolder;
    const folders = (...names: string[]) =>
      names.map((name) => {
        const folder = path.join(dir, name);
        fs.mkdirSync(folder);
        return folder;
      });
    const started = async (api: McpShell) => {
      registerShowStatus(context as unknown as vscodeTypes.ExtensionContext, fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel, store.file, () => api.notesFolder());
      const status = await api.startServer();
      assert.equal(status.is_running, true, String(status.last_error));
      return status;
    };

    it('workspace.defaultPath changed: the server is restarted on the new folder, the one Show Status names', async function () {
      this.timeout(30_000);
      const [first, second] = folders('First', 'Second');
      const api = open(first);
      const before = await started(api);
      assert.equal(await served(api), first);
      const moved = nextStatus(api, (s) => s.is_running && s.pid !== before.pid);
      await store.setConfigValue(['workspace', 'defaultPath'], second);
      assert.equal((await moved).last_error, null);
      assert.equal(await shownFolder(), second);
      assert.equal(await served(api), second);
    });

    it('workspace.defaultPath cleared with no folder open: the server is stopped rather than left on the old folder', async function () {
      this.timeout(30_000);
      const [first] = folders('First');
      const api = open(first);
      await started(api);
      const stopped = nextStatus(api, (s) => !s.is_running);
      await store.setConfigValue(['workspace', 'defaultPath'], '');
      assert.deepEqual(await stopped, { is_running: false, port: 3456, pid: null, url: null, last_error: null });
      assert.equal(await shownFolder(), null);
    });

    it('a save of the file that is not JSON leaves the server on workspace.defaultPath, and fixing it changes nothing', async function () {
      this.timeout(30_000);
      const [first] = folders('First');
      const api = open(first);
      const before = await started(api);
      const text = fs.readFileSync(store.file, 'utf8');
      // Half-way through typing: a comma missing. The defaults it reads as would have no defaultPath.
      fs.writeFileSync(store.file, text.replace(/\{/, '{ "theme": "dark"'));
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the watch reads it after 100 ms of quiet
      assert.deepEqual([api.serverStatus().is_running, api.serverStatus().pid], [true, before.pid], 'still running, the same process');
      assert.equal(api.notesFolder(), first);
      assert.equal(api.mcpServerDefinitions().length, 1, 'still offered to VS Code chat');
      fs.writeFileSync(store.file, text);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.deepEqual([api.serverStatus().is_running, api.serverStatus().pid], [true, before.pid]);
      assert.equal(await served(api), first);
    });

    it('the local folder served removed from the window: the server moves to the next notes folder', async function () {
      this.timeout(30_000);
      const [local, fallback] = folders('local', 'fallback');
      const virtual = { uri: { scheme: 'vscode-vfs', fsPath: '/owner/repo' }, name: 'repo', index: 0 } as unknown as { uri: fake.Uri; name: string; index: number };
      fake.workspace.workspaceFolders = [virtual, { uri: fake.Uri.file(local), name: 'local', index: 1 }];
      const api = open(fallback);
      const before = await started(api);
      assert.equal(await served(api), local);
      const moved = nextStatus(api, (s) => s.is_running && s.pid !== before.pid);
      fake.workspace.workspaceFolders = [virtual];
      fake.workspaceFoldersChanged.fire();
      await moved;
      assert.equal(await shownFolder(), fallback);
      assert.equal(await served(api), fallback);
    });
  });
});
