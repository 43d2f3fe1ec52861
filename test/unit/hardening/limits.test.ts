// The spec's rate limit and operation timeout, in the limiter itself and through the real stdio process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_LIMITS, limitsFromFlags, RateLimiter } from '../../../server/limits';
import { RawServer, serverJs } from './raw-server';

describe('RateLimiter', () => {
  it('accepts 100 requests in a minute, refuses the 101st with the wait, and accepts again once the window moves', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(100, 60_000, () => now);
    for (let i = 0; i < 100; i++) {
      assert.deepEqual(limiter.take(), { ok: true });
      now += 100; // the 100 requests span 10 s
    }
    assert.deepEqual(limiter.take(), { ok: false, retryAfterMs: 50_000 });
    now += 49_999;
    assert.equal(limiter.take().ok, false);
    now += 1;
    assert.deepEqual(limiter.take(), { ok: true });
    assert.equal(limiter.take().ok, false, 'only the slot of the oldest request freed up');
  });
});

describe('limitsFromFlags', () => {
  it("defaults to the spec's limits", () => {
    assert.deepEqual(limitsFromFlags({}, {}, false), { rateLimit: 100, rateWindowMs: 60_000, timeoutMs: 30_000, maxPayloadBytes: 10_485_760 });
    assert.deepEqual(DEFAULT_LIMITS, limitsFromFlags({}, { NOTESAPP_TEST_RATE_WINDOW_MS: '5' }, false));
  });

  it('takes benchmark flags and rejects nonsense', () => {
    assert.equal(limitsFromFlags({ 'rate-limit': '5000' }, {}, false).rateLimit, 5000);
    assert.equal(limitsFromFlags({ 'timeout-ms': '120000' }, {}, false).timeoutMs, 120_000);
    for (const bad of ['0', '-1', '1.5', 'many', '']) {
      assert.throws(() => limitsFromFlags({ 'rate-limit': bad }, {}, false), /--rate-limit must be a positive whole number/);
    }
  });

  it('refuses a timeout longer than a timer can wait (Node would fire it after 1 ms, timing out every request)', () => {
    assert.equal(limitsFromFlags({ 'timeout-ms': '2147483647' }, {}, false).timeoutMs, 2_147_483_647);
    for (const tooLong of ['2147483648', '9007199254740991']) {
      assert.throws(() => limitsFromFlags({ 'timeout-ms': tooLong }, {}, false), /--timeout-ms must be at most 2147483647, got/);
    }
  });
});

