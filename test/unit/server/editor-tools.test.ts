// Editor tools through a real MCP client, against a fake editor bridge: a real socket speaking the bridge protocol.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { discoveryFilePath } from '../../../src/core/bridge/discovery';
import { BRIDGE_PROTOCOL_VERSION, BridgeErrorCodes, BridgeMethods } from '../../../src/core/bridge/protocol';
import { EditorBridgeClient } from '../../../server/editor-bridge-client';
import type { NotesError } from '../../../src/core/errors';
import { RawServer } from '../hardening/raw-server';
import { call, callError, callOk, startServer, textOf } from './harness';

const packageVersion = (JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;

interface FakeEditor {
  content: string;
  path: string | null;
  /** When false, answers every editor request with the "no active editor" error. */
  active: boolean;
  /** When true, accepts connections and never answers. */
  silent: boolean;
  /** When true, closes every connection as soon as it is accepted (as VS Code's bridge does over its connection limits). */
  refuse?: boolean;
  /** The document's URI (by default a file:///ws/ one made of `path`). */
  uri?: string;
  /** Milliseconds each method waits before it answers (and, for an edit, before it edits). */
  delays?: Partial<Record<string, number>>;
  /** The protocol version the window answers authentication with (by default the server's own). */
  protocolVersion?: number;
  /** Whether the document has unsaved changes (by default it has). */
  isDirty?: boolean;
  /** When set, getEditorContent is answered by writing these bytes on the socket, and by no message. */
  rawAnswer?: Buffer;
  /** When true, answers with the whole text whatever length is asked for, as an extension of before `maxLength`. */
  ignoresMaxLength?: boolean;
  /** When set, authentication is refused as a window of this protocol version and extension version refuses it. */
  refuses?: { protocolVersion: number; version: string };
  /** Methods whose next request closes its connection when it arrives, unanswered (a window reloading then), once each. */
  closesOn?: Set<string>;
}

/** Writes the discovery file a window of process `pid` would write for the harness's workspace; returns its path. */
function writeDiscovery(h: { configDir: string; workspace: string }, pid: number, address: string, token: string): string {
  const file = discoveryFilePath(h.configDir, h.workspace, pid);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify({ protocolVersion: 1, address, token, workspaceFolder: h.workspace, pid, createdAt: new Date().toISOString() }));
  return file;
}

