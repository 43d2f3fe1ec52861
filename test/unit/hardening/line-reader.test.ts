// Line splitting under a size cap, and recovery of the top-level id of an oversized message.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineReader, TopLevelSniffer } from '../../../server/line-reader';

function feedInPieces(reader: LineReader, text: string, cuts: number[]) {
  const buf = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const events = [];
  let last = 0;
  for (const p of [...points, buf.length]) {
    events.push(...reader.push(buf.subarray(last, p)));
    last = p;
  }
  return events;
}

describe('LineReader', () => {
  it('yields the same lines however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/\n/g, ' ')), { maxLength: 8 }), fc.array(fc.nat()), (lines, cuts) => {
        const events = feedInPieces(new LineReader(1000), lines.map((l) => `${l}\n`).join(''), cuts);
        assert.deepEqual(
          events.map((e) => (e.kind === 'line' ? e.bytes.toString('utf8') : e)),
          lines.map((l) => l.replace(/\r$/, '')),
        );
      }),
    );
  });

  it('accepts a line of exactly the cap (CRLF included) and reports one byte more as oversized', () => {
    const reader = new LineReader(10);
    const events = reader.push(Buffer.from(`${'a'.repeat(10)}\r\n${'b'.repeat(11)}\nok\n`));
    assert.deepEqual(events[0], { kind: 'line', bytes: Buffer.from('a'.repeat(10)) });
    assert.deepEqual(events[1], { kind: 'oversized', size: 11, id: null, noReply: false });
    assert.deepEqual(events[2], { kind: 'line', bytes: Buffer.from('ok') });
  });

  it('never holds more than the cap while an oversized line streams past', () => {
    const reader = new LineReader(1024);
    for (let i = 0; i < 1000; i++) assert.deepEqual(reader.push(Buffer.alloc(4096, 120)), []);
    const [event] = reader.push(Buffer.from('\n'));
    assert.equal(event.kind, 'oversized');
    assert.equal(event.kind === 'oversized' && event.size, 4096 * 1000);
  });
});

describe('TopLevelSniffer', () => {
  const key = fc.string({ maxLength: 8 }).filter((k) => k !== 'id' && k !== 'method');
  const id = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

  it('finds the top-level id wherever it sits among other members, nested ids and tricky strings', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue({ maxDepth: 3 })), id, fc.nat(), (others, theId, at) => {
        const entries: Array<[string, unknown]> = Object.entries(others).map(([k, v]) => [k, typeof v === 'object' ? { id: 'nested', v } : v]);
        entries.splice(at % (entries.length + 1), 0, ['id', theId]);
        const text = JSON.stringify(Object.fromEntries(entries));
        const sniffer = new TopLevelSniffer();
        feedBytewise(sniffer, text);
        const read = JSON.parse(JSON.stringify(theId)) as string | number;
        // A number that is an integer beyond 2^53 reads back as another number: no id then (JSON-RPC's null).
        const expected = typeof read === 'number' && Number.isInteger(read) && !Number.isSafeInteger(read) ? null : read;
        assert.deepEqual(sniffer.id, expected, text);
      }),
      { numRuns: 500 },
    );
  });

  it('finds no id where there is none at the top level, and notices a notification', () => {
    const sniffer = new TopLevelSniffer();
    sniffer.feed(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"id":7,"s":"\\"id\\":8"}}'));
    assert.equal(sniffer.id, null);
    assert.equal(sniffer.sawMethod && !sniffer.sawId, true);
    for (const text of ['[{"id":1}]', '"id":1', 'garbage "id": 3', '{"id":{"a":1}}', '{"id":null}', '{"id":9007199254740993}', '{"id":1e300}']) {
      const s = new TopLevelSniffer();
      s.feed(Buffer.from(text));
      assert.equal(s.id, null, text);
    }
  });

  it('tells the messages JSON-RPC never answers, notifications and responses, from requests', () => {
    const cases: Array<[string, boolean]> = [
      ['{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":1}}', true],
      ['{"jsonrpc":"2.0","id":5,"result":{"content":"…"}}', true],
      ['{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":"s"}', true],
      ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"result":1}}', false],
      ['{"jsonrpc":"2.0","params":{"result":1},"id":5,"method":"x"}', false],
      ['{"jsonrpc":"2.0","params":{"error":1,"method":"x"},"id":5}', false],
      ['[{"id":1,"result":{}}]', false],
    ];
    for (const [text, noReply] of cases) {
      const s = new TopLevelSniffer();
      feedBytewise(s, text);
      assert.equal(s.noReply, noReply, text);
    }
  });

  it('keeps a number id that reads back exactly: integers up to 2^53, and fractions', () => {
    for (const [text, id] of [['{"id":9007199254740991}', 9007199254740991], ['{"id":-9007199254740991}', -9007199254740991], ['{"id":1.5}', 1.5], ['{"id":0}', 0]] as const) {
      const s = new TopLevelSniffer();
      s.feed(Buffer.from(text));
      assert.equal(s.id, id, text);
    }
  });
});

function feedBytewise(sniffer: TopLevelSniffer, text: string): void {
  const buf = Buffer.from(text);
  // Odd chunk sizes so that strings, escapes and numbers straddle chunk ends.
  for (let i = 0; i < buf.length; i += 3) sniffer.feed(buf.subarray(i, i + 3));
}
