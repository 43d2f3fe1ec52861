// JSON-RPC batches over real stdio: taken from a client of MCP 2025-03-26 (which required servers to), refused for others.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RawServer, serverJs, type RpcMessage } from './raw-server';

async function initialize(server: RawServer, protocolVersion: string): Promise<void> {
  const r = await server.request('init', 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'batch-test', version: '1.0.0' } });
  assert.equal(r.result?.protocolVersion, protocolVersion);
  server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

/** The next batch reply (a JSON array on one line) from `from` on. */
async function batchReply(server: RawServer, from = 0): Promise<RpcMessage[]> {
  return (await server.waitFor((m) => Array.isArray(m), from)) as unknown as RpcMessage[];
}

const call = (id: string | number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('JSON-RPC batches', function () {
  this.timeout(60_000);
  let server: RawServer;
  afterEach(async () => {
    const running = server as RawServer | undefined;
    server = undefined as unknown as RawServer;
    await running?.stop();
  });

  it('answers a batch from a 2025-03-26 client with one array of the replies to its requests, in order', async () => {
    server = new RawServer();
    fs.writeFileSync(path.join(server.workspace, 'a.md'), '# A\nhello\n');
    await initialize(server, '2025-03-26');
    const from = server.messages.length;
    server.send([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing' } },
      call('read', 'read_file', { path: 'a.md' }),
      call('write', 'create_file', { path: 'b.md', content: 'new' }),
      { jsonrpc: '2.0', id: 3, method: 'no/such/method' },
      { jsonrpc: '1.0', id: 4, method: 'ping' },
      { jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
    ]);
    const replies = await batchReply(server, from);
    assert.deepEqual(replies.map((m) => m.id), [1, 'read', 'write', 3, 4, 5], 'one reply per request, none for the notification');
    assert.deepEqual(replies[0].result, {});
    assert.deepEqual(replies[1].result?.content, [{ type: 'text', text: '# A\nhello\n' }]);
    assert.equal(replies[2].result?.isError, undefined);
    assert.equal(fs.readFileSync(path.join(server.workspace, 'b.md'), 'utf8'), 'new');
    assert.equal(replies[3].error?.code, -32601);
    assert.equal(replies[4].error?.code, -32600);
    assert.equal(replies[5].error?.code, -32600);
    assert.match(replies[5].error?.message ?? '', /initialize cannot be part of a batch/);
    assert.ok(replies.every((m) => m.jsonrpc === '2.0'));
    // A batch of notifications only gets no reply at all; single messages still work after batches.
    server.send([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing' } }]);
    const afterNotifications = server.messages.length;
    assert.deepEqual((await server.request('after', 'ping')).result, {});
    assert.equal(server.messages.slice(afterNotifications).length, 1, 'only the ping was answered');
    assert.deepEqual(server.strayStdout, []);
  });

  it('takes a batch sent right after initialize without waiting for its reply (requests piped in), and exits', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-home-'));
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-ws-'));
    try {
      const input = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        [{ jsonrpc: '2.0', id: 2, method: 'ping' }, call(3, 'create_file', { path: 'piped.md', content: 'x' })],
      ].map((m) => `${JSON.stringify(m)}\n`).join('');
      const r = spawnSync(process.execPath, [serverJs, '--workspace', workspace, '--config', path.join(home, 'config.json')], {
        input,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, USERPROFILE: home },
        timeout: 30_000,
      });
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown);
      const batches = lines.filter((l) => Array.isArray(l)) as RpcMessage[][];
      assert.equal(batches.length, 1, r.stdout);
      const [batch] = batches;
      assert.deepEqual(batch.map((m) => m.id), [2, 3]);
      assert.equal(fs.readFileSync(path.join(workspace, 'piped.md'), 'utf8'), 'x');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('answers an empty batch, and one of more than 100 messages, with one -32600 error and runs nothing', async () => {
    server = new RawServer();
    await initialize(server, '2025-03-26');
    server.send([]);
    const empty = await server.waitFor((m) => m.error !== undefined);
    assert.equal(empty.id, null);
    assert.equal(empty.error?.code, -32600);
    assert.match(empty.error?.message ?? '', /the batch is empty/);
    const from = server.messages.length;
    server.send(Array.from({ length: 101 }, (_, i) => call(i, 'create_file', { path: `n${i}.md`, content: 'x' })));
    const big = await server.waitFor((m) => m.error !== undefined, from);
    assert.equal(big.id, null);
    assert.match(big.error?.message ?? '', /101 messages, over the limit of 100/);
    assert.deepEqual((await server.request('after', 'ping')).result, {});
    assert.equal(fs.existsSync(path.join(server.workspace, 'n0.md')), false);
  });

  for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
    it(`refuses a batch from a ${version} client with -32600, and runs none of it`, async () => {
      server = new RawServer();
      await initialize(server, version);
      server.send([call(1, 'create_file', { path: 'b.md', content: 'new' })]);
      const refused = await server.waitFor((m) => m.error !== undefined);
      assert.equal(refused.id, null);
      assert.equal(refused.error?.code, -32600);
      assert.match(refused.error?.message ?? '', /batches \(JSON arrays\) are taken only from a client of MCP 2025-03-26/);
      assert.deepEqual((await server.request('after', 'ping')).result, {});
      assert.equal(fs.existsSync(path.join(server.workspace, 'b.md')), false);
    });
  }

  it('counts each request of a batch toward the rate limit, times out each on its own, and leaves out a cancelled one', async () => {
    server = new RawServer({ args: ['--rate-limit', '4', '--timeout-ms', '500'], env: { NOTESAPP_TEST_HOOKS: '1', NOTESAPP_TEST_RATE_WINDOW_MS: '60000' } });
    await initialize(server, '2025-03-26'); // request 1 of 4
    const from = server.messages.length;
    server.send([
      call('slow', 'notesapp_test_sleep', { ms: 60_000 }),
      call('cancelled', 'notesapp_test_sleep', { ms: 60_000 }),
      { jsonrpc: '2.0', id: 'list', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'ping', method: 'ping' },
      { jsonrpc: '2.0', id: 'over', method: 'prompts/list' },
    ]);
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancelled' } });
    const replies = await batchReply(server, from);
    assert.deepEqual(replies.map((m) => m.id), ['slow', 'list', 'ping', 'over']);
    assert.equal(replies[0].error?.code, -32001, 'the sleeping call timed out');
    assert.ok(Array.isArray(replies[1].result?.tools));
    assert.deepEqual(replies[2].result, {});
    assert.equal(replies[3].error?.code, -32003, 'the fifth request of the minute (pings do not count) is over the limit');
  });

  it('keeps the reply to a batch under the reply limit: the largest results become -32005 errors', async () => {
    server = new RawServer();
    // 1 MB of text, read whole: each reply carries it twice (the text and structuredContent), about 2 MB.
    fs.writeFileSync(path.join(server.workspace, 'big.md'), `${'word '.repeat(200_000)}\n`);
    await initialize(server, '2025-03-26');
    const from = server.messages.length;
    server.send(Array.from({ length: 8 }, (_, i) => call(i, 'read_file', { path: 'big.md' })));
    const replies = await batchReply(server, from);
    assert.deepEqual(replies.map((m) => m.id), [0, 1, 2, 3, 4, 5, 6, 7]);
    const served = replies.filter((m) => m.result !== undefined);
    const refused = replies.filter((m) => m.error !== undefined);
    assert.ok(served.length >= 1 && refused.length >= 1, `${served.length} served, ${refused.length} refused`);
    assert.ok(refused.every((m) => m.error?.code === -32005));
    const line = Buffer.byteLength(JSON.stringify(replies)) + 1;
    assert.ok(line <= 10 * 1024 * 1024 - 64 * 1024, `the batch's line is ${line} bytes`);
  });
});
