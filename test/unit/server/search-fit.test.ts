// search_files answers cut to the payload limit: the reply as the transport writes it (the result as structured
// content and again, escaped, in the text block) never exceeds the limit, and an answer is cut only when it must be.
import * as assert from 'node:assert/strict';
import type { SearchResultItem } from '../../../src/core/workspace/search';
import { fitAnswer } from '../../../server/tools/search';

/** The bytes of the line the transport writes for this answer (the request id aside). */
function replyBytes(structured: object, text: string): number {
  return Buffer.byteLength(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }], structuredContent: structured } })}\n`);
}

/** Deterministic pseudo-random numbers. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const PIECES = ['plain words ', '"quoted" ', 'back\\slash ', 'tab\there ', 'ctrl\u0001 ', 'café ', '日本語のメモ ', '😀 emoji ', 'lone \ud800 surrogate ', 'x'];

function results(count: number, seed: number, pieces = PIECES): SearchResultItem[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    let content = '';
    const parts = 1 + Math.floor(next() * 12);
    for (let p = 0; p < parts; p++) content += pieces[Math.floor(next() * pieces.length)];
    return { file: `folder ${i % 7}/note "${i}" é.md`, line: 1 + Math.floor(next() * 100_000), content, match: content.slice(0, 8) };
  });
}

describe('search answers cut to the payload limit', () => {
  const limit = 256 * 1024;

  it('never writes a reply over the limit, whatever the results hold', () => {
    // The results get the limit less 64 KiB (the rest of a reply, the request id); the envelope of this test's
    // replies takes under 1 KiB of that.
    const budget = limit - 64 * 1024 + 1024;
    for (let seed = 1; seed <= 8; seed++) {
      // Half the seeds with plain text only (nothing to escape), half with everything that JSON escapes or encodes
      // in several bytes.
      const pieces = seed % 2 ? PIECES : ['plain words ', 'x'];
      // Counts around the one where the answer reaches the limit, where a loose bound would let too much through.
      const boundary = fitAnswer(results(4000, seed, pieces), false, limit).structured.count;
      const counts = [10, 4000];
      for (let count = boundary - 60; count <= boundary + 60; count += 3) counts.push(count);
      for (const count of counts) {
        const all = results(count, seed, pieces);
        const { structured, json: text } = fitAnswer(all, false, limit);
        assert.ok(replyBytes(structured, text) <= budget, `seed ${seed}, ${count} results: ${replyBytes(structured, text)} bytes`);
        assert.deepEqual(JSON.parse(text), structured);
        assert.equal(structured.count, structured.results.length);
        // A prefix of the results, in order; cut only when the whole answer would not fit.
        assert.deepEqual(structured.results, all.slice(0, structured.count));
        const whole = { results: all, count: all.length, truncated: false };
        // truncated says whether results were dropped (the search itself was not cut here).
        assert.equal(structured.truncated, structured.count < all.length, `seed ${seed}, ${count} results`);
        if (replyBytes(whole, JSON.stringify(whole)) <= limit - 64 * 1024) assert.equal(structured.count, all.length, `seed ${seed}: cut though it fitted`);
      }
    }
  });

  it('keeps an answer whole up to near the limit, and cuts a larger one close to it', () => {
    // Plain ASCII lines, as most notes hold: the cheap bound is close to the truth.
    const plain = results(2000, 7, ['plain words and more words ', 'x']);
    const whole = fitAnswer(plain, false, limit);
    const size = replyBytes(whole.structured, whole.json);
    if (whole.structured.count === plain.length) assert.ok(size <= limit);
    else assert.ok(size > limit * 0.6, `cut to ${size} bytes`);
    const many = results(20_000, 7, ['plain words and more words ', 'x']);
    const cut = fitAnswer(many, false, limit);
    assert.equal(cut.structured.truncated, true);
    assert.ok(replyBytes(cut.structured, cut.json) > (limit - 64 * 1024) * 0.9, `cut to ${replyBytes(cut.structured, cut.json)} bytes`);
  });

  it('keeps truncated when the search itself was cut, even when everything found fits', () => {
    const few = results(5, 3);
    assert.equal(fitAnswer(few, true, limit).structured.truncated, true);
    assert.equal(fitAnswer(few, false, limit).structured.truncated, false);
  });
});
