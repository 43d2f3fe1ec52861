// The bridge's message size watch: it reads each message's header as the bytes arrive, however the pipe cuts them.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type net from 'node:net';
import fc from 'fast-check';
import { watchMessageSizes } from '../../../src/core/bridge/framing';

function frame(body: string, headers = '', name = 'Content-Length', typeFirst = false): Buffer {
  const bytes = Buffer.from(body);
  const length = `${name}: ${bytes.length}\r\n`;
  return Buffer.concat([Buffer.from(`${typeFirst ? headers + length : length + headers}\r\n`), bytes]);
}

/** Feeds `stream` to a watch in pieces cut at `cuts`; what `over` was called with, or 'none'. */
function watch(stream: Buffer, max: number, cuts: number[]): number | undefined | 'none' {
  const socket = new EventEmitter();
  let seen: number | undefined | 'none' = 'none';
  let calls = 0;
  watchMessageSizes(socket as unknown as net.Socket, max, (declared) => {
    calls++;
    seen = declared;
  });
  const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...points, stream.length]) {
    if (to > from) socket.emit('data', stream.subarray(from, to));
    from = Math.max(from, to);
  }
  assert.ok(calls <= 1, `over called ${calls} times`);
  return seen;
}

describe('editor bridge framing: the message size watch', () => {
  it('passes messages up to the limit, and names the first one over it, whatever the cuts', () => {
    fc.assert(
      fc.property(
        // Bodies that hold line ends, blank lines and whole headers of their own, in any letters.
        fc.array(
          fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('\r\n', '\r\n\r\n', '\r', 'Content-Length: 99999\r\n\r\n', 'é')), { maxLength: 5 }).map((p) => p.join('')),
          { minLength: 1, maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('Content-Length', 'content-length', 'CONTENT-LENGTH', 'Content-length'),
        (bodies, cuts, withType, typeFirst, name) => {
          const type = withType ? 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n' : '';
          const stream = Buffer.concat(bodies.map((b) => frame(b, type, name, typeFirst)));
          const sizes = bodies.map((b) => Buffer.byteLength(b));
          const max = 20;
          const expected = sizes.find((s) => s > max);
          assert.equal(watch(stream, max, cuts), expected === undefined ? 'none' : expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('cut one byte at a time, reads the separator split between any two bytes', () => {
    const stream = Buffer.concat([frame('{"a":1}'), frame('x'.repeat(30)), frame('{}')]);
    const everyByte = Array.from({ length: stream.length }, (_, i) => i);
    assert.equal(watch(stream, 29, everyByte), 30);
    assert.equal(watch(stream, 30, everyByte), 'none');
  });

  it('takes a header without a length, or one longer than any header, as no message', () => {
    assert.equal(watch(Buffer.from('Content-Type: text/plain\r\n\r\n{}'), 100, []), undefined);
    assert.equal(watch(Buffer.from(`X-Junk: ${'y'.repeat(10_000)}`), 100, [3000, 6000]), undefined);
    // A declared length past any safe integer is over every limit.
    assert.equal(watch(Buffer.from('Content-Length: 99999999999999999999\r\n\r\n'), 100, []), 1e20);
  });

  it('stops watching when told to', () => {
    const socket = new EventEmitter();
    let calls = 0;
    const stop = watchMessageSizes(socket as unknown as net.Socket, 1, () => calls++);
    stop();
    socket.emit('data', frame('too long'));
    assert.equal(calls, 0);
    assert.equal(socket.listenerCount('data'), 0);
  });
});
