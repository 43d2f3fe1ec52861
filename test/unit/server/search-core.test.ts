// The scan search behind search_files, directly: whole words in any script, line endings, long lines, order.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileQuery, legacyWordCharacter, ScanSearch, WORD_CHARACTER, type SearchQuery } from '../../../src/core/workspace/search';

/** A scan search over `files` written to a new temporary folder. */
function scanSearchOver(files: Record<string, string>, prefix: string): { root: string; search: ScanSearch } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return { root, search: new ScanSearch({ root, files: { listFiles: async () => Object.keys(files).sort(), fileExtension: '.md' }, maxFileSize: 1e6 }) };
}

describe('workspace search core', () => {
  let root: string;
  const base: SearchQuery = { query: '', caseSensitive: false, regex: false, wholeWord: false, maxResults: 100 };
  const files: Record<string, string> = {
    'a.md': 'Café au lait\r\ncafés are many\r\nun café\r\n',
    'b.md': `${'x'.repeat(1000)} needle ${'y'.repeat(1000)}\n`,
    'c.txt': 'one\ntwo needle\n',
    'image.png': 'needle in a binary-typed file',
  };
  let search: ScanSearch;

  before(() => {
    ({ root, search } = scanSearchOver(files, 'notesapp-search-'));
  });
  after(() => {
    search.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('matches whole words in any script, without the carriage return of CRLF lines', async () => {
    const r = await search.search({ ...base, query: 'café', wholeWord: true });
    assert.deepEqual(r.results, [
      { file: 'a.md', line: 1, content: 'Café au lait', match: 'Café' },
      { file: 'a.md', line: 3, content: 'un café', match: 'café' },
    ]);
  });

  it('clips long lines around the match, and searches text file types only, in path order', async () => {
    const r = await search.search({ ...base, query: 'needle' });
    assert.deepEqual(r.results.map((i) => i.file), ['b.md', 'c.txt']);
    const long = r.results[0].content;
    assert.ok(long.length <= 402 && long.startsWith('…') && long.endsWith('…') && long.includes(' needle '), long);
    assert.equal(r.filesSearched, 3);
  });

  it('does not count zero-length matches, and stops at maxResults saying so', async () => {
    assert.equal((await search.search({ ...base, query: '^', regex: true })).results.length, 0);
    const capped = await search.search({ ...base, query: 'e', maxResults: 2 });
    assert.deepEqual([capped.results.length, capped.truncated], [2, true]);
    const exact = await search.search({ ...base, query: 'needle', maxResults: 2 });
    assert.deepEqual([exact.results.length, exact.truncated], [2, false]);
  });

  it('stops when its request is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(search.search({ ...base, query: 'needle', signal: controller.signal }), /cancelled/);
  });

  it('compiles queries: literal text escaped, invalid regex and empty query refused', () => {
    assert.equal(new RegExp(compileQuery({ ...base, query: 'a+b (c)' }).source).test('a+b (c)'), true);
    assert.throws(() => compileQuery({ ...base, query: '[', regex: true }), /Invalid regular expression "\["/);
    // The same with whole words on: the wrapper must not complete a broken pattern, nor be closed by one.
    assert.throws(() => compileQuery({ ...base, query: '[', regex: true, wholeWord: true }), /Invalid regular expression "\[": Unterminated character class$/);
    assert.throws(() => compileQuery({ ...base, query: 'foo)|(b', regex: true, wholeWord: true }), /Invalid regular expression "foo\)\|\(b": Unmatched '\)'$/);
    assert.throws(() => compileQuery({ ...base, query: 'x)|(?:b', regex: true, wholeWord: true }), /Invalid regular expression "x\)\|\(\?:b": Unmatched '\)'$/);
    assert.throws(() => compileQuery({ ...base, query: '' }), /empty/);
    // A pattern valid only outside Unicode mode still works.
    assert.equal(compileQuery({ ...base, query: '\\-', regex: true }).flags, 'i');
  });
});

describe('workspace search core: patterns that compile only without the u flag, and clipped lines', () => {
  let root: string;
  let search: ScanSearch;
  const base: SearchQuery = { query: '', caseSensitive: true, regex: true, wholeWord: true, maxResults: 100 };
  const files: Record<string, string> = {
    'a.md': 'xfoo-bar\nfoo-barx\nfoo-bar ok\né foo-baré\npfoo-bar\n𝐀foo-bar\n😀foo-bar😀\n',
    'emoji.md': `${'😀'.repeat(300)}xneedle${'😀'.repeat(300)}\n`,
  };

  before(() => {
    ({ root, search } = scanSearchOver(files, 'notesapp-search-legacy-'));
  });
  after(() => {
    search.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('search.wholeWord holds for a regex that is only valid without the u flag (`\\-` is refused in Unicode mode)', async () => {
    assert.equal(compileQuery({ ...base, query: 'foo\\-bar' }).flags, '', 'compiled without u');
    const r = await search.search({ ...base, query: 'foo\\-bar' });
    // Letters of any script (é, the astral 𝐀) and _ touch the word; an emoji or a space does not.
    assert.deepEqual(
      r.results.map((i) => [i.line, i.content]),
      [
        [3, 'foo-bar ok'],
        [7, '😀foo-bar😀'],
      ],
    );
  });

  it('the guard without the u flag calls exactly the letters, combining marks, digits and _ of every plane word characters', () => {
    const legacy = new RegExp(`^${legacyWordCharacter()}$`);
    const unicode = new RegExp(`^${WORD_CHARACTER}$`, 'u');
    assert.equal(WORD_CHARACTER, '[\\p{L}\\p{M}\\p{N}_]');
    const differ: string[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const text = String.fromCodePoint(cp);
      if (legacy.test(text) !== unicode.test(text)) differ.push(cp.toString(16));
    }
    assert.deepEqual(differ, []);
  });

  it('clips a long line between whole characters, never between the halves of an emoji', async () => {
    const r = await search.search({ ...base, query: 'needle', regex: false, wholeWord: false });
    const content = r.results[0].content;
    assert.ok(content.startsWith('…') && content.endsWith('…') && content.includes('xneedle'), content);
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(content), 'no lone surrogate');
    assert.ok(content.length <= 402, String(content.length));
  });
});