class FakeBridge {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-bridge-'));
  readonly address = process.platform === 'win32' ? `\\\\.\\pipe\\notesapp-test-${process.pid}-${Date.now()}` : path.join(this.dir, 'bridge.sock');
  readonly token = 'test-token-123';
  readonly editor: FakeEditor = { content: '# Draft\n\nHello', path: 'drafts/draft.md', active: true, silent: false };
  readonly received: Array<{ method: string; params: unknown }> = [];
  /** The folders the window answers authentication with (every test workspace lives under the temp folder). */
  folders = [os.tmpdir()];
  /** Requests whose handler saw the client cancel them while it waited. */
  readonly cancelled: string[] = [];
  /** Connections accepted so far. */
  connections = 0;
  private readonly server = net.createServer((socket) => this.serve(socket));
  private readonly sockets = new Set<net.Socket>();

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.address, resolve));
  }

  private serve(socket: net.Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    if (this.editor.refuse) {
      socket.destroy();
      return;
    }
    if (this.editor.silent) return;
    const connection = createMessageConnection(new StreamMessageReader(socket), new StreamMessageWriter(socket));
    let authenticated = false;
    const uri = () => this.editor.uri ?? `file:///ws/${this.editor.path}`;
    connection.onRequest(async (method: string, params: unknown, token) => {
      this.received.push({ method, params });
      token.onCancellationRequested(() => this.cancelled.push(method));
      if (this.editor.closesOn?.delete(method)) {
        socket.destroy();
        return new Promise(() => undefined);
      }
      const delay = this.editor.delays?.[method];
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (method === BridgeMethods.authenticate) {
        const token = (params as { token?: string }).token;
        if (token !== this.token) return new ResponseError(BridgeErrorCodes.unauthorized, 'bad token');
        const refuses = this.editor.refuses;
        if (refuses) return new ResponseError(BridgeErrorCodes.incompatible, 'another protocol version', refuses);
        authenticated = true;
        return { ok: true, protocolVersion: this.editor.protocolVersion ?? BRIDGE_PROTOCOL_VERSION, version: '9.9.9', workspaceFolders: this.folders };
      }
      if (!authenticated) return new ResponseError(BridgeErrorCodes.unauthorized, 'not authenticated');
      if (!this.editor.active) return new ResponseError(BridgeErrorCodes.noActiveEditor, 'No active text editor');
      const content = (params as { content: string }).content;
      switch (method) {
        case BridgeMethods.getEditorContent: {
          if (this.editor.rawAnswer) {
            socket.write(this.editor.rawAnswer);
            return new Promise(() => undefined);
          }
          const about = { path: this.editor.path, uri: uri(), languageId: 'markdown', isDirty: this.editor.isDirty ?? true };
          const maxLength = this.editor.ignoresMaxLength ? undefined : (params as { maxLength?: number }).maxLength;
          // As the extension does: a text longer than the server can answer is left out, its length given.
          if (maxLength !== undefined && this.editor.content.length > maxLength) return { content: '', ...about, omittedLength: this.editor.content.length };
          return { content: this.editor.content, ...about };
        }
        case BridgeMethods.setEditorContent:
          this.editor.content = content;
          return { applied: true, path: this.editor.path, uri: uri(), edits: 1 };
        case BridgeMethods.insertAtCursor:
          this.editor.content += content;
          return { applied: true, path: this.editor.path, uri: uri(), edits: 1 };
        default:
          return new ResponseError(-32601, `unknown method ${method}`);
      }
    });
    connection.listen();
  }

  /** Connections open now. */
  get open(): number {
    return this.sockets.size;
  }

  /** Closes every connection, as a VS Code window that reloads does. */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('MCP editor tools through the editor bridge', () => {
  let bridge: FakeBridge;
  beforeEach(async () => {
    bridge = new FakeBridge();
    await bridge.listen();
  });
  afterEach(async () => bridge.close());

  it('get, set and insert reach the editor at NOTESAPP_BRIDGE_ADDRESS after authenticating with the token', async () => {
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      const uri = pathToFileURL(path.join(h.workspace, 'drafts', 'draft.md')).href;
      bridge.editor.uri = uri;
      const got = await call(h.client, 'get_editor_content');
      assert.equal(textOf(got), '# Draft\n\nHello');
      assert.deepEqual(got.structuredContent, { content: '# Draft\n\nHello', path: 'drafts/draft.md', uri, languageId: 'markdown', isDirty: true });
      assert.deepEqual(await callOk(h.client, 'set_editor_content', { content: '# Replaced\n' }), { success: true, path: 'drafts/draft.md', uri, edits: 1 });
      assert.equal(bridge.editor.content, '# Replaced\n');
      await callOk(h.client, 'insert_at_cursor', { content: 'more text' });
      assert.equal(bridge.editor.content, '# Replaced\nmore text');
      assert.deepEqual(
        bridge.received.map((r) => r.method),
        [BridgeMethods.authenticate, BridgeMethods.getEditorContent, BridgeMethods.setEditorContent, BridgeMethods.insertAtCursor],
        'one authenticated connection is reused',
      );
      assert.deepEqual(bridge.received[0].params, { token: bridge.token, protocolVersion: BRIDGE_PROTOCOL_VERSION, version: packageVersion });
      bridge.editor.active = false;
      assert.match(await callError(h.client, 'get_editor_content'), /VS Code has no active text editor/);
    } finally {
      await h.close();
    }
  });

  it("give the document's path in this workspace, not in the window's folder that holds it", async () => {
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      // A multi-root window: the note is in its other folder, where VS Code calls it "draft.md" as it would a note here.
      bridge.editor.path = 'draft.md';
      bridge.editor.uri = pathToFileURL(path.join(os.tmpdir(), 'other-notes', 'draft.md')).href;
      assert.equal((await callOk<{ path: string | null }>(h.client, 'get_editor_content')).path, null);
      assert.equal((await callOk<{ path: string | null }>(h.client, 'set_editor_content', { content: 'x' })).path, null);
      // A folder of the window nested in this workspace.
      bridge.editor.uri = pathToFileURL(path.join(h.workspace, 'projects', 'draft.md')).href;
      assert.equal((await callOk<{ path: string | null }>(h.client, 'get_editor_content')).path, 'projects/draft.md');
      assert.equal((await callOk<{ path: string | null }>(h.client, 'insert_at_cursor', { content: 'y' })).path, 'projects/draft.md');
      // An untitled document has no path.
      bridge.editor.uri = 'untitled:Untitled-1';
      assert.equal((await callOk<{ path: string | null }>(h.client, 'get_editor_content')).path, null);
    } finally {
      await h.close();
    }
  });

  it('parallel calls before any connection exists share one connection', async () => {
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => callOk<{ content: string }>(h.client, 'get_editor_content')));
      assert.deepEqual(results.map((r) => r.content), Array(5).fill('# Draft\n\nHello'));
      assert.equal(bridge.connections, 1);
      assert.equal(bridge.received.filter((r) => r.method === BridgeMethods.authenticate).length, 1);
    } finally {
      await h.close();
    }
  });

  it('finds the bridge through the discovery file of its workspace in the config folder', async () => {
    const h = await startServer();
    try {
      // The discovery file is read when a tool needs the editor, so it may appear after the server started.
      const file = discoveryFilePath(h.configDir, h.workspace);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(
        file,
        JSON.stringify({ protocolVersion: 1, address: bridge.address, token: bridge.token, workspaceFolder: h.workspace, pid: process.pid, createdAt: new Date().toISOString() }),
        { mode: 0o600 },
      );
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('takes no discovery file that is not a regular file of this user, writable by no one else, and keeps serving', async function () {
    if (process.platform === 'win32') this.skip(); // named pipes in a folder and file modes are POSIX's
    const h = await startServer();
    try {
      const file = discoveryFilePath(h.configDir, h.workspace);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // A named pipe would have blocked the server's only thread for good (a read waits for a writer).
      assert.equal(spawnSync('mkfifo', [file]).status, 0);
      let message = await callError(h.client, 'get_editor_content');
      assert.match(message, /No VS Code editor is attached.*are not valid; not taken: [0-9a-f]+\.\d+\.json: not a regular file\)/);
      fs.rmSync(file);
      // Writable by others: whoever wrote it may not be the window the token should go to.
      const body = JSON.stringify({ protocolVersion: 1, address: bridge.address, token: bridge.token, workspaceFolder: h.workspace, pid: process.pid, createdAt: new Date().toISOString() });
      fs.writeFileSync(file, body);
      fs.chmodSync(file, 0o666);
      message = await callError(h.client, 'get_editor_content');
      assert.match(message, /not taken: [0-9a-f]+\.\d+\.json: writable by others \(mode 666\)\)/);
      assert.equal(bridge.connections, 0, 'the token went nowhere');
      fs.chmodSync(file, 0o600);
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('takes no discovery file from a discovery folder others can write, and does once it is private again', async function () {
    if (process.platform === 'win32') this.skip(); // folder modes are POSIX's
    const h = await startServer();
    try {
      writeDiscovery(h, process.pid, bridge.address, bridge.token);
      const dir = path.dirname(discoveryFilePath(h.configDir, h.workspace));
      // Whoever can write the folder can rename a window's file to another workspace's name.
      fs.chmodSync(dir, 0o777);
      const message = await callError(h.client, 'get_editor_content');
      assert.equal(
        message,
        `No VS Code editor is attached: open this workspace in VS Code with the Notes App extension running, then try again. (the discovery folder ${dir} is writable by others (mode 777), so none of its files is taken; the extension makes it private (0700) when it writes its file there)`,
      );
      assert.equal(bridge.connections, 0, 'the token went nowhere');
      fs.chmodSync(dir, 0o700);
      // Another user's folder is not the extension's to make private: the error says to remove it. Giving a folder
      // to another user takes root. (Checked before any connection is made: a call looks for a window only when
      // it has none.)
      if (process.getuid?.() === 0) {
        fs.chownSync(dir, 65534, 65534);
        assert.match(
          await callError(h.client, 'get_editor_content'),
          /\(the discovery folder .* is owned by user 65534, not by this user \(0\), so none of its files is taken; remove it, and the extension makes a private one of its own\)$/,
        );
        assert.equal(bridge.connections, 0, 'the token went nowhere');
        fs.chownSync(dir, 0, 0);
      }
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('gives up on windows that never answer after a few of them, naming how many were not tried', async function () {
    this.timeout(30_000);
    bridge.editor.silent = true;
    const h = await startServer();
    try {
      // Twenty windows, all silent (accepting, never answering): 2 s each, one after another, was 40 s.
      for (let i = 0; i < 20; i++) {
        const pid = i === 0 ? process.pid : 4_000_000 + i;
        writeDiscovery(h, pid, bridge.address, bridge.token);
      }
      const message = await callError(h.client, 'get_editor_content');
      assert.match(message, /^No VS Code editor is attached.*\(the bridge did not answer authentication within 2000 ms\) \(and 2 more VS Code window\(s\) with this workspace did not answer either\) \(17 more not tried: 5000 ms were spent\)$/);
    } finally {
      await h.close();
    }
  });

  it('lets an edit in progress finish when the window removes its discovery file meanwhile; the next call looks again', async () => {
    const other = new FakeBridge();
    await other.listen();
    other.editor.content = '# Other window';
    bridge.editor.delays = { [BridgeMethods.setEditorContent]: 1500 };
    const h = await startServer();
    try {
      const write = (pid: number, target: FakeBridge) => writeDiscovery(h, pid, target.address, target.token);
      const first = write(process.pid, bridge);
      const editing = callOk<{ success: boolean }>(h.client, 'set_editor_content', { content: '# Edited' });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the edit is under way in the first window
      fs.rmSync(first);
      write(process.ppid, other);
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Other window');
      assert.equal((await editing).success, true, 'the edit was answered, not cut off as a lost connection');
      assert.equal(bridge.editor.content, '# Edited');
    } finally {
      await h.close();
      await other.close();
    }
  });

  it('drops a bridge that sends more than an authentication answer takes before it has authenticated, and keeps serving', async function () {
    if (process.platform === 'win32') this.skip(); // the flood is sent over a Unix socket
    // A message declared under the limit of one message: the budget before authentication is what stops it. One
    // declared over that limit is stopped at its header.
    for (const [declared, why] of [
      [60 * 1024 * 1024, 'sent more than 1048576 bytes before authenticating'],
      [500 * 1024 * 1024, 'sent a message of 524288000 bytes, over the 67108864 bytes the editor bridge takes in one message before authenticating'],
    ] as const) {
      let sent = 0;
      const flood = net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.write(`Content-Length: ${declared}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const more = () => {
          while (sent < 8 * 1024 * 1024 && !socket.destroyed) {
            sent += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', more);
          }
        };
        more();
      });
      const address = path.join(bridge.dir, 'flood.sock');
      await new Promise<void>((resolve) => flood.listen(address, resolve));
      const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: address, NOTESAPP_BRIDGE_TOKEN: 'x' } });
      try {
        const message = await callError(h.client, 'get_editor_content');
        assert.ok(message.includes(`(the bridge at ${address} ${why}: it is no VS Code window)`), message);
        assert.ok(sent < 8 * 1024 * 1024, `the server stopped reading after ${sent} bytes`);
        assert.equal((await callOk<{ path: string }>(h.client, 'get_workspace_info')).path, h.workspace, 'still serving');
      } finally {
        await h.close();
        await new Promise((resolve) => flood.close(resolve));
      }
    }
  });

  it('refuses a bridge address longer than a socket path may be instead of connecting where Node would cut it', async function () {
    if (process.platform === 'win32') this.skip(); // Windows names pipes, which have no such limit
    const long = `${bridge.dir}/${'d'.repeat(120)}/bridge.sock`;
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: long, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      const message = await callError(h.client, 'get_editor_content');
      assert.ok(message.includes(`(the bridge address ${long} is longer than the ${process.platform === 'linux' ? 107 : 103} bytes a socket path may have)`), message);
    } finally {
      await h.close();
    }
  });

  it('with several windows on the workspace, reaches the one focused last, passing over windows that are gone', async () => {
    const other = new FakeBridge();
    await other.listen();
    other.editor.content = '# Other window';
    // A third live process: the window whose socket is gone still has a process (its number reused, say).
    const third = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const h = await startServer();
    try {
      const write = (pid: number, address: string, token: string, focused: Date) => {
        const file = discoveryFilePath(h.configDir, h.workspace, pid);
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        fs.writeFileSync(file, JSON.stringify({ protocolVersion: 1, address, token, workspaceFolder: h.workspace, pid, createdAt: new Date().toISOString() }));
        fs.utimesSync(file, focused, focused);
      };
      const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
      // Focused last, but its socket is gone (the window crashed with its process number still in use).
      write(third.pid!, path.join(bridge.dir, 'gone.sock'), 'x', minutesAgo(1));
      write(process.pid, bridge.address, bridge.token, minutesAgo(10));
      write(process.ppid, other.address, other.token, minutesAgo(5));
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Other window');
      assert.equal(bridge.connections, 0);
    } finally {
      third.kill();
      await h.close();
      await other.close();
    }
  });

  it('leaves a window whose discovery file was removed (the workspace left it) for the window that still has it', async () => {
    const other = new FakeBridge();
    await other.listen();
    other.editor.content = '# Other window';
    const h = await startServer();
    try {
      const write = (pid: number, target: FakeBridge) => writeDiscovery(h, pid, target.address, target.token);
      const first = write(process.pid, bridge);
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello');
      write(process.ppid, other);
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello', 'the connection is kept while its window has the workspace');
      fs.rmSync(first);
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Other window');
    } finally {
      await h.close();
      await other.close();
    }
  });

  it('refuses a window found by its discovery file that does not have the workspace open (a folder removed from it)', async () => {
    bridge.folders = [path.join(os.tmpdir(), 'some-other-notes')];
    const h = await startServer();
    try {
      const file = discoveryFilePath(h.configDir, h.workspace);
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, JSON.stringify({ protocolVersion: 1, address: bridge.address, token: bridge.token, workspaceFolder: h.workspace, pid: process.pid, createdAt: new Date().toISOString() }));
      const message = await callError(h.client, 'set_editor_content', { content: 'x' });
      assert.match(message, /No VS Code editor is attached.*has .*some-other-notes open, not /);
      assert.deepEqual(bridge.received.map((r) => r.method), [BridgeMethods.authenticate]);
      assert.equal(bridge.editor.content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('reaches the window that started it even when that window has no folder open', async () => {
    bridge.folders = [];
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      assert.equal((await callOk<{ content: string }>(h.client, 'get_editor_content')).content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('answers a wrong token with a clear error', async () => {
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: 'wrong' } });
    try {
      const message = await callError(h.client, 'insert_at_cursor', { content: 'x' });
      assert.match(message, /No VS Code editor is attached/);
      assert.match(message, /refused the token/);
      assert.equal(bridge.editor.content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('answers a document too large to send whole with what to do, by whether it is a saved file of the workspace', async function () {
    this.timeout(60_000);
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      // 5.5 MB: the answer carries it twice, over the 10 420 224-byte reply limit. Longer than the longest text a
      // reply can hold, it is not even sent: the server asks for at most (10 420 224 - 1 024) / 2 characters.
      const line = `${'abcdefghij'.repeat(9)}\n`;
      bridge.editor.content = line.repeat(60_000);
      // The size of the answer, measured from the reply, is not part of what is checked here.
      const answer = async () => (await callError(h.client, 'get_editor_content')).replace(/at least \d+ bytes/, 'at least N bytes');
      const tooLarge = (uri: string, advice: string) =>
        `The document in the editor (${uri}) is too large to answer whole: its 5460000 characters make an answer of at least N bytes ` +
        `(the text comes twice, as the text block and in structuredContent), over the limit of 10420224 bytes. ${advice}`;
      bridge.editor.uri = 'untitled:Untitled-1';
      bridge.editor.path = null;
      assert.equal(
        await answer(),
        tooLarge('untitled:Untitled-1', 'It is not a file of this workspace (untitled, or outside it): save it into the workspace, then read it in pieces with read_file and its offset and length arguments.'),
      );
      const uri = pathToFileURL(path.join(h.workspace, 'drafts', 'big.md')).href;
      bridge.editor.uri = uri;
      bridge.editor.path = 'drafts/big.md';
      assert.equal(await answer(), tooLarge(uri, 'It has unsaved changes: save it, then read "drafts/big.md" in pieces with read_file and its offset and length arguments.'));
      bridge.editor.isDirty = false;
      assert.equal(await answer(), tooLarge(uri, 'Its saved file holds the same text: read "drafts/big.md" in pieces with read_file and its offset and length arguments.'));
      const asked = bridge.received.filter((r) => r.method === BridgeMethods.getEditorContent).map((r) => r.params);
      // The reply limit less the request id (1 byte here), the envelope (1 024), the other fields at their shortest
      // (67) and the text's quotes (4), halved: (10 420 224 - 1 - 1 024 - 67 - 4) / 2.
      assert.deepEqual(asked.at(-1), { maxLength: 5_209_564 });
      // Shorter than that but of two-byte characters, it is sent, and its answer measured.
      bridge.editor.content = 'é'.repeat(3_000_000);
      const measured = await callError(h.client, 'get_editor_content');
      const [, bytes] = /its 3000000 characters make an answer of about (\d+) bytes \(the text comes twice/.exec(measured) ?? [];
      assert.ok(Number(bytes) > 12_000_000, measured.slice(0, 300));
      // 5 MB fits: it comes whole.
      bridge.editor.content = line.repeat(55_000);
      const whole = await call(h.client, 'get_editor_content');
      assert.equal(whole.isError, undefined);
      assert.equal(textOf(whole), bridge.editor.content);
    } finally {
      await h.close();
    }
  });

  it('closes the connection at the header of an answer over 64 MiB (an extension of before maxLength), without reading it, and keeps serving', async function () {
    if (process.platform !== 'linux') this.skip(); // the server's peak memory is read from /proc
    this.timeout(60_000);
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${h.pid()}/status`, 'utf8'))?.[1]) * 1024;
      assert.equal(textOf(await call(h.client, 'get_editor_content')), '# Draft\n\nHello');
      const before = peak();
      bridge.editor.ignoresMaxLength = true;
      bridge.editor.content = 'x'.repeat(65 * 1024 * 1024);
      const refused = await callError(h.client, 'get_editor_content');
      const [, bytes] = /^The connection to VS Code was closed: while notesapp\/getEditorContent waited for its answer, VS Code sent a message of (\d+) bytes, over the 67108864 bytes the editor bridge takes in one message \(the answer to this call or to another one made at the same time\), and nothing of it was read\. If that was the document in the editor, it is too large to send whole: read its saved file in pieces with read_file and its offset and length arguments, or update the Notes App extension, which sends only what can be answered\.$/.exec(refused) ?? [];
      assert.ok(Number(bytes) > 65 * 1024 * 1024, refused.slice(0, 400));
      // Read whole, the message alone would have taken 65 MiB as bytes and again as text.
      assert.ok(peak() - before < 32 * 1024 * 1024, `the server's peak memory grew by ${peak() - before} bytes`);
      // The next call connects again.
      bridge.editor.content = '# Small';
      assert.equal(textOf(await call(h.client, 'get_editor_content')), '# Small');
    } finally {
      await h.close();
    }
  });

  it('names an answer size over the limit when a long request id is what makes the document not fit', async function () {
    this.timeout(60_000);
    const raw = new RawServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      await raw.initialize();
      const limit = 10_420_224;
      // About 1 000 bytes under the limit with a short id; a 2 000-character id takes it over.
      const probe = await raw.request('a', 'tools/call', { name: 'get_editor_content', arguments: {} });
      assert.equal((probe.result as { isError?: boolean }).isError, undefined);
      const small = Buffer.byteLength(JSON.stringify(probe.result)) + 1024;
      bridge.editor.content = `${bridge.editor.content}${'x'.repeat(Math.floor((limit - small - 1000) / 2))}`;
      const fits = await raw.request('b', 'tools/call', { name: 'get_editor_content', arguments: {} });
      assert.equal((fits.result as { isError?: boolean }).isError, undefined, 'fits with a short id');
      const long = 'i'.repeat(2000);
      const refused = (await raw.request(long, 'tools/call', { name: 'get_editor_content', arguments: {} })).result as { isError?: boolean; content: Array<{ text: string }> };
      assert.equal(refused.isError, true);
      // With the longer id, the text is longer than the longest that fits, so the window leaves it out.
      const [, bytes, over] = /make an answer of at least (\d+) bytes .* over the limit of (\d+) bytes/.exec(refused.content[0].text) ?? [];
      assert.equal(Number(over), limit);
      assert.ok(Number(bytes) > limit, refused.content[0].text.slice(0, 300));
    } finally {
      raw.child.kill();
      await raw.exited;
    }
  });

  it('names both versions when the window speaks another protocol version, and sends it nothing more', async () => {
    const other = BRIDGE_PROTOCOL_VERSION + 1;
    bridge.editor.protocolVersion = other;
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      assert.equal(
        await callError(h.client, 'set_editor_content', { content: 'x' }),
        `This MCP server ${packageVersion} (editor bridge protocol ${BRIDGE_PROTOCOL_VERSION}) cannot work with the Notes App extension 9.9.9 (editor bridge protocol ${other}) of the VS Code window at ${bridge.address}: run the MCP server of the installed extension (its "Copy MCP Client Configuration" command gives the command line), or update both to the same version.`,
      );
      assert.deepEqual(bridge.received.map((r) => r.method), [BridgeMethods.authenticate]);
      assert.equal(bridge.editor.content, '# Draft\n\nHello');
    } finally {
      await h.close();
    }
  });

  it('names both versions when the window refuses it for its protocol version', async () => {
    const other = BRIDGE_PROTOCOL_VERSION + 1;
    bridge.editor.refuses = { protocolVersion: other, version: '2.0.0' };
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      assert.equal(
        await callError(h.client, 'get_editor_content'),
        `This MCP server ${packageVersion} (editor bridge protocol ${BRIDGE_PROTOCOL_VERSION}) cannot work with the Notes App extension 2.0.0 (editor bridge protocol ${other}) of the VS Code window at ${bridge.address}: run the MCP server of the installed extension (its "Copy MCP Client Configuration" command gives the command line), or update both to the same version.`,
      );
    } finally {
      await h.close();
    }
  });

  it('gives up on a bridge that accepts but never answers, within the short timeout', async () => {
    bridge.editor.silent = true;
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      const started = Date.now();
      assert.match(await callError(h.client, 'get_editor_content'), /No VS Code editor is attached.*did not answer/);
      assert.ok(Date.now() - started < 5000);
    } finally {
      await h.close();
    }
  });
});

