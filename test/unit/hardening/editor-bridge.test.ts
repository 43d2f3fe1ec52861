// The extension's side of the editor bridge, outside VS Code: what a connection may do before it authenticates,
// requests the client withdrew, and the discovery files of several windows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bridgeAddressProblem, discoveryDir, discoveryDirProblem, discoveryFileNames, discoveryFilePath, folderHolds, parseDiscoveryFileName, processAlive } from '../../../src/core/bridge/discovery';
import { MAX_BRIDGE_MESSAGE_BYTES } from '../../../src/core/bridge/framing';
import { BRIDGE_PROTOCOL_VERSION, BridgeErrorCodes, BridgeMethods, discoveryFile } from '../../../src/core/bridge/protocol';
import { BridgeServer, DEFAULT_BRIDGE_LIMITS, type BridgeLimits, type EditorHandlers } from '../../../src/vscode/bridge/bridge-server';
import { DiscoveryFiles } from '../../../src/vscode/bridge/discovery-writer';

const log = { lines: [] as string[], info() {}, debug() {}, error(m: string) { log.lines.push(m); }, warn(m: string) { log.lines.push(m); } };

/** Handlers that record what reached the "editor". */
function fakeEditor(): EditorHandlers & { calls: string[] } {
  const calls: string[] = [];
  const result = { applied: true, path: 'a.md', uri: 'file:///ws/a.md', edits: 1 };
  return {
    calls,
    getEditorContent: () => (calls.push('get'), { content: 'x', path: 'a.md', uri: 'file:///ws/a.md', languageId: 'markdown', isDirty: false }),
    setEditorContent: async (content) => (calls.push(`set:${content}`), result),
    insertAtCursor: async (content) => (calls.push(`insert:${content}`), result),
    workspaceFolders: () => ['/ws'],
  };
}

function frame(message: object): Buffer {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

/** A raw client: writes frames, collects the JSON bodies of every answer, knows when the bridge closed it. */
async function rawClient(address: string) {
  const socket = net.connect(address);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffered = '';
  const answers: Array<{ id?: number; result?: unknown; error?: { code: number; message: string } }> = [];
  socket.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    for (;;) {
      const m = /^Content-Length: (\d+)\r\n\r\n/.exec(buffered);
      if (!m || buffered.length < m[0].length + Number(m[1])) break;
      answers.push(JSON.parse(buffered.slice(m[0].length, m[0].length + Number(m[1]))));
      buffered = buffered.slice(m[0].length + Number(m[1]));
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, answers, closed };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await wait(10);
  }
}

