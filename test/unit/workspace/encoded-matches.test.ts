// The encoder the text workers write search results with, file by file as they are found: its bytes are the
// results' JSON, escaped as the answer's text block holds it, whatever the results hold and however often its
// buffers grow, and what it hands over can be moved to another thread.
import * as assert from 'node:assert/strict';
import { decodeMatches, matchBytes, matchCount, matchEncoder, postedMatches, type SearchResultItem } from '../../../src/core/workspace/encoded-matches';
import type { LineMatch } from '../../../src/core/workspace/match';

/** What the answer's text block holds for these results: their JSON, each followed by a comma. */
function expectedJson(results: SearchResultItem[]): string {
  return results.map((r) => `${JSON.stringify(r)},`).join('');
}

/** The text that `bytes`, read as the characters of a JSON string (as the answer's text block holds them), stand for. */
function asJsonString(bytes: Uint8Array): string {
  return JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string;
}

/** The bytes JSON.stringify writes for these results' JSON, escaped, in UTF-8: characters outside ASCII as they are. */
function stringifiedBytes(results: SearchResultItem[]): Buffer {
  return Buffer.from(JSON.stringify(expectedJson(results)).slice(1, -1), 'utf8');
}

function encodeAll(paths: string[], lines: LineMatch[][], sizeHint?: number) {
  const encoder = matchEncoder(paths, sizeHint);
  const all: SearchResultItem[] = [];
  paths.forEach((file, f) => {
    encoder.add(f, lines[f]);
    for (const [line, content, match] of lines[f]) all.push({ file, line, content, match });
  });
  return { encoded: encoder.done(), all };
}

const beyondLatin1 = (text: string) => /[\u0100-\uffff]/.test(text);

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
    assert.equal(asJsonString(encoded.text), expectedJson(all), 'the bytes are the escaped JSON of every result, in order');
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
      assert.equal(asJsonString(encoded.text.subarray(start, end)), expectedJson([result]), `result ${i} lies between its ends`);
      start = end;
    });
  });

  it('writes characters beyond Latin-1 as escapes while they are rare, so that the answer decodes one byte a character', () => {
    // Typographic quotes, an ellipsis, an emoji (a surrogate pair), a lone surrogate and a line separator, a few in
    // each long line of plain text with accented letters, and in file names.
    const rare = ['it\u2019s', 'wait\u2026', '😀', 'lone \ud800 half', '\u2028', '\u201cquoted\u201d'];
    const paths = rare.map((word, i) => `notes/${word} ${i}.md`);
    const lines = rare.map((word, i): LineMatch[] => [[i + 1, `Met Tomás about ${word}, the plan for the quarter and the budget review. `.repeat(3), word]]);
    const { encoded, all } = encodeAll(paths, lines);
    const decoded = Buffer.from(encoded.text).toString('utf8');
    assert.ok(!beyondLatin1(decoded), 'no character beyond Latin-1 is written as it is');
    assert.ok(decoded.includes('Tomás'), 'accented letters are written as they are');
    assert.equal(asJsonString(encoded.text), expectedJson(all));
    assert.deepEqual(decodeMatches(encoded, all.length), all);
    // The same results written as JSON.stringify writes them hold such characters.
    assert.ok(beyondLatin1(stringifiedBytes(all).toString('utf8')));
  });

  it('never escapes Latin-1 letters, however common', () => {
    const words = ['café', 'niño', 'über', 'façade', 'Tomás'];
    const paths = words.map((w) => `notes/${w}.md`);
    const lines = words.map((w, i): LineMatch[] => [[i + 1, `${w} ${w} ${w} `.repeat(20), w]]);
    const { encoded, all } = encodeAll(paths, lines);
    assert.ok(Buffer.from(encoded.text).equals(stringifiedBytes(all)), 'the bytes JSON.stringify writes');
  });

  it('writes them as they are once they are common, where escapes would make the answer several times larger', () => {
    const paths = Array.from({ length: 300 }, (_, i) => (i % 2 ? `заметки/встреча ${i}.md` : `会议/记录 ${i}.md`));
    const lines = paths.map((_, i): LineMatch[] => [[i + 1, i % 2 ? 'Встреча с командой о сроках проекта и бюджете на квартал.' : '会议讨论了项目的截止日期和预算。', i % 2 ? 'сроках' : '截止日期']]);
    const { encoded, all } = encodeAll(paths, lines);
    assert.ok(beyondLatin1(Buffer.from(encoded.text).toString('utf8')), 'Cyrillic and CJK text is written as UTF-8');
    assert.ok(encoded.text.length <= stringifiedBytes(all).length * 1.1, `${encoded.text.length} bytes, against ${stringifiedBytes(all).length} as JSON.stringify writes them`);
    assert.equal(asJsonString(encoded.text), expectedJson(all));
    assert.deepEqual(decodeMatches(encoded, all.length), all);
  });

  it('writes the same bytes whatever size it is told to expect', () => {
    const paths = Array.from({ length: 400 }, (_, f) => `folder/${TRICKY[f % TRICKY.length]} ${f}.md`);
    const lines = paths.map((_, f): LineMatch[] => [[f + 1, `${TRICKY[f % TRICKY.length]} line `.repeat(1 + (f % 30)), TRICKY[f % TRICKY.length]]]);
    const plain = encodeAll(paths, lines);
    for (const hint of [1, 1000, plain.encoded.text.length, 10 * plain.encoded.text.length]) {
      const hinted = encodeAll(paths, lines, hint);
      assert.ok(Buffer.from(hinted.encoded.text).equals(Buffer.from(plain.encoded.text)), `hint ${hint}`);
      assert.deepEqual([...hinted.encoded.ends], [...plain.encoded.ends]);
    }
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
