// The encoder the text workers write search results with, file by file as they are found: its bytes are the
// results' JSON, escaped as the answer's text block holds it, whatever the results hold and however often its
// buffers grow, and what it hands over can be moved to another thread.
import * as assert from 'node:assert/strict';
import { decodeMatches, matchBytes, matchCount, matchEncoder, postedMatches, type SearchResultItem } from '../../../src/core/workspace/encoded-matches';
import type { LineMatch } from '../../../src/core/workspace/match';

/** The bytes the answer's text block holds for these results: their JSON, each followed by a comma, escaped. */
function expectedBytes(results: SearchResultItem[]): Buffer {
  const json = results.map((r) => `${JSON.stringify(r)},`).join('');
  return Buffer.from(JSON.stringify(json).slice(1, -1), 'utf8');
}

const TRICKY = ['plain', '"quoted"', 'back\\slash', 'tab\there', 'ctrl\u0001', 'café', '日本語', '😀', 'lone \ud800 half', '\u2028'];

describe('matchEncoder', () => {
  it('writes the results of files added one by one as JSON.stringify would, escaped, through many growths of its buffers', () => {
    const paths: string[] = [];
    const perFile: LineMatch[][] = [];
    const all: SearchResultItem[] = [];
    for (let f = 0; f < 3000; f++) {
      paths.push(`folder ${f % 9}/${TRICKY[f % TRICKY.length]} ${f}.md`);
      const lines: LineMatch[] = [];
      for (let k = 0; k < 1 + (f % 4); k++) {
        // Some lines long enough that one result alone is larger than the first buffer.
        const content = `${TRICKY[(f + k) % TRICKY.length]} `.repeat(f % 500 === 0 ? 20_000 : 3 + ((f * 7 + k) % 40));
        lines.push([k * 10 + 1, content, content.slice(0, 12)]);
      }
      perFile.push(lines);
    }
    const encoder = matchEncoder(paths);
    // Every other file: the files searched without results are left out, as a search leaves them out.
    for (let f = 0; f < paths.length; f += 2) {
      encoder.add(f, perFile[f]);
      for (const [line, content, match] of perFile[f]) all.push({ file: paths[f], line, content, match });
    }
    const encoded = encoder.done();
    assert.equal(matchCount(encoded), all.length);
    assert.ok(Buffer.from(encoded.text).equals(expectedBytes(all)), 'the bytes are the escaped JSON of every result, in order');
    assert.ok(encoded.text.length > 1 << 20, 'the buffer grew well past its first size');
    assert.deepEqual(decodeMatches(encoded, all.length), all);
    // For each file: its index and its number of results; each result ends just after its comma.
    const files: number[] = [];
    for (let f = 0; f < paths.length; f += 2) files.push(f, perFile[f].length);
    assert.deepEqual([...encoded.files], files);
    assert.equal(matchBytes(encoded, all.length), encoded.text.length - 1);
    let start = 0;
    all.forEach((result, i) => {
      const end = encoded.ends[i];
      assert.ok(Buffer.from(encoded.text.subarray(start, end)).equals(expectedBytes([result])), `result ${i} lies between its ends`);
      start = end;
    });
  });

  it('ignores a file added with no results, and encodes nothing as empty', () => {
    const encoder = matchEncoder(['a.md', 'b.md']);
    encoder.add(0, []);
    const empty = encoder.done();
    assert.equal(matchCount(empty), 0);
    assert.equal(empty.files.length, 0);
    assert.equal(empty.text.length, 0);
    assert.deepEqual(decodeMatches(empty, 0), []);
  });

  it('hands over buffers of its own, which move to another thread without copying', () => {
    const encoder = matchEncoder(['a.md']);
    encoder.add(0, [[1, 'a line', 'line']]);
    const { posted, move } = postedMatches(encoder.done());
    const { port1, port2 } = new MessageChannel();
    try {
      port1.postMessage(posted, move);
      // Moved: the sender's views are detached, so no shared pool was moved along with them.
      assert.equal(posted.text.byteLength, 0);
      assert.equal(posted.ends.length, 0);
    } finally {
      port1.close();
      port2.close();
    }
  });
});
