// search_files answers cut to the payload limit: the reply as the transport writes it (the answer's JSON, escaped,
// in the text block, from the bytes the workers made) never exceeds the limit, is what JSON.stringify of the reply
// gives (byte for byte where no character lies beyond Latin-1; such characters may be written as \uXXXX escapes,
// see matchEncoder), and is cut only when it must be.
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { matchEncoder, type SearchResultItem } from '../../../src/core/workspace/encoded-matches';
import { markEncodedAnswer } from '../../../server/structured-json';
import { fitAnswer } from '../../../server/tools/search';
import { encodeLine } from '../../../server/transport';

/** Deterministic pseudo-random numbers. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const PIECES = ['plain words ', '"quoted" ', 'back\\slash ', 'tab\there ', 'ctrl\u0001 ', 'café ', '日本語のメモ ', '😀 emoji ', 'lone \ud800 surrogate ', ',{"file":"x"} ', 'x'];

function results(count: number, seed: number, pieces = PIECES): SearchResultItem[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    let content = '';
    const parts = 1 + Math.floor(next() * 12);
    for (let p = 0; p < parts; p++) content += pieces[Math.floor(next() * pieces.length)];
    return { file: `folder ${i % 7}/note "${i}"${pieces === PIECES ? ' é' : ''}.md`, line: 1 + Math.floor(next() * 100_000), content, match: content.slice(0, 8) };
  });
}

interface Answer {
  results: SearchResultItem[];
  count: number;
  truncated: boolean;
}

/** The answer a fit holds: its bytes are the characters of a JSON string holding the answer's JSON. */
const answerOf = (fit: ReturnType<typeof fitAnswer>): Answer => JSON.parse(JSON.parse(`"${Buffer.concat(fit.answer.text).toString('utf8')}"`) as string) as Answer;

/** The results as a worker encodes them: files of one to three results each. */
function encoded(all: SearchResultItem[]) {
  const paths: string[] = [];
  const encoder = matchEncoder(paths);
  for (let i = 0; i < all.length; ) {
    const n = Math.min(1 + (i % 3), all.length - i);
    paths.push(all[i].file);
    encoder.add(paths.length - 1, all.slice(i, i + n).map((r) => [r.line, r.content, r.match]));
    // Within one file every result has that file's path.
    for (let k = i; k < i + n; k++) all[k].file = all[i].file;
    i += n;
  }
  return { matches: encoder.done(), count: all.length };
}

/**
 * The line the transport writes for the answer (registered as the tool registers it), and the plain reply: the
 * answer's JSON, made here from the results themselves, in the text block.
 */
function reply(fit: ReturnType<typeof fitAnswer>, all: SearchResultItem[], id = 1): { line: Buffer; plain: Buffer } {
  const message = { result: { content: [{ type: 'text', text: markEncodedAnswer(fit.answer) }] }, jsonrpc: '2.0', id } as JSONRPCMessage;
  const line = encodeLine(message);
  const { count, truncated } = answerOf(fit);
  const json = JSON.stringify({ results: all.slice(0, count), count, truncated });
  return { line, plain: Buffer.from(`${JSON.stringify({ ...message, result: { content: [{ type: 'text', text: json }] } })}\n`) };
}

describe('search answers cut to the payload limit', function () {
  // Eight seeds of a property test: 8 s here, 16 s with the other core busy.
  this.timeout(60_000);
  const limit = 256 * 1024;
  // The results get the limit less 1 KiB, the room for the rest of a reply (JSON-RPC envelope, count, truncated).
  const budget = limit - 1024;

  it('writes, for any results, the reply JSON.stringify gives, within the limit, cut only when it must be', () => {
    for (let seed = 1; seed <= 8; seed++) {
      // Half the seeds with ASCII text only (written byte for byte as JSON.stringify writes it), half with everything
      // that JSON escapes or encodes in several bytes, and text that looks like the boundary between two results.
      const pieces = seed % 2 ? PIECES : ['plain words ', 'x'];
      const boundary = answerOf(fitAnswer(encoded(results(4000, seed, pieces)), false, limit)).count;
      assert.ok(boundary > 50 && boundary < 4000, `seed ${seed}: the limit is reached at ${boundary} results`);
      const counts = [0, 1, 10, 4000];
      for (let count = boundary - 30; count <= boundary + 30; count += 3) counts.push(count);
      for (const count of counts) {
        const all = results(count, seed, pieces);
        const fit = fitAnswer(encoded(all), false, limit);
        const { line, plain } = reply(fit, all);
        if (pieces === PIECES) {
          // The same reply, one JSON line; characters beyond Latin-1 as escapes while rare, or as they are.
          assert.equal(line.indexOf(10), line.length - 1, `seed ${seed}, ${count} results: one line`);
          assert.deepEqual(JSON.parse(line.toString()), JSON.parse(plain.toString()), `seed ${seed}, ${count} results: the reply written`);
        } else assert.deepEqual(line, plain, `seed ${seed}, ${count} results: the bytes written`);
        assert.ok(line.length <= limit, `seed ${seed}, ${count} results: ${line.length} bytes`);
        const written = JSON.parse(line.toString()).result;
        const kept = answerOf(fit).count;
        assert.deepEqual(JSON.parse(written.content[0].text), { results: all.slice(0, kept), count: kept, truncated: kept < all.length });
        assert.equal(written.structuredContent, undefined, 'the answer is sent once');
        // Cut only when the whole answer would not fit, and then at the last result that fits.
        if (kept < all.length) {
          const more = fitAnswer(encoded(all.slice(0, kept + 1)), false, Number.MAX_SAFE_INTEGER);
          assert.ok(reply(more, all).line.length > budget, `seed ${seed}: ${kept} results kept, one more would have fitted`);
        }
      }
    }
  });

  it('keeps truncated when the search itself was cut, even when everything found fits', () => {
    const few = encoded(results(5, 3));
    assert.equal(answerOf(fitAnswer(few, true, limit)).truncated, true);
    assert.equal(answerOf(fitAnswer(few, false, limit)).truncated, false);
  });
});
