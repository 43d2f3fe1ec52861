// Background work waits on the transport's whenIdle(): it must resolve exactly when every queued message has been
// written out, however many wait, without piling listeners on stdout.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { DEFAULT_LIMITS } from '../../../server/limits';
import { HardenedStdioTransport } from '../../../server/transport';

/** A stdout whose writes complete only when the test says so (a client that has not read yet). */
function slowStdout(): { stream: Writable; release: () => void; written: () => number } {
  const held: Array<() => void> = [];
  let bytes = 0;
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      held.push(callback);
    },
  });
  return { stream, release: () => held.splice(0).forEach((done) => done()), written: () => bytes };
}

describe('transport: whenIdle', () => {
  it('resolves at once with nothing queued, and after every queued message is written out otherwise', async () => {
    const out = slowStdout();
    const transport = new HardenedStdioTransport({ limits: { ...DEFAULT_LIMITS }, log: () => undefined, stdin: new PassThrough(), stdout: out.stream });
    await transport.start();
    await transport.whenIdle(); // nothing queued
    const big = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(200_000) } };
    const small = { jsonrpc: '2.0' as const, method: 'notifications/resources/list_changed' };
    void transport.send(big);
    void transport.send(small);
    let idle = 0;
    const waits = Array.from({ length: 20 }, () => transport.whenIdle().then(() => idle++));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(idle, 0, 'not idle while a message is still being written');
    assert.ok(out.stream.listenerCount('drain') <= 1, `${out.stream.listenerCount('drain')} drain listeners for 20 waits`);
    // The client reads: the first message drains, then the second is written.
    for (let i = 0; i < 10 && idle === 0; i++) {
      out.release();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(waits);
    assert.equal(idle, 20);
    assert.equal(out.written(), Buffer.byteLength(`${JSON.stringify(big)}\n${JSON.stringify(small)}\n`), 'both messages written');
    await transport.close();
  });

  it('resolves its waiters when the connection closes with messages still queued', async () => {
    const out = slowStdout();
    const transport = new HardenedStdioTransport({ limits: { ...DEFAULT_LIMITS }, log: () => undefined, stdin: new PassThrough(), stdout: out.stream });
    await transport.start();
    void transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(200_000) } });
    const waiting = transport.whenIdle();
    await transport.close();
    await waiting;
  });
});