describe('editor bridge server: before authentication', () => {
  let bridge: BridgeServer;
  let editor: ReturnType<typeof fakeEditor>;
  const start = async (limits: Partial<BridgeLimits> = {}) => {
    editor = fakeEditor();
    bridge = BridgeServer.start(editor, log, { ...DEFAULT_BRIDGE_LIMITS, ...limits });
    await bridge.ready;
  };
  const authenticate = (id: number) => frame({ id, method: BridgeMethods.authenticate, params: { token: bridge.endpoint.token, protocolVersion: BRIDGE_PROTOCOL_VERSION } });
  afterEach(() => bridge.dispose());

  it('closes a connection that sends more than the pre-authentication budget, and never runs what it sent', async () => {
    await start({ preAuthBytes: 200 });
    const client = await rawClient(bridge.endpoint.address);
    // A whole request, bigger than the budget, sent before any authentication.
    client.socket.write(frame({ id: 1, method: BridgeMethods.setEditorContent, params: { content: 'y'.repeat(300) } }));
    await client.closed;
    await wait(50);
    assert.deepEqual(editor.calls, []);
    assert.ok(log.lines.some((l) => /sent \d+ bytes without authenticating/.test(l)));

    // A declared length of a gigabyte is refused as soon as the budget is spent, not buffered.
    const flood = await rawClient(bridge.endpoint.address);
    flood.socket.write('Content-Length: 1000000000\r\n\r\n');
    for (let i = 0; i < 10 && !flood.socket.destroyed; i++) flood.socket.write(Buffer.alloc(100));
    await flood.closed;

    // After authenticating, the budget no longer applies.
    const good = await rawClient(bridge.endpoint.address);
    good.socket.write(authenticate(1));
    await until('authentication', () => good.answers.length === 1);
    good.socket.write(frame({ id: 2, method: BridgeMethods.setEditorContent, params: { content: 'z'.repeat(5000) } }));
    await until('two answers', () => good.answers.length === 2);
    assert.deepEqual(editor.calls, [`set:${'z'.repeat(5000)}`]);
    good.socket.destroy();
  });

  it('closes an authenticated connection at the header of a message over the limit of one message, and runs none of it', async () => {
    await start();
    const client = await rawClient(bridge.endpoint.address);
    client.socket.write(authenticate(1));
    await until('authentication', () => client.answers.length === 1);
    log.lines.length = 0;
    client.socket.write(`Content-Length: ${MAX_BRIDGE_MESSAGE_BYTES + 1}\r\n\r\n`);
    let written = 0;
    for (; written < 64 && !client.socket.destroyed; written++) {
      client.socket.write(Buffer.alloc(64 * 1024, 0x61));
      await wait(5);
    }
    await client.closed;
    assert.ok(written < 64, 'closed before the message was sent');
    assert.deepEqual(log.lines, [`Editor bridge: closing a connection that sent a message of ${MAX_BRIDGE_MESSAGE_BYTES + 1} bytes, over the 67108864-byte limit`]);
    assert.deepEqual(editor.calls, []);
  });

  it('runs nothing a connection still had queued when it was closed for its budget, even after a right token', async () => {
    await start({ preAuthBytes: 16 * 1024 });
    const client = await rawClient(bridge.endpoint.address);
    // The right token and a large edit in one chunk: the bytes before authenticating are over the budget.
    client.socket.write(Buffer.concat([authenticate(1), frame({ id: 2, method: BridgeMethods.setEditorContent, params: { content: 'y'.repeat(20_000) } })]));
    await client.closed;
    await wait(100);
    assert.deepEqual(editor.calls, []);
  });

  it('logs one warning for a connection that sends many requests without authenticating', async () => {
    await start();
    log.lines.length = 0;
    const client = await rawClient(bridge.endpoint.address);
    client.socket.write(Buffer.concat(Array.from({ length: 50 }, (_, i) => frame({ id: i + 1, method: BridgeMethods.getEditorContent, params: {} }))));
    await client.closed;
    assert.equal(log.lines.filter((l) => /closing a connection \(first request was/.test(l)).length, 1, log.lines.join('\n'));
    assert.deepEqual(editor.calls, []);
  });

  it('closes a connection that does not authenticate in time, and keeps one that did', async () => {
    await start({ authTimeoutMs: 200 });
    const idle = await rawClient(bridge.endpoint.address);
    const authed = await rawClient(bridge.endpoint.address);
    authed.socket.write(authenticate(1));
    const started = Date.now();
    await idle.closed;
    assert.ok(Date.now() - started < 2000);
    assert.ok(log.lines.some((l) => /did not authenticate within 200 ms/.test(l)));
    await wait(300);
    assert.equal(authed.socket.destroyed, false, 'the authenticated connection stays');
    authed.socket.write(frame({ id: 2, method: BridgeMethods.getEditorContent, params: {} }));
    await until('an answer', () => authed.answers.length === 2);
    assert.equal((authed.answers[1].result as { content: string }).content, 'x');
    authed.socket.destroy();
  });

  it('refuses connections beyond the limit of unauthenticated ones, and accepts again once one authenticates', async () => {
    await start({ maxUnauthenticated: 3 });
    const waiting = await Promise.all([0, 1, 2].map(() => rawClient(bridge.endpoint.address)));
    const extra = await rawClient(bridge.endpoint.address);
    await extra.closed;
    assert.ok(waiting.every((c) => !c.socket.destroyed));
    waiting[0].socket.write(authenticate(1));
    await until('authentication', () => waiting[0].answers.length === 1);
    const next = await rawClient(bridge.endpoint.address);
    next.socket.write(authenticate(1));
    await until('authentication', () => next.answers.length === 1);
    assert.deepEqual(next.answers[0].result, { ok: true, protocolVersion: BRIDGE_PROTOCOL_VERSION, workspaceFolders: ['/ws'] });
    for (const c of [...waiting, next]) c.socket.destroy();
  });

  it('refuses connections beyond the total limit', async () => {
    await start({ maxConnections: 2 });
    const a = await rawClient(bridge.endpoint.address);
    const b = await rawClient(bridge.endpoint.address);
    a.socket.write(authenticate(1));
    b.socket.write(authenticate(1));
    await until('authentication', () => a.answers.length === 1 && b.answers.length === 1);
    const c = await rawClient(bridge.endpoint.address);
    await c.closed;
    a.socket.destroy();
    await a.closed;
    // Once the bridge has seen the close, a new connection is taken again.
    let d = await rawClient(bridge.endpoint.address);
    for (let attempt = 0; attempt < 50; attempt++) {
      d.socket.write(authenticate(1));
      await until('an answer or the close', () => d.answers.length === 1 || d.socket.destroyed).catch(() => undefined);
      if (d.answers.length === 1) break;
      await wait(20);
      d = await rawClient(bridge.endpoint.address);
    }
    assert.equal(d.answers.length, 1);
    b.socket.destroy();
    d.socket.destroy();
  });

  it('a connection dropped in the middle of a message leaves no timer running behind it', async () => {
    await start();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const client = await rawClient(bridge.endpoint.address);
    client.socket.write(authenticate(1));
    await until('authentication', () => client.answers.length === 1);
    const before = timers();
    client.socket.write('Content-Length: 100\r\n\r\n{"jsonrpc":');
    await wait(50);
    client.socket.destroy();
    await until('the bridge to forget the connection', () => timers() <= before, 1000).catch(() => undefined);
    // vscode-jsonrpc's partial-message warning would re-arm a 10 s timer forever here.
    assert.equal(timers(), before);
  });

  it('answers "cancelled" to an edit the client withdrew before the bridge started on it, and does not make it', async () => {
    await start();
    const client = await rawClient(bridge.endpoint.address);
    // VS Code busy: the request and its cancellation arrive together, before the request was dispatched.
    client.socket.write(
      Buffer.concat([
        authenticate(1),
        frame({ id: 2, method: BridgeMethods.setEditorContent, params: { content: 'late' } }),
        frame({ method: '$/cancelRequest', params: { id: 2 } }),
        frame({ id: 3, method: BridgeMethods.insertAtCursor, params: { content: 'kept' } }),
      ]),
    );
    await until('three answers', () => client.answers.length === 3);
    const byId = new Map(client.answers.map((a) => [a.id, a]));
    assert.equal(byId.get(2)?.error?.code, BridgeErrorCodes.cancelled);
    assert.match(byId.get(2)?.error?.message ?? '', /cancelled by the client before it started: nothing was done/);
    assert.deepEqual(editor.calls, ['insert:kept']);
    client.socket.destroy();
  });
});

describe('editor bridge server: where its socket is', () => {
  it('makes its socket in /tmp when TMPDIR is too long for a socket path, private, and answers there', async function () {
    if (process.platform === 'win32') this.skip(); // Windows names pipes, which have no such limit
    const long = fs.mkdtempSync(path.join(os.tmpdir(), `${'t'.repeat(90)}-`));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = long;
    let bridge: BridgeServer | undefined;
    try {
      bridge = BridgeServer.start(fakeEditor(), log);
      await bridge.ready; // a socket cut short used to throw from the listen callback, and never get ready
      const address = bridge.endpoint.address;
      assert.match(address, /^\/tmp\/notesapp-bridge-[^/]+\/bridge\.sock$/);
      assert.equal(fs.statSync(path.dirname(address)).mode & 0o777, 0o700);
      assert.equal(fs.statSync(address).mode & 0o777, 0o600);
      const client = await rawClient(address);
      client.socket.write(frame({ id: 1, method: BridgeMethods.authenticate, params: { token: bridge.endpoint.token, protocolVersion: BRIDGE_PROTOCOL_VERSION } }));
      await until('the answer', () => client.answers.length === 1);
      assert.equal((client.answers[0].result as { ok?: boolean }).ok, true);
      client.socket.destroy();
      assert.deepEqual(fs.readdirSync(long), [], 'nothing made in the long folder');
    } finally {
      bridge?.dispose();
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      fs.rmSync(long, { recursive: true, force: true });
    }
  });
});

describe('editor bridge server: protocol versions', () => {
  let bridge: BridgeServer;
  let editor: ReturnType<typeof fakeEditor>;
  beforeEach(async () => {
    editor = { ...fakeEditor(), version: '0.9.0' };
    bridge = BridgeServer.start(editor, log);
    await bridge.ready;
  });
  afterEach(() => bridge.dispose());

  it('refuses a server of another protocol version, naming both versions, and runs nothing it sends', async () => {
    const client = await rawClient(bridge.endpoint.address);
    const other = BRIDGE_PROTOCOL_VERSION + 1;
    client.socket.write(
      Buffer.concat([
        frame({ id: 1, method: BridgeMethods.authenticate, params: { token: bridge.endpoint.token, protocolVersion: other, version: '2.0.0' } }),
        frame({ id: 2, method: BridgeMethods.setEditorContent, params: { content: 'y' } }),
      ]),
    );
    await client.closed;
    const refused = client.answers.find((a) => a.id === 1);
    assert.equal(refused?.error?.code, BridgeErrorCodes.incompatible);
    assert.equal(
      refused?.error?.message,
      `the MCP server 2.0.0 (editor bridge protocol ${other}) cannot work with the Notes App extension 0.9.0 (editor bridge protocol ${BRIDGE_PROTOCOL_VERSION}) in this VS Code window: run the MCP server of the installed extension, or update both to the same version.`,
    );
    assert.deepEqual(editor.calls, []);
  });

  it('answers a server of its own protocol version with its version and folders', async () => {
    const client = await rawClient(bridge.endpoint.address);
    client.socket.write(frame({ id: 1, method: BridgeMethods.authenticate, params: { token: bridge.endpoint.token, protocolVersion: BRIDGE_PROTOCOL_VERSION } }));
    await until('the answer', () => client.answers.length === 1);
    assert.deepEqual(client.answers[0].result, { ok: true, protocolVersion: BRIDGE_PROTOCOL_VERSION, version: '0.9.0', workspaceFolders: ['/ws'] });
    client.socket.destroy();
  });
});

describe('editor bridge discovery helpers', () => {
  it('compare folders as the discovery file names do: letter case ignored on Windows and macOS only', () => {
    assert.equal(folderHolds('/Users/me/Notes', '/Users/me/notes', 'darwin'), true);
    assert.equal(folderHolds('/Users/me/Notes', '/Users/me/notes/sub', 'darwin'), true);
    assert.equal(folderHolds('/home/me/Notes', '/home/me/notes', 'linux'), false);
    assert.equal(folderHolds('/home/me/notes/', '/home/me/notes', 'linux'), true);
    assert.equal(folderHolds('/home/me/notes', '/home/me/notes-old', 'linux'), false);
    assert.equal(folderHolds('C:\\Notes', 'c:\\notes\\daily', 'win32'), true);
  });

  it('take only an address of this computer that the platform can open whole', () => {
    assert.equal(bridgeAddressProblem('\\\\.\\pipe\\notesapp-bridge-0123abcd', 'win32'), undefined);
    assert.equal(bridgeAddressProblem('\\\\?\\PIPE\\notesapp-bridge-0123abcd', 'win32'), undefined);
    for (const remote of ['\\\\fileserver\\pipe\\notesapp-bridge-1', '//fileserver/pipe/x', 'C:\\temp\\bridge.sock']) {
      assert.equal(bridgeAddressProblem(remote, 'win32'), 'is not a named pipe of this computer (\\\\.\\pipe\\…)', remote);
    }
    assert.equal(bridgeAddressProblem(`/tmp/${'x'.repeat(102)}`, 'linux'), undefined, '107 bytes');
    assert.equal(bridgeAddressProblem(`/tmp/${'x'.repeat(103)}`, 'linux'), 'is longer than the 107 bytes a socket path may have');
    assert.equal(bridgeAddressProblem(`/tmp/${'x'.repeat(99)}`, 'darwin'), 'is longer than the 103 bytes a socket path may have');
  });

  it('read back the name discoveryFilePath writes, and nothing else', () => {
    const folder = path.join(os.tmpdir(), 'Notes');
    const name = path.basename(discoveryFilePath('/cfg', folder, 4242));
    assert.deepEqual(parseDiscoveryFileName(name, folder), { pid: 4242, temporary: false });
    assert.deepEqual(parseDiscoveryFileName(`${name}.tmp`, folder), { pid: 4242, temporary: true });
    for (const other of [name.replace('4242', 'x42'), `${name}.bak`, `x${name}`, name.replace('.4242', '')]) {
      assert.equal(parseDiscoveryFileName(other, folder), undefined, other);
    }
    assert.equal(parseDiscoveryFileName(name, path.join(os.tmpdir(), 'Other')), undefined, 'another folder\'s file');
    assert.deepEqual(discoveryFileNames([name, `${name}.tmp`, 'README'], folder), [name], 'readers skip files being written');
  });

  it('count a number that is no process id as a process that is gone', () => {
    assert.equal(processAlive(process.pid), true);
    for (const pid of [0, -1, 2 ** 31, 2 ** 40, 1.5]) assert.equal(processAlive(pid), false, String(pid));
  });
});

describe('editor bridge discovery files', () => {
  let configDir: string;
  const endpoint = (n: number) => ({ address: `/tmp/bridge-${n}.sock`, token: `token-${n}` });
  beforeEach(() => {
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-discovery-'));
  });
  afterEach(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const read = (file: string) => discoveryFile.parse(JSON.parse(fs.readFileSync(file, 'utf8')));

  it('writes the token through no link found at its temporary name, into a file of its own', function () {
    if (process.platform === 'win32') this.skip(); // symbolic links need rights Windows seldom gives
    const folder = path.join(configDir, 'notes');
    const file = discoveryFilePath(configDir, folder, process.pid);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Someone with write access to bridges/ points the temporary name at a file they can read.
    const trap = path.join(configDir, 'trap');
    fs.writeFileSync(trap, '');
    fs.symlinkSync(trap, `${file}.tmp`);
    const writer = new DiscoveryFiles(configDir, endpoint(1), log, process.pid);
    writer.sync([folder]);
    assert.equal(fs.readFileSync(trap, 'utf8'), '', 'nothing written through the link');
    assert.equal(read(file).token, 'token-1');
    assert.ok(!fs.lstatSync(file).isSymbolicLink());
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    writer.dispose();
  });

  it('makes a discovery folder of its own that others can write private again, and writes no token into one of another user', function () {
    if (process.platform === 'win32') this.skip(); // folder modes and owners are POSIX's
    const folder = path.join(configDir, 'notes');
    const dir = discoveryDir(configDir);
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o777);
    log.lines.length = 0;
    const infos: string[] = [];
    const writer = new DiscoveryFiles(configDir, endpoint(1), { ...log, info: (m: string) => void infos.push(m) }, process.pid);
    writer.sync([folder]);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.ok(infos.includes(`Made the editor bridge discovery folder ${dir} private (0700): it was writable by others (mode 777)`), infos.join('\n'));
    assert.equal(read(discoveryFilePath(configDir, folder)).token, 'token-1');
    writer.dispose();
    // What the server and the writer are told of a folder: another user's is never fixed, only refused.
    const uid = process.getuid?.() ?? 0;
    assert.equal(discoveryDirProblem(dir, uid), undefined);
    assert.deepEqual(discoveryDirProblem(dir, uid + 1), { why: `owned by user ${uid}, not by this user (${uid + 1})`, fixable: false });
    fs.chmodSync(dir, 0o750 | 0o020);
    assert.deepEqual(discoveryDirProblem(dir, uid), { why: 'writable by others (mode 770)', fixable: true });
  });

  it('two windows on one folder each keep a file; closing one leaves the other', () => {
    const folder = path.join(configDir, 'notes');
    // Two live processes: this one and its parent stand for two extension hosts.
    const first = new DiscoveryFiles(configDir, endpoint(1), log, process.pid);
    const second = new DiscoveryFiles(configDir, endpoint(2), log, process.ppid);
    first.sync([folder]);
    second.sync([folder]);
    const firstFile = discoveryFilePath(configDir, folder, process.pid);
    const secondFile = discoveryFilePath(configDir, folder, process.ppid);
    assert.equal(read(firstFile).token, 'token-1');
    assert.equal(read(secondFile).token, 'token-2');
    if (process.platform !== 'win32') assert.equal(fs.statSync(secondFile).mode & 0o777, 0o600);
    second.dispose();
    assert.equal(fs.existsSync(secondFile), false);
    assert.equal(read(firstFile).token, 'token-1', 'the first window is still reachable');
    first.dispose();
    assert.deepEqual(fs.readdirSync(discoveryDir(configDir)), []);
  });

  it('removes the file of a folder removed from the window, and writes one for a folder added', () => {
    const [a, b] = [path.join(configDir, 'a'), path.join(configDir, 'b')];
    const files = new DiscoveryFiles(configDir, endpoint(1), log);
    files.sync([a, b]);
    const written = fs.statSync(discoveryFilePath(configDir, a)).mtimeMs;
    files.sync([a]);
    assert.equal(fs.existsSync(discoveryFilePath(configDir, b)), false);
    assert.equal(fs.statSync(discoveryFilePath(configDir, a)).mtimeMs, written, 'a folder still open is not rewritten');
    files.sync([a, b]);
    assert.equal(read(discoveryFilePath(configDir, b)).workspaceFolder, b);
    files.dispose();
  });

  it('removes the file a crashed window left for the same folder, and marks the focused window by its time', () => {
    const folder = path.join(configDir, 'notes');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const stale = discoveryFilePath(configDir, folder, gone);
    fs.mkdirSync(path.dirname(stale), { recursive: true });
    fs.writeFileSync(stale, JSON.stringify({ protocolVersion: 1, ...endpoint(9), workspaceFolder: folder, pid: gone, createdAt: new Date().toISOString() }));
    fs.writeFileSync(`${stale}.tmp`, '{"half": ');
    const otherFolder = discoveryFilePath(configDir, path.join(configDir, 'other'), gone);
    fs.writeFileSync(otherFolder, '{}');
    const files = new DiscoveryFiles(configDir, endpoint(1), log);
    files.sync([folder]);
    assert.equal(fs.existsSync(stale), false);
    assert.equal(fs.existsSync(`${stale}.tmp`), false, 'the temporary file of a write it did not finish goes too');
    assert.equal(fs.existsSync(otherFolder), true, 'files of other folders are left to windows that open them');
    const mine = discoveryFilePath(configDir, folder);
    fs.utimesSync(mine, new Date(2000, 0, 1), new Date(2000, 0, 1));
    files.touch();
    assert.ok(Date.now() - fs.statSync(mine).mtimeMs < 60_000);
    files.dispose();
  });
});