describe('rate limit over real stdio', function () {
  this.timeout(60_000);
  let server: RawServer;
  afterEach(() => server.stop());

  it('answers the 101st request within the window with -32003 and retryAfterMs, and a later request succeeds', async () => {
    // The window only has to hold initialize and 100 requests; 10 s leaves a loaded machine plenty of room.
    server = new RawServer({ env: { NOTESAPP_TEST_HOOKS: '1', NOTESAPP_TEST_RATE_WINDOW_MS: '10000' } });
    await server.initialize(); // request 1
    for (let i = 2; i <= 101; i++) server.send({ jsonrpc: '2.0', id: i, method: 'prompts/list' });
    const limited = await server.waitFor((m) => m.id === 101);
    const accepted = await Promise.all(Array.from({ length: 99 }, (_, i) => server.waitFor((m) => m.id === i + 2)));
    assert.ok(accepted.every((m) => m.result !== undefined), 'the first 100 requests are served');
    assert.equal(limited.error?.code, -32003);
    assert.match(limited.error?.message ?? '', /Rate limit exceeded/);
    const data = limited.error?.data ?? {};
    assert.equal(data.limit, 100);
    assert.equal(data.windowMs, 10_000);
    const retryAfterMs = Number(data.retryAfterMs);
    assert.ok(retryAfterMs > 0 && retryAfterMs <= 10_000, `retryAfterMs ${retryAfterMs}`);
    // Waiting is the behaviour under test: the error says how long, and after that the server serves again.
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs + 50));
    assert.ok((await server.request('later', 'prompts/list')).result);
  });

  it('answers ping at any rate, and pings use up none of the limit', async () => {
    server = new RawServer({ env: { NOTESAPP_TEST_HOOKS: '1', NOTESAPP_TEST_RATE_WINDOW_MS: '20000' } });
    await server.initialize(); // request 1
    // 150 keep-alive pings: each answered, none counted.
    for (let i = 0; i < 150; i++) server.send({ jsonrpc: '2.0', id: `ping-${i}`, method: 'ping' });
    const pings = await Promise.all(Array.from({ length: 150 }, (_, i) => server.waitFor((m) => m.id === `ping-${i}`)));
    assert.ok(pings.every((m) => m.error === undefined && m.result !== undefined), 'every ping is answered');
    // The other 99 requests of the allowance are still there.
    for (let i = 2; i <= 100; i++) server.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_files', arguments: {} } });
    const calls = await Promise.all(Array.from({ length: 99 }, (_, i) => server.waitFor((m) => m.id === i + 2)));
    assert.ok(calls.every((m) => m.result !== undefined), 'the first 100 requests are served');
    // The limit is reached: other requests are refused, a ping is still answered.
    assert.equal((await server.request('over', 'tools/list')).error?.code, -32003);
    assert.deepEqual((await server.request('ping-after', 'ping')).result, {});
    assert.equal((await server.request('completion', 'completion/complete', { ref: { type: 'ref/prompt', name: 'summarize-note' }, argument: { name: 'path', value: '' } })).error?.code, -32003);
  });

  it('refuses a nonsense limit flag at start-up with usage, exit status 2', () => {
    const r = spawnSync(process.execPath, [serverJs, '--timeout-ms', 'soon'], { encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--timeout-ms must be a positive whole number, got "soon"[\s\S]*Usage: notesapp-mcp/);
    assert.equal(r.stdout, '');
  });

  it('lets --rate-limit raise the limit for benchmarks', async () => {
    server = new RawServer({ args: ['--rate-limit', '300'] });
    for (let i = 1; i <= 250; i++) server.send({ jsonrpc: '2.0', id: i, method: 'prompts/list' });
    const replies = await Promise.all(Array.from({ length: 250 }, (_, i) => server.waitFor((m) => m.id === i + 1)));
    assert.ok(replies.every((m) => m.result !== undefined));
  });
});

describe('operation timeout over real stdio', function () {
  this.timeout(30_000);
  let home: string;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';
  const stderrEvents = new EventEmitter();

  /** The first match of `pattern` in stderr, waiting for it up to `ms`; null when it does not come. */
  function stderrMatch(pattern: RegExp, ms: number): Promise<RegExpExecArray | null> {
    return new Promise((resolve) => {
      const check = (): void => {
        const m = pattern.exec(stderr);
        if (!m) return;
        done(m);
      };
      const timer = setTimeout(() => done(null), ms);
      const done = (m: RegExpExecArray | null): void => {
        clearTimeout(timer);
        stderrEvents.off('data', check);
        resolve(m);
      };
      stderrEvents.on('data', check);
      check();
    });
  }

  async function connect(env: Record<string, string>, args: string[]): Promise<void> {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-timeout-'));
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [serverJs, '--workspace', home, '--config', path.join(home, 'config.json'), ...args],
      env: { ...process.env, HOME: home, ...env } as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      stderrEvents.emit('data');
    });
    client = new Client({ name: 'timeout-test', version: '1.0.0' });
    await client.connect(transport);
  }

  afterEach(async () => {
    await client?.close();
    fs.rmSync(home, { recursive: true, force: true });
    stderr = '';
  });

  it('aborts an operation that runs past the timeout, answers -32001, and keeps serving', async () => {
    await connect({ NOTESAPP_TEST_HOOKS: '1' }, ['--timeout-ms', '400']);
    const started = Date.now();
    const err = await client.callTool({ name: 'notesapp_test_sleep', arguments: { ms: 20_000 } }).then(
      () => assert.fail('the call should time out'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, -32001);
    assert.match(err.message, /Operation timed out/);
    assert.deepEqual(err.data, {
      details: 'The tools/call notesapp_test_sleep operation took longer than 400 ms and was cancelled; nothing more will be done for it.',
      method: 'tools/call notesapp_test_sleep',
      timeoutMs: 400,
    });
    assert.ok(Date.now() - started < 5000, 'answered at the timeout, not when the work would have ended');
    // The operation itself saw its signal abort (the hook logs it), rather than running on unobserved. stderr and
    // stdout are separate pipes, so the line may arrive after the reply.
    const logged = await stderrMatch(/sleep aborted by its signal after (\d+) ms/, 5000);
    assert.ok(logged, `stderr: ${stderr}`);
    assert.ok(Number(logged[1]) >= 390);
    const fast = await client.callTool({ name: 'notesapp_test_sleep', arguments: { ms: 5 } });
    assert.deepEqual(fast.content, [{ type: 'text', text: 'slept 5 ms' }]);
    assert.deepEqual(await client.ping(), {});
  });

  it('has no test hook unless NOTESAPP_TEST_HOOKS=1', async () => {
    await connect({ NOTESAPP_TEST_HOOKS: '' }, []);
    const tools = client.getServerCapabilities()?.tools ? (await client.listTools()).tools.map((t) => t.name) : [];
    assert.ok(!tools.includes('notesapp_test_sleep'));
    const outcome = await client.callTool({ name: 'notesapp_test_sleep', arguments: { ms: 1 } }).then(
      (r) => r.isError === true,
      (e: unknown) => e instanceof McpError,
    );
    assert.ok(outcome, 'calling the hook fails');
  });
});