describe('the editor bridge client when VS Code is slow or goes away', () => {
  let bridge: FakeBridge;
  let client: EditorBridgeClient;
  const connect = (requestTimeoutMs: number) =>
    new EditorBridgeClient({
      workspaceRoot: os.tmpdir(),
      configDir: bridge.dir,
      env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token },
      requestTimeoutMs,
    });
  beforeEach(async () => {
    bridge = new FakeBridge();
    await bridge.listen();
    client = connect(400);
  });
  afterEach(async () => {
    client.dispose();
    await bridge.close();
  });

  it('fails a waiting request at once when the connection closes, saying the edit may have been made; then connects again', async () => {
    // A timeout far longer than the wait, so that a slow machine cannot have the call fail for it instead.
    client.dispose();
    client = connect(20_000);
    bridge.editor.delays = { [BridgeMethods.insertAtCursor]: 5000 };
    await client.getEditorContent();
    const started = Date.now();
    const waiting = client.insertAtCursor('x').then(
      () => 'answered',
      (err: Error) => err.message,
    );
    setTimeout(() => bridge.drop(), 100);
    const message = await waiting;
    assert.match(message, /No VS Code editor is attached.*the connection was lost.*The edit may or may not have been made/);
    // Before, it waited for its timeout (10 s by default); the window's answer would have come after 5 s.
    assert.ok(Date.now() - started < 5000, `failed after ${Date.now() - started} ms`);
    bridge.editor.delays = {};
    assert.equal((await client.getEditorContent()).content, '# Draft\n\nHello');
    assert.equal(bridge.connections, 2);
  });

  it('asks again, once, for the text when the window closes the connection on that request; an edit is not sent twice', async () => {
    await client.getEditorContent();
    // A window that reloads closes its connections, perhaps with a request just sent on one.
    bridge.editor.closesOn = new Set([BridgeMethods.getEditorContent]);
    assert.equal((await client.getEditorContent()).content, '# Draft\n\nHello');
    assert.equal(bridge.connections, 2);
    // Closed on every try: the error says so after the second try.
    bridge.editor.closesOn = { delete: (method: string) => method === BridgeMethods.getEditorContent } as unknown as Set<string>;
    const read = await client.getEditorContent().then(
      () => undefined,
      (err: NotesError) => err,
    );
    assert.deepEqual([read?.code, read?.message], ['NO_EDITOR', 'No VS Code editor is attached: open this workspace in VS Code with the Notes App extension running, then try again. (the connection was lost: Pending response rejected since connection got disposed)']);
    assert.equal(bridge.connections, 3, 'the open connection, then one more');
    // An edit may have been made before the connection closed: it is not made again, and the error says so.
    bridge.editor.closesOn = new Set([BridgeMethods.setEditorContent]);
    const edit = await client.setEditorContent('# New\n').then(
      () => undefined,
      (err: NotesError) => err,
    );
    assert.match(edit?.message ?? '', /the connection was lost: .*The edit may or may not have been made: read the editor before trying again\.$/);
    assert.equal(bridge.received.filter((r) => r.method === BridgeMethods.setEditorContent).length, 1);
    assert.equal(bridge.editor.content, '# Draft\n\nHello');
  });

  it('closes the connection at a message without a valid header, telling each call waiting on it; then connects again', async () => {
    await client.getEditorContent();
    bridge.editor.delays = { [BridgeMethods.setEditorContent]: 300 };
    bridge.editor.rawAnswer = Buffer.from('X-Junk: 1\r\n\r\n{}');
    const edit = client.setEditorContent('# New\n').then(
      () => undefined,
      (err: NotesError) => err,
    );
    const get = await client.getEditorContent().then(
      () => undefined,
      (err: NotesError) => err,
    );
    const closed = (method: string) =>
      `The connection to VS Code was closed: while ${method} waited for its answer, VS Code sent a message without a valid header (the answer to this call or to another one made at the same time), and nothing of it was read.`;
    // No word of a document too large: nothing says what the message held.
    assert.deepEqual([get?.code, get?.message], ['INTERNAL', closed(BridgeMethods.getEditorContent)]);
    const editError = await edit;
    assert.deepEqual([editError?.code, editError?.message], ['INTERNAL', `${closed(BridgeMethods.setEditorContent)} The edit may or may not have been made: read the editor before trying again.`]);
    bridge.editor.rawAnswer = undefined;
    assert.equal((await client.getEditorContent()).content, bridge.editor.content);
    assert.equal(bridge.connections, 2);
  });

  it('a request that times out leaves the others on the connection alone, and says an edit may still be made; later calls use another connection', async () => {
    bridge.editor.delays = { [BridgeMethods.setEditorContent]: 1000, [BridgeMethods.getEditorContent]: 150 };
    const slow = client.setEditorContent('# New\n').then(
      () => 'answered',
      (err: Error) => err.message,
    );
    const fast = client.getEditorContent();
    assert.equal((await fast).content, '# Draft\n\nHello');
    assert.match(await slow, /did not answer notesapp\/setEditorContent within 400 ms\. The request was withdrawn, .*the edit may still be made: .*get_editor_content/);
    bridge.editor.delays = {};
    assert.equal((await client.getEditorContent()).content, '# Draft\n\nHello');
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(bridge.editor.content, '# New\n', 'VS Code made the edit after all');
    assert.deepEqual(bridge.cancelled, [BridgeMethods.setEditorContent], 'the client withdrew the request it stopped waiting for');
    // The calls after the timeout went on a new connection; the old one, which would keep what the withdrawn
    // request sent until an answer that may never come, closes once its calls are answered (and a second more).
    assert.equal(bridge.connections, 2);
    const deadline = Date.now() + 3000;
    while (bridge.open > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(bridge.open, 1, 'the old connection is closed');
  });
});

