// JSON-RPC robustness of the real stdio process: garbage, invalid requests, notifications, oversized messages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../server/harness';
import { RawServer, type RpcMessage } from './raw-server';

const LIMIT = 10 * 1024 * 1024;

/** What a JSON-RPC server must answer to one line: nothing for a blank line, else the error code and id. */
function expectedReply(line: Buffer): { code: number; id: string | number | null } | undefined {
  let value: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(line).replace(/\r$/, '');
    if (text.trim() === '') return undefined;
    value = JSON.parse(text);
  } catch {
    return { code: -32700, id: null }; // not UTF-8, or not JSON
  }
  const id = typeof value === 'object' && value !== null && 'id' in value ? (value as { id: unknown }).id : null;
  return { code: -32600, id: typeof id === 'string' || typeof id === 'number' ? id : null };
}

describe('JSON-RPC robustness over real stdio', function () {
  this.timeout(60_000);
  let server: RawServer;

  beforeEach(() => {
    server = new RawServer();
  });
  afterEach(() => server.stop());

  it('answers 10 000 random byte lines with the right errors, then still answers ping', async () => {
    // Seeded, so that a failing run can be replayed from the seed in its message.
    const { prng } = await import('../../bench/corpus.mjs');
    const seed = Math.floor(Math.random() * 2 ** 31);
    const random = prng(seed);
    const lines: Buffer[] = [];
    for (let i = 0; i < 10_000; i++) {
      const bytes = Buffer.alloc(1 + Math.floor(random() * 120));
      for (let j = 0; j < bytes.length; j++) {
        let b = Math.floor(random() * 256);
        if (b === 10) b = 11; // a newline would split the line in two
        bytes[j] = b;
      }
      // Every tenth line is printable, so that some parse as JSON values that are not requests.
      if (i % 10 === 0) bytes.write(['1', '"x"', 'null', '{}', '[]', '{"id":5}', 'true', '{"a'][i % 8], 'latin1');
      lines.push(bytes);
    }
    const expected = lines.map(expectedReply).filter((e) => e !== undefined);
    server.write(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
    const pong = await server.request('after-garbage', 'ping');
    assert.deepEqual(pong.result, {}, `seed ${seed}`);
    const errors = server.messages.filter((m) => m.id !== 'after-garbage');
    assert.equal(errors.length, expected.length, `seed ${seed}: one reply per non-blank line`);
    errors.forEach((m, i) => {
      assert.deepEqual({ code: m.error?.code, id: m.id }, expected[i], `seed ${seed}, reply ${i}`);
      assert.equal(m.jsonrpc, '2.0');
      assert.ok(m.error && m.error.message.length > 10, 'a message that says what is wrong');
    });
    assert.ok(expected.some((e) => e.code === -32600) && expected.some((e) => e.code === -32700));
    assert.deepEqual(server.strayStdout, [], 'nothing but protocol on stdout');
  });

  it('answers a line that is not valid UTF-8 with -32700, even when it is JSON otherwise, and runs nothing', async () => {
    await server.initialize();
    const before = Buffer.from('{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"create_file","arguments":{"path":"bad.md","content":"caf');
    const after = Buffer.from('"}}}\n');
    server.write(Buffer.concat([before, Buffer.from([0xe9]), after])); // Latin-1 é: not UTF-8
    const reply = await server.waitFor((m) => m.error?.code === -32700);
    assert.equal(reply.id, null);
    assert.match(reply.error?.message ?? '', /not valid UTF-8/);
    assert.deepEqual((await server.request('then', 'ping')).result, {});
    assert.equal(fs.existsSync(path.join(server.workspace, 'bad.md')), false, 'nothing was written with U+FFFD in it');
    assert.equal(server.messages.filter((m) => m.id === 'w').length, 0);
  });

  it('answers invalid requests with -32600 and the id when it can be read', async () => {
    const cases: Array<[unknown, string | number | null, RegExp]> = [
      [{ jsonrpc: '1.0', id: 3, method: 'ping' }, 3, /jsonrpc must be "2.0"/],
      [{ jsonrpc: '2.0', id: 'p', method: 'ping', params: [1, 2] }, 'p', /params must be an object/],
      [{ jsonrpc: '2.0', id: 4, method: 42 }, 4, /method must be a string/],
      [{ jsonrpc: '2.0', id: { nested: true }, method: 'ping' }, null, /id must be a string or an integer/],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, 1.5, /id must be a string or an integer/],
      [[{ jsonrpc: '2.0', id: 5, method: 'ping' }], null, /batches/],
      [[], null, /batches/],
      ['just a string', null, /not an object/],
      [null, null, /not an object/],
      // What else the request schema refuses is named, not "not a valid JSON-RPC 2.0 request".
      [{ jsonrpc: '2.0', id: 6, method: 'ping', extra: 1 }, 6, /the member "extra"; a request holds only jsonrpc, id, method and params/],
      [{ jsonrpc: '2.0', id: 7, method: 'ping', params: { _meta: null } }, 7, /params\._meta: Invalid input: expected object, received null/],
      [{ jsonrpc: '2.0', id: 8, method: 'ping', params: { _meta: { progressToken: {} } } }, 8, /params\._meta\.progressToken must be a string or an integer\.?$/],
      // A number that is no integer is refused with the same words (zod names only the integer type then).
      [{ jsonrpc: '2.0', id: 9, method: 'ping', params: { _meta: { progressToken: 1.5 } } }, 9, /params\._meta\.progressToken must be a string or an integer\.?$/],
      [{ jsonrpc: '2.0', id: 10, method: 'ping', params: { _meta: { progressToken: null } } }, 10, /params\._meta\.progressToken must be a string or an integer\.?$/],
    ];
    for (const [value] of cases) server.send(value);
    // An integer too large to read exactly: echoing it would name another request, so the reply has id null.
    server.write('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}\n');
    cases.push([null, null, /id must be a string or an integer/]);
    const pong = await server.request('then', 'ping');
    assert.deepEqual(pong.result, {});
    const replies = server.messages.filter((m) => m.id !== 'then');
    assert.equal(replies.length, cases.length);
    cases.forEach(([, id, pattern], i) => {
      assert.equal(replies[i].error?.code, -32600);
      assert.equal(replies[i].id, id);
      assert.match(replies[i].error?.message ?? '', pattern);
    });
  });

  it('never answers a notification, valid, unknown or malformed', async () => {
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', method: 'notifications/no-such-thing', params: {} });
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: 'not an object' });
    server.send({ jsonrpc: '1.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 99, result: {} }); // a response to a request never made
    server.write('\n\r\n   \n');
    const pong = await server.request('only', 'ping');
    assert.deepEqual(pong.result, {});
    assert.deepEqual(server.messages, [pong]);
  });

  it('answers an unknown method with -32601 and bad params of a known method with -32602', async () => {
    await server.initialize();
    const unknown = await server.request(1, 'notes/doesNotExist', {});
    assert.equal(unknown.error?.code, -32601);
    const badInit = await server.request(2, 'initialize', { protocolVersion: 7 });
    assert.equal(badInit.error?.code, -32602);
    assert.match(badInit.error?.message ?? '', /params\.protocolVersion/);
    const badCall = await server.request(3, 'tools/call', { arguments: {} });
    assert.equal(badCall.error?.code, -32602);
    assert.match(badCall.error?.message ?? '', /params\.name/);
    assert.deepEqual((await server.request(4, 'ping')).result, {});
  });

  it('refuses a second request with the id of one still running', async () => {
    const s = new RawServer({ env: { NOTESAPP_TEST_HOOKS: '1' } });
    try {
      await s.initialize();
      s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms: 300 } } });
      s.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
      const dup = await s.waitFor((m) => m.id === 7 && m.error !== undefined);
      assert.equal(dup.error?.code, -32600);
      assert.match(dup.error?.message ?? '', /already in use/);
      const done = await s.waitFor((m) => m.id === 7 && m.result !== undefined);
      assert.deepEqual(done.result?.content, [{ type: 'text', text: 'slept 300 ms' }]);
    } finally {
      await s.stop();
    }
  });

  describe('payload limit (10 MB)', () => {
    const big = (n: number) => 'x'.repeat(n);

    it('answers a request over the limit with -32004 and its id, and keeps the connection', async () => {
      server.send({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'write_file', arguments: { path: 'a.md', content: big(LIMIT) } } });
      const tooBig = await server.waitFor((m) => m.id === 42);
      assert.equal(tooBig.error?.code, -32004);
      assert.equal(tooBig.error?.data?.limitBytes, LIMIT);
      assert.ok(Number(tooBig.error?.data?.receivedBytes) > LIMIT);
      assert.deepEqual((await server.request('alive', 'ping')).result, {});
    });

    it('recovers an id that comes after the oversized part, even with braces and quotes inside strings', async () => {
      server.write(`{"jsonrpc":"2.0","method":"ping","params":{"pad":"\\"}{,\\"id\\":1 ${big(LIMIT)}","nested":{"id":"inner"}},"id":"tail"}\n`);
      const tooBig = await server.waitFor((m) => m.error !== undefined);
      assert.equal(tooBig.id, 'tail');
      assert.equal(tooBig.error?.code, -32004);
    });

    it('answers an oversized line with no readable id with id null, and an oversized notification not at all', async () => {
      server.write(`${big(LIMIT + 10)}\n`);
      server.send({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: big(LIMIT) } });
      const pong = await server.request('after', 'ping');
      assert.deepEqual(pong.result, {});
      const errors = server.messages.filter((m) => m.error);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].id, null);
      assert.equal(errors[0].error?.code, -32004);
    });

    it('does not answer an oversized response to the server, which the client would take for the answer to its own request', async () => {
      server.send({ jsonrpc: '2.0', id: 5, result: { content: { type: 'text', text: big(LIMIT) } } });
      server.send({ jsonrpc: '2.0', id: 6, error: { code: -1, message: 'refused', data: { pad: big(LIMIT) } } });
      assert.deepEqual((await server.request('after', 'ping')).result, {});
      assert.deepEqual(server.messages.filter((m) => m.id !== 'after'), []);
      await server.waitForStderr(/(dropped an incoming message of \d+ bytes over the 10485760-byte limit[^]*){2}/);
    });

    it('turns a result over the limit into -32005 that says how to read in ranges, and serves the ranges', async () => {
      // read_file returns at most 1 MiB a call, as text and as structured content; control characters take six bytes
      // each in JSON (\u0001), so one full range of them makes a reply of about 12 MB.
      fs.writeFileSync(path.join(server.workspace, 'big.md'), '\u0001'.repeat(6 * 1024 * 1024));
      await server.initialize();
      const whole = await server.request('whole', 'tools/call', { name: 'read_file', arguments: { path: 'big.md', length: 1024 * 1024 } });
      assert.equal(whole.error?.code, -32005, JSON.stringify(whole).slice(0, 300));
      assert.match(whole.error?.message ?? '', /read_file .*offset.* length/);
      assert.equal(whole.error?.data?.limitBytes, LIMIT - 64 * 1024);
      assert.ok(Number(whole.error?.data?.resultBytes) > LIMIT);
      const range = await server.request('range', 'tools/call', { name: 'read_file', arguments: { path: 'big.md', offset: 0, length: 256 * 1024 } });
      assert.equal((range.result?.structuredContent as { length: number }).length, 256 * 1024);
      assert.deepEqual(server.strayStdout, []);
    });

    it('sends no reply so close to the limit that the SDK client would drop the connection', async function () {
      // The SDK's stdio client closes the connection once a line and the rest of the read that ends it pass 10 MiB,
      // so replies stay 64 KiB under the limit. read_file of control characters (six bytes each in JSON, twice in a
      // reply) is sized to a reply 1000 bytes under the 10 MiB limit.
      this.timeout(60_000);
      const h = await startServer();
      try {
        fs.writeFileSync(path.join(h.workspace, 'big.md'), '\u0001'.repeat(1024 * 1024));
        const reply = async (length: number) => Buffer.byteLength(JSON.stringify({ result: await h.client.callTool({ name: 'read_file', arguments: { path: 'big.md', length } }), jsonrpc: '2.0', id: 1 }));
        // What a reply holds besides the text, for ranges whose numbers (length, next offset) have six digits.
        const envelope = (await reply(100_000)) - 1_200_000;
        assert.equal(await reply(200_000), envelope + 2_400_000);
        const length = Math.floor((LIMIT - 1000 - envelope) / 12);
        // Asked twice at once: sent, the two replies would follow each other on the pipe.
        const asks = [0, 1].map(() => h.client.callTool({ name: 'read_file', arguments: { path: 'big.md', length } }));
        for (const ask of asks) {
          await assert.rejects(ask, (err: Error & { code?: number; data?: { limitBytes?: number; resultBytes?: number } }) => {
            assert.equal(err.code, -32005, err.message);
            assert.equal(err.data?.limitBytes, LIMIT - 64 * 1024);
            assert.ok(Number(err.data?.resultBytes) > LIMIT - 64 * 1024 && Number(err.data?.resultBytes) < LIMIT, String(err.data?.resultBytes));
            return true;
          });
        }
        // Still connected: the next call is answered, and a reply right at the new limit is sent whole.
        const fits = Math.floor((LIMIT - 64 * 1024 - envelope) / 12);
        const r = await h.client.callTool({ name: 'read_file', arguments: { path: 'big.md', length: fits } });
        assert.equal((r.structuredContent as { length: number }).length, fits);
      } finally {
        await h.close();
      }
    });

    it('accepts a request just under the limit', async () => {
      await server.initialize();
      const pad = big(LIMIT - 200);
      const line = JSON.stringify({ jsonrpc: '2.0', id: 'edge', method: 'ping', params: { _meta: { pad } } });
      assert.ok(Buffer.byteLength(line) <= LIMIT);
      const reply: RpcMessage = await server.request('edge', 'ping', { _meta: { pad } });
      assert.deepEqual(reply.result, {});
    });
  });
});

