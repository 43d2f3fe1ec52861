// list_files pages: the reply as the transport writes it (the page's JSON, escaped, in the text block, once) fits the
// limit, is cut only when it must be, and the pages from each one's nextCursor give every path once, in order.
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { firstAfter, listAnswer, listPage, replyBytes } from '../../../server/tools/list-page';
import { encodeLine } from '../../../server/transport';

const NAMES = ['plain', 'with space', '"quoted"', 'back\\slash', 'tab\there', 'ctrl\u0001', 'café', '日本語のメモ', '😀 emoji', 'lone \ud800 surrogate', 'Zeta', 'zeta', '_under'];

/** Sorted distinct paths, some with every character JSON escapes or encodes in several bytes. */
function paths(count: number, seed: number): string[] {
  const set = new Set<string>();
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  while (set.size < count) {
    const depth = 1 + Math.floor(next() * 3);
    const parts = Array.from({ length: depth }, () => NAMES[Math.floor(next() * NAMES.length)]);
    set.add(`${parts.join('/')} ${set.size}.md`);
  }
  return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Sorted distinct paths of names JSON writes as they are (ASCII and not), the most common kind. */
function plainPaths(count: number, seed: number): string[] {
  // eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
  return paths(count, seed).map((p) => p.replace(/["\\\u0000-\u001f\ud800-\udfff]/g, '_')).filter((p, i, all) => p !== all[i - 1]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The line the transport writes for a page's JSON, as list_files answers it. */
function reply(json: string, id: string | number = 1): Buffer {
  return encodeLine({ result: { content: [{ type: 'text', text: json }] }, jsonrpc: '2.0', id } as JSONRPCMessage);
}

describe('list_files pages', () => {
  it('counts the bytes of a JSON text in a reply exactly', () => {
    for (const name of NAMES) {
      const json = JSON.stringify({ files: [name, `${name}/x`] });
      assert.equal(replyBytes(json), Buffer.byteLength(JSON.stringify(json)) - 2, name);
    }
  });

  it('finds where a cursor continues, whether or not it is one of the paths', () => {
    const sorted = ['a.md', 'b/c.md', 'b/d.md', 'e.md'];
    assert.equal(firstAfter(sorted, ''), 0);
    assert.equal(firstAfter(sorted, 'a.md'), 1);
    assert.equal(firstAfter(sorted, 'b/'), 1);
    assert.equal(firstAfter(sorted, 'b/d.md'), 3);
    assert.equal(firstAfter(sorted, 'e.md'), 4);
    assert.equal(firstAfter(sorted, 'zzz'), 4);
  });

  it('answers a listing that fits whole, with the JSON the reply carries', () => {
    const all = paths(500, 1);
    const { page, json } = listPage(all, { maxBytes: 10 * 1024 * 1024 });
    assert.deepEqual(page, { files: all, count: 500, total: 500, truncated: false });
    assert.equal(json, JSON.stringify(page));
    assert.deepEqual(listPage([], { maxBytes: 4096 }).page, { files: [], count: 0, total: 0, truncated: false });
  });

  it('writes, for any paths and limit, a reply within the limit that carries the page, cut only when it must be', () => {
    const limit = 64 * 1024;
    for (let seed = 1; seed <= 6; seed++) {
      const all = paths(3000, seed);
      const id = seed % 2 ? 7 : `request ${'i'.repeat(seed * 100)}`;
      const room = Buffer.byteLength(JSON.stringify(id));
      let cursor: string | undefined;
      const seen: string[] = [];
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 500, 'the pages move on');
        const { page, json } = listPage(all, { cursor, maxBytes: limit - room });
        const line = reply(json, id);
        assert.deepEqual(JSON.parse(JSON.parse(line.toString()).result.content[0].text), page, `seed ${seed}: the page written`);
        assert.ok(line.length - 1 <= limit, `seed ${seed}: ${line.length} bytes`);
        assert.equal(page.count, page.files.length);
        assert.equal(page.total, all.length);
        seen.push(...page.files);
        if (!page.truncated) {
          assert.equal(page.nextCursor, undefined);
          break;
        }
        assert.equal(page.nextCursor, page.files.at(-1));
        // Cut at the last path that fits: one more would not have.
        const start = seen.length - page.count;
        const more = listPage(all.slice(0, start + page.count + 1), { cursor, maxBytes: Number.MAX_SAFE_INTEGER });
        const bigger = { ...more.page, truncated: true, total: all.length, nextCursor: more.page.files.at(-1) };
        // The page's budget is the limit less the request id and 1 KiB for the reply's envelope.
        assert.ok(replyBytes(JSON.stringify(bigger)) > limit - room - 1024, `seed ${seed}: one more path would have fitted`);
        assert.ok(replyBytes(json) <= limit - room - 1024);
        cursor = page.nextCursor;
      }
      assert.deepEqual(seen, all, `seed ${seed}: every path once, in order`);
    }
  });

  it('takes a longer page ending in a short path where the one ending in a long path (its cursor too) does not fit', () => {
    const all = ['a.md', `b${'o'.repeat(2000)}.md`, 'c.md', `d${'o'.repeat(2000)}.md`];
    const size = (n: number) => replyBytes(JSON.stringify({ files: all.slice(0, n), count: n, total: 4, truncated: true, nextCursor: all[n - 1] }));
    assert.ok(size(3) < size(2), 'the long cursor costs more than the short path');
    const { page } = listPage(all, { maxBytes: size(3) + 1024 });
    assert.deepEqual(page, { files: all.slice(0, 3), count: 3, total: 4, truncated: true, nextCursor: 'c.md' });
    assert.deepEqual(listPage(all, { maxBytes: size(3) + 1023 }).page.files, ['a.md'], 'one byte less: the page before the long path');
  });

  it('gives at most `limit` paths from the cursor on', () => {
    const all = paths(100, 9);
    const first = listPage(all, { limit: 30, maxBytes: 10 * 1024 * 1024 }).page;
    assert.deepEqual(first, { files: all.slice(0, 30), count: 30, total: 100, truncated: true, nextCursor: all[29] });
    const last = listPage(all, { cursor: all[89], limit: 30, maxBytes: 10 * 1024 * 1024 }).page;
    assert.deepEqual(last, { files: all.slice(90), count: 10, total: 100, truncated: false });
    // A cursor that is no path (a file deleted since): the paths sorted after it.
    const between = `${all[49]}\u0000`;
    assert.deepEqual(listPage(all, { cursor: between, limit: 2, maxBytes: 10 * 1024 * 1024 }).page.files, all.slice(50, 52));
    assert.deepEqual(listPage(all, { cursor: all[99], maxBytes: 10 * 1024 * 1024 }).page, { files: [], count: 0, total: 100, truncated: false });
  });

  it('answers with the bytes the transport writes for the page, whether the paths need escaping or not', () => {
    const cases: Array<[string, string[]]> = [
      ['plain', plainPaths(2000, 3)],
      ['escaped', paths(2000, 4)],
      ['one escaped', [...plainPaths(500, 5), 'zz "q".md']],
      ['emoji', ['a.md', '😀/b.md']],
      ['empty', []],
    ];
    for (const [name, all] of cases) {
      assert.ok(name !== 'plain' || all.every((p) => JSON.stringify(p) === `"${p}"`), 'plain paths need no escaping');
      const options = [
        { maxBytes: 10 * 1024 * 1024 },
        { limit: 7, maxBytes: 10 * 1024 * 1024 },
        { cursor: all[10] ?? 'm', limit: 100, maxBytes: 10 * 1024 * 1024 },
        { cursor: all.at(-1) ?? '', maxBytes: 10 * 1024 * 1024 },
        { maxBytes: 8 * 1024 }, // cut to fit
      ];
      for (const o of options) {
        const { json } = listPage(all, o);
        const written = Buffer.concat(listAnswer(all, o).text).toString('utf8');
        // The same string once the reply is parsed (characters beyond Latin-1 may be escapes, see the tests below).
        assert.equal(JSON.parse(`"${written}"`), json, `${name} ${JSON.stringify({ ...o, cursor: o.cursor?.slice(0, 20) })}`);
      }
    }
  });

  it('keeps the bytes of a whole listing it wrote for the next answer, and uses those it is given', () => {
    const all = plainPaths(300, 6);
    const slot: { body?: readonly Uint8Array[] } = {};
    const first = Buffer.concat(listAnswer(all, { maxBytes: 10 * 1024 * 1024 }, slot).text).toString();
    assert.equal(first, JSON.stringify(listPage(all, { maxBytes: 10 * 1024 * 1024 }).json).slice(1, -1));
    assert.equal(Buffer.concat(slot.body ?? []).toString(), all.join('\\",\\"'));
    // Given, the bytes are written as they are (the caller keeps them only while the list is the same).
    slot.body = [Buffer.from('x.md')];
    assert.match(Buffer.concat(listAnswer(all, { maxBytes: 10 * 1024 * 1024 }, slot).text).toString(), /^\{\\"files\\":\[\\"x\.md\\"\],\\"count\\":300,/);
    // A page that is not the whole listing neither uses nor keeps them.
    const partial: { body?: readonly Uint8Array[] } = {};
    const page = Buffer.concat(listAnswer(all, { limit: 10, maxBytes: 10 * 1024 * 1024 }, partial).text).toString();
    assert.equal(page, JSON.stringify(listPage(all, { limit: 10, maxBytes: 10 * 1024 * 1024 }).json).slice(1, -1));
    assert.equal(partial.body, undefined);
    // Paths that need escaping: nothing kept.
    const escaped: { body?: readonly Uint8Array[] } = {};
    listAnswer(paths(300, 7), { maxBytes: 10 * 1024 * 1024 }, escaped);
    assert.equal(escaped.body, undefined);
  });
  describe('characters beyond Latin-1', () => {
    const big = { maxBytes: 10 * 1024 * 1024 };
    /** The answer's text block as the reply carries it (between its quotes), and that string parsed. */
    const answer = (all: string[], options: { cursor?: string; limit?: number; maxBytes: number } = big) => {
      const written = Buffer.concat(listAnswer(all, options).text).toString('utf8');
      return { written, text: JSON.parse(`"${written}"`) as string };
    };
    /** ASCII paths, one in ten holding a typographic apostrophe and dash: 2 such characters in about 250. */
    const titles = Array.from({ length: 2000 }, (_, i) => (i % 10 === 0 ? `notes/${i} don\u2019t \u2013 later.md` : `notes/${i} plain title of a note.md`)).sort();

    it('writes them as escapes where they are rare, so the whole reply stays within Latin-1', () => {
      const { written, text } = answer(titles);
      assert.equal(text, listPage(titles, big).json);
      assert.ok(!/[\u0100-\uffff]/.test(written), 'no character beyond Latin-1 written as it is');
      assert.ok(written.includes('don\\u2019t \\u2013 later'), 'written as \\uXXXX');
      // An emoji is a pair of UTF-16 units, each escaped.
      const emoji = [...titles, 'zz \u{1f600}.md'];
      const withEmoji = answer(emoji);
      assert.equal(withEmoji.text, listPage(emoji, big).json);
      assert.ok(withEmoji.written.includes('zz \\ud83d\\ude00.md'));
    });

    it('never escapes Latin-1 letters', () => {
      const accented = titles.map((p, i) => (i % 3 ? p.replace('plain', 'café') : p));
      const { written, text } = answer(accented);
      assert.equal(text, listPage(accented, big).json);
      assert.ok(written.includes('café title'));
      assert.ok(!/\\u00/.test(written), 'no Latin-1 escape');
    });

    it('writes them as they are where they are common, as JSON.stringify does', () => {
      const dense = titles.map((p, i) => (i % 2 ? p.replace('plain title of a note', '\u65e5\u672c\u8a9e\u306e\u30e1\u30e2') : p));
      const { written } = answer(dense);
      assert.equal(written, JSON.stringify(listPage(dense, big).json).slice(1, -1));
      assert.ok(!written.includes('\\u'), 'no escapes');
    });

    it('escapes the next cursor of a page with the page', () => {
      // A page ending in a path that holds one.
      const last = titles.findIndex((p, i) => i >= 5 && p.includes('\u2019'));
      const options = { limit: last + 1, maxBytes: big.maxBytes };
      const { written, text } = answer(titles, options);
      assert.equal(text, listPage(titles, options).json);
      assert.equal(JSON.parse(text).nextCursor, titles[last]);
      assert.ok(!/[\u0100-\uffff]/.test(written));
    });

    it('leaves a lone surrogate to JSON.stringify, which escapes it', () => {
      const lone = [...titles, 'zz \ud800 lone.md'];
      const { written } = answer(lone);
      assert.equal(written, JSON.stringify(listPage(lone, big).json).slice(1, -1));
      assert.ok(written.includes('zz \\\\ud800 lone.md'), 'escaped within the JSON the text holds');
    });
  });
});