describe('cancelled requests over real stdio', function () {
  this.timeout(30_000);
  let server: RawServer;
  afterEach(() => server.stop());

  it('sends no reply at all to a request the client cancelled, frees its id at once and logs the cancellation', async () => {
    server = new RawServer({ args: ['--timeout-ms', '500'], env: { NOTESAPP_TEST_HOOKS: '1' } });
    await server.initialize();
    const sleep = (id: number, ms: number) =>
      server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms } } });
    sleep(2, 3000);
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'user pressed stop' } });
    // The id is free again at once: a new request with it is served, not refused as "already in use".
    const reused = await server.request(2, 'ping');
    assert.deepEqual(reused, { jsonrpc: '2.0', id: 2, result: {} });
    await server.waitForStderr(/tools\/call notesapp_test_sleep cancelled by the client after \d+ ms: user pressed stop/);
    // A later request that does time out is answered after the cancelled one's timer would have fired: by then
    // any stray timeout error for id 2 would have been written before it.
    sleep(3, 3000);
    const timedOut = await server.waitFor((m) => m.id === 3);
    assert.equal(timedOut.error?.code, -32001);
    const forTwo = server.messages.filter((m) => m.id === 2);
    assert.deepEqual(forTwo, [{ jsonrpc: '2.0', id: 2, result: {} }], 'only the ping got an answer for id 2');
    const timeoutLines = server.stderr.split('\n').filter((l) => /notesapp_test_sleep error -32001/.test(l));
    assert.equal(timeoutLines.length, 1, `one timeout logged (id 3), none for the cancelled request:\n${server.stderr}`);
  });

  it('stops a request with id 0 that timed out, so a new request reusing id 0 gets its own answer', async () => {
    server = new RawServer({ args: ['--timeout-ms', '500'], env: { NOTESAPP_TEST_HOOKS: '1' } });
    await server.initialize();
    server.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms: 900 } } });
    const first = await server.waitFor((m) => m.id === 0);
    assert.equal(first.error?.code, -32001);
    // Reused at once: had the first request run on, its reply ("slept 900 ms", at 900 ms) would come while this
    // one (until about 950 ms) is running, and be taken for this one's answer.
    const from = server.messages.length;
    server.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms: 450 } } });
    const second = await server.waitFor((m) => m.id === 0, from);
    assert.deepEqual(second.result, { content: [{ type: 'text', text: 'slept 450 ms' }] });
    await server.waitForStderr(/test hook: sleep aborted by its signal after \d+ ms/);
    assert.doesNotMatch(server.stderr, /dropped a late reply/, 'the first request was stopped, not answered late');
    assert.equal(server.messages.filter((m) => m.id === 0).length, 2, 'the timeout error and the new reply, nothing else');
  });

  it('cancels a request with id 0: no reply, its work stopped, the id free at once', async () => {
    server = new RawServer({ env: { NOTESAPP_TEST_HOOKS: '1' } });
    await server.initialize();
    server.send({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms: 1500 } } });
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0, reason: 'user pressed stop' } });
    await server.waitForStderr(/test hook: sleep aborted by its signal after \d+ ms/);
    await server.waitForStderr(/tools\/call notesapp_test_sleep cancelled by the client after \d+ ms: user pressed stop/);
    const from = server.messages.length;
    assert.deepEqual(await server.request(0, 'ping'), { jsonrpc: '2.0', id: 0, result: {} });
    // Past the moment the sleep would have ended: still only the ping's reply for id 0.
    await new Promise((resolve) => setTimeout(resolve, 1700));
    assert.deepEqual(server.messages.slice(from).filter((m) => m.id === 0), [{ jsonrpc: '2.0', id: 0, result: {} }]);
    assert.equal(server.messages.filter((m) => m.id === 0).length, 1, 'nothing was sent for the cancelled request');
  });

  it('changes no file for a write, create, delete or metadata update cancelled before it was made', async () => {
    server = new RawServer();
    await server.initialize();
    const ws = server.workspace;
    fs.writeFileSync(path.join(ws, 'keep.md'), 'old');
    fs.writeFileSync(path.join(ws, 'gone.md'), 'old');
    fs.writeFileSync(path.join(ws, 'meta.md'), 'old');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['write_file', { path: 'keep.md', content: 'new' }],
      ['write_file', { path: 'new/deep/a.md', content: 'new' }],
      ['create_file', { path: 'c.md', content: 'new' }],
      ['create_note', { title: 'Fresh' }],
      ['update_note_metadata', { path: 'meta.md', metadata: { status: 'done' } }],
      ['delete_file', { path: 'gone.md' }],
    ];
    // Each call and its cancellation in one write: the cancellation arrives while the call is still on its way to
    // the file system.
    server.write(
      calls
        .map(([name, args], i) =>
          [
            JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: args } }),
            JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i + 1, reason: 'user pressed stop' } }),
          ].join('\n'),
        )
        .join('\n') + '\n',
    );
    // The server exits once its work is done, the work of the cancelled calls included.
    server.child.stdin.end();
    assert.equal(await server.exited, 0);
    assert.deepEqual(server.messages.filter((m) => m.id !== 'init'), [], 'no reply for a cancelled call');
    assert.deepEqual(fs.readdirSync(ws).sort(), ['gone.md', 'keep.md', 'meta.md'], 'no file, folder or temporary file made');
    for (const name of ['keep.md', 'gone.md', 'meta.md']) assert.equal(fs.readFileSync(path.join(ws, name), 'utf8'), 'old', name);
  });

  it('changes no file for a write that timed out before it was made, though the client was told it was cancelled', async () => {
    server = new RawServer({ args: ['--timeout-ms', '1'] });
    await server.initialize();
    // Large enough that writing it takes longer than the 1 ms timeout.
    const reply = server.request('w', 'tools/call', { name: 'write_file', arguments: { path: 'big/note.md', content: 'x'.repeat(9_000_000) } });
    assert.equal((await reply).error?.code, -32001);
    server.child.stdin.end();
    assert.equal(await server.exited, 0);
    assert.deepEqual(fs.readdirSync(server.workspace), [], 'the note, its folder and its temporary file are not there');
  });

  it('ignores a cancellation for an id that is not running', async () => {
    server = new RawServer();
    await server.initialize();
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing-here' } });
    assert.deepEqual((await server.request('after', 'ping')).result, {});
    assert.deepEqual(server.messages.filter((m) => m.id === 'nothing-here'), []);
  });
});