describe('MCP editor tools with no editor', () => {
  it('say that no VS Code editor is attached, promptly, when there is no bridge at all', async () => {
    const h = await startServer();
    try {
      for (const [name, args] of [['get_editor_content', {}], ['set_editor_content', { content: 'x' }], ['insert_at_cursor', { content: 'x' }]] as const) {
        const started = Date.now();
        assert.match(await callError(h.client, name, args), /^No VS Code editor is attached: open this workspace in VS Code/);
        assert.ok(Date.now() - started < 3000);
      }
    } finally {
      await h.close();
    }
  });

  it('keep the server running when the bridge closes every connection at once, answering each call that no editor is attached', async () => {
    // VS Code's bridge closes connections over its limits (64 open, 8 authenticating) as soon as it accepts them; a
    // window that closes does the same to a connection it has just accepted. The server's first write then fails.
    const bridge = new FakeBridge();
    await bridge.listen();
    bridge.editor.refuse = true;
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: bridge.address, NOTESAPP_BRIDGE_TOKEN: bridge.token } });
    try {
      for (let round = 0; round < 3; round++) {
        for (const [name, args] of [['get_editor_content', {}], ['set_editor_content', { content: 'x' }], ['insert_at_cursor', { content: 'x' }]] as const) {
          assert.match(await callError(h.client, name, args), /^No VS Code editor is attached: .*\(authentication failed: /);
        }
      }
      assert.ok(bridge.connections >= 9, `each call tried the bridge again (${bridge.connections} connections)`);
      assert.equal((await callOk<{ noteCount: number }>(h.client, 'get_workspace_info')).noteCount > 0, true, 'the server still answers');
    } finally {
      await h.close();
      await bridge.close();
    }
  });

  it('say so when the bridge address points to a socket nobody listens on', async () => {
    const dead = path.join(os.tmpdir(), `notesapp-dead-${process.pid}.sock`);
    const h = await startServer({ env: { NOTESAPP_BRIDGE_ADDRESS: dead, NOTESAPP_BRIDGE_TOKEN: 't' } });
    try {
      assert.match(await callError(h.client, 'get_editor_content'), /No VS Code editor is attached.*cannot connect/);
    } finally {
      await h.close();
    }
  });
});