describe('end of input over real stdio', function () {
  this.timeout(30_000);

  it('answers a last request that has no final newline, then exits', async () => {
    const s = new RawServer();
    try {
      s.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
      s.child.stdin.end();
      assert.deepEqual(await s.waitFor((m) => m.id === 'last'), { jsonrpc: '2.0', id: 'last', result: {} });
      assert.equal(await s.exited, 0);
    } finally {
      await s.stop();
    }
  });

  it('answers requests still running when the input ends before it closes', async () => {
    const s = new RawServer({ env: { NOTESAPP_TEST_HOOKS: '1' } });
    try {
      await s.initialize();
      s.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'notesapp_test_sleep', arguments: { ms: 300 } } });
      s.child.stdin.end();
      const reply = await s.waitFor((m) => m.id === 'slow');
      assert.deepEqual(reply.result?.content, [{ type: 'text', text: 'slept 300 ms' }]);
      assert.equal(await s.exited, 0);
    } finally {
      await s.stop();
    }
  });
});

describe('end of input while the server waits for the client', function () {
  // Sampling waits up to 20 s for the client's answer; a test slower than that would show the server waited it out.
  this.timeout(12_000);

  it('answers a summary whose sampling request can no longer be answered, and exits, without waiting out the sampling timeout', async () => {
    const s = new RawServer();
    try {
      fs.writeFileSync(path.join(s.workspace, 'n.md'), '# N\n\nThe garden needs water. Tomatoes grow in the sun.\n');
      s.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 't', version: '1' } } });
      await s.waitFor((m) => m.id === 'init');
      s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      s.send({ jsonrpc: '2.0', id: 'sum', method: 'tools/call', params: { name: 'summarize_note', arguments: { path: 'n.md' } } });
      await s.waitFor((m) => m.method === 'sampling/createMessage');
      s.child.stdin.end(); // the client goes away without answering
      const reply = await s.waitFor((m) => m.id === 'sum');
      assert.equal((reply.result?.structuredContent as { method?: string } | undefined)?.method, 'extractive');
      assert.equal(await s.exited, 0);
    } finally {
      await s.stop();
    }
  });
});

describe('backpressure over real stdio', function () {
  this.timeout(60_000);

  it('stops reading while the client does not read its replies, then answers everything once it does', async () => {
    const s = new RawServer();
    try {
      await s.initialize();
      s.child.stdout.pause(); // a client that sends and never reads
      const LINES = 20_000; // 2 MB of lines that are not JSON, each worth a reply
      const drained = new Promise<void>((resolve) => {
        if (s.child.stdin.write(Buffer.from(`${'x'.repeat(99)}\n`.repeat(LINES)))) resolve();
        else s.child.stdin.once('drain', () => resolve());
      });
      // Without backpressure the server would read all of it at once and queue 20 000 replies in memory. The
      // absence of reading can only be seen by giving it time: a bounded wait, not a sleep standing in for an event.
      const readAll = await Promise.race([drained.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1500))]);
      assert.equal(readAll, false, 'the server stopped reading its input');
      s.child.stdout.resume();
      await drained;
      const pong = await s.request('after-flood', 'ping');
      assert.deepEqual(pong.result, {});
      assert.equal(s.messages.filter((m) => m.error?.code === -32700).length, LINES, 'every line was answered, in the end');
    } finally {
      await s.stop();
    }
  });
});
