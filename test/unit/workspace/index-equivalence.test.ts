// The workspace index answers search_files and list_files exactly as the disk scan does, before and after other
// programs edit, create, rename and delete files, and it keeps stopping runaway regular expressions.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexedSearch } from '../../../src/core/workspace/index-search';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { RipgrepUse, ScanSearch, type SearchBackend, type SearchOutcome, type SearchQuery } from '../../../src/core/workspace/search';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';
import { testRipgrep } from './ripgrep-helper';

const FILE_EXCLUDES = ['**/node_modules/**', '**/.git/**'];
const SEARCH_EXCLUDES = ['archive/**', '**/*.log'];
const MAX_FILE_SIZE = 60_000;

// U+FFFD is what invalid UTF-8 decodes to (and what a lone surrogate encodes to), so a byte search cannot find it.
const LITERALS = ['customer feedback', 'kyoto', 'Note 00012', '[[', 'a', '---', 'TODO', 'straße', '.', '(', 'café', 'Tomás', 'x] ', 'deadline', 'changed by', '\uFFFD', 'before \uFFFD', '\uD800', '😀 emoji', 'mississippi', 'priya tomás', 'KYOTO OFFICE'];
const REGEXES = [
  '\\b(TODO|FIXME)\\b.*deadline',
  '^## ',
  '^- \\[x\\]',
  '\\.$',
  'ee+',
  '[A-Z][a-z]+ [A-Z]',
  '^$',
  '(?<=\\[\\[)Note 0000\\d',
  'feedback(?![\\s\\S])',
  '(?<![\\s\\S])---',
  '(?<!\\n)tags',
  'a*',
  'x?$',
  '\\r',
  '[^]*e',
  '\\s+$',
  'tags: \\[.*\\]$',
  '(\\w+) \\1',
  '\\p{Lu}{4}',
  'é|ö|ß',
  'kyoto\\s*\\n?$',
  // An empty first match on a line, then one that is not (zero-length matches do not count).
  '\\d*',
  '(?=.*kyoto)\\d*',
  // Sieves for ripgrep (literal texts in order, gaps between): optional parts, branches, invalid bytes in a gap.
  'customer(?: very)? feedback',
  '(?:Lisbon|Kyoto).*(?:review|feedback)',
  'before \\uFFFD+ after',
  'kyoto (?:customer|x+) feed',
];

function queries(): SearchQuery[] {
  const out: SearchQuery[] = [];
  for (const [list, regex] of [[LITERALS, false], [REGEXES, true]] as const) {
    for (const query of list) {
      for (const caseSensitive of [true, false]) {
        for (const wholeWord of [false, true]) out.push({ query, regex, caseSensitive, wholeWord, maxResults: 100_000 });
      }
      out.push({ query, regex, caseSensitive: false, wholeWord: false, maxResults: 7 });
    }
  }
  return out;
}

/** Results and the truncation flag; or the error message when the query is refused. */
async function answer(backend: SearchBackend, q: SearchQuery): Promise<Pick<SearchOutcome, 'results' | 'truncated'> | string> {
  try {
    const { results, truncated } = await backend.search(q);
    return { results, truncated };
  } catch (err) {
    return (err as Error).message;
  }
}

describe('workspace index: same answers as the disk scan', function () {
  this.timeout(120_000);
  let root: string;
  let scan: ScanSearch;
  /** The disk scan as the server runs it: its worker lists the workspace itself. */
  let walkScan: ScanSearch;
  /** The disk scan with ripgrep: the worker matches only the lines ripgrep printed (when it can narrow the query). */
  let ripgrepScan: ScanSearch;
  const indexes: Array<{ name: string; index: WorkspaceIndex; search: IndexedSearch }> = [];

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-index-')));
    const { writeCorpus } = await import('../../bench/corpus.mjs');
    writeCorpus(root, 250);
    // Edge cases the generated notes lack.
    const extra: Record<string, string> = {
      'crlf.md': 'kyoto line one\r\nsecond TODO deadline\r\n\r\nlast kyoto\r\n',
      // A carriage return alone ends a line too (ripgrep counts line feeds only).
      'mac.md': 'kyoto one\rcustomer feedback\r\rTODO deadline\rkyoto last\r',
      'mixed-ends.md': 'kyoto a\nb\rkyoto c\r\nd\r\rcustomer feedback kyoto\r\ne\rf kyoto\n\r\nx TODO deadline',
      'long.md': `${'word '.repeat(1200)}customer feedback${' tail'.repeat(900)}\nkyoto`,
      'unicode.md': 'Straße ÉCOLE café Tomás\nSTRASSE straße\n',
      // Case folding that crosses into ASCII: the Kelvin sign is k, the long s is s.
      'folding.md': 'the \u212Ayoto office\nMi\u017F\u017Fi\u017F\u017Fippi river\nPRIYA TOMÁS, priya tomás\n',
      'big.md': `${'kyoto '.repeat(12_000)}\n`, // over MAX_FILE_SIZE: neither side searches it
      '.hidden/secret.md': 'kyoto in a hidden folder\n',
      'node_modules/pkg/readme.md': 'kyoto in node_modules\n',
      'archive/old.md': 'kyoto archived, listed but not searched\n',
      'notes/log.log': 'kyoto log line\n',
      'data.bin': 'kyoto in a binary\n',
      'plain.txt': 'customer feedback in a text file\n',
      'no-newline.md': 'kyoto',
      'empty.md': '',
      'emoji.md': 'with 😀 emoji and a lone \uD800 surrogate (written as U+FFFD)\n',
      // What ripgrep could read differently from the text worker: byte-order marks, NUL bytes, a very long line,
      // upper-case extensions, hidden names, names that look like options, names outside ASCII.
      'bom.md': '\uFEFFkyoto after a byte-order mark\ncustomer feedback\n',
      'nul.md': 'kyoto\0with a NUL byte\0 customer feedback\n',
      'UPPER.MD': 'Customer Feedback in capitals, KYOTO\n',
      'notes/.dotted.md': 'kyoto in a hidden file\n',
      '-dash.md': 'kyoto --version customer feedback\n',
      'notes/ünïcode-名前.md': 'kyoto 東京 customer feedback straße\n',
      // Ignore files mean nothing to a notes workspace (ripgrep would skip what they name).
      '.ignore': 'ignored/\n*.txt\n',
      '.rgignore': 'UPPER.MD\n',
      'ignored/kept.md': 'kyoto named by an ignore file, still a note: customer feedback\n',
      'long-line.md': `${'lorem ipsum '.repeat(5000)}customer feedback${' dolor'.repeat(3000)} TODO deadline\n`,
    };
    for (const [rel, text] of Object.entries(extra)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    fs.writeFileSync(path.join(root, 'invalid-utf8.md'), Buffer.concat([Buffer.from('kyoto before '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' after\n')]));
    // UTF-16 with its byte-order mark: ripgrep would decode it unless told not to; the worker reads it as UTF-8.
    fs.writeFileSync(path.join(root, 'utf16.md'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('kyoto customer feedback\n', 'utf16le')]));
    // A truncated UTF-8 sequence right before a line end.
    fs.writeFileSync(path.join(root, 'truncated.md'), Buffer.concat([Buffer.from('kyoto '), Buffer.from([0xe2, 0x82]), Buffer.from('\ncustomer feedback \xe9\n', 'latin1')]));
    const searchList = { excludePatterns: [...FILE_EXCLUDES, ...SEARCH_EXCLUDES], showHiddenFiles: false };
    // The reference: fdir lists, the worker reads and matches.
    scan = new ScanSearch({ root, files: { listFiles: () => listWorkspaceFiles(root, searchList), fileExtension: '.md' }, maxFileSize: MAX_FILE_SIZE, regexBudgetMs: 2000 });
    walkScan = new ScanSearch({
      root,
      files: { excludePatterns: FILE_EXCLUDES, searchExcludePatterns: SEARCH_EXCLUDES, showHiddenFiles: false, fileExtension: '.md' },
      maxFileSize: MAX_FILE_SIZE,
      regexBudgetMs: 2000,
      // Three workers: the first lists, all three read and match their shares.
      textWorkers: 3,
    });
    ripgrepScan = new ScanSearch({
      root,
      files: { excludePatterns: FILE_EXCLUDES, searchExcludePatterns: SEARCH_EXCLUDES, showHiddenFiles: false, fileExtension: '.md' },
      maxFileSize: MAX_FILE_SIZE,
      regexBudgetMs: 2000,
      ripgrep: new RipgrepUse(testRipgrep()),
    });
    const corpusBytes = Number(spawnSync('du', ['-sb', root], { encoding: 'utf8' }).stdout.split('\t')[0]);
    // Everything cached; and a budget that keeps part of the texts on disk (read on every search).
    // One text worker, and three sharing the files (results merged back into one list).
    // And a budget too small for the texts with ripgrep: it narrows down the lines of every search it can.
    for (const [name, maxBytes, maxFiles, textWorkers, ripgrep] of [
      ['fully cached, one text worker', 1e9, 1e6, 1, undefined],
      ['partly cached, three text workers', Math.floor(corpusBytes / 3), 150, 3, undefined],
      ['partly cached, ripgrep', Math.floor(corpusBytes / 3), 150, 1, new RipgrepUse(testRipgrep())],
    ] as const) {
      const index = new WorkspaceIndex({ root, excludePatterns: FILE_EXCLUDES, showHiddenFiles: false, fileExtension: '.md', maxFileSize: MAX_FILE_SIZE, maxFiles, maxBytes, regexBudgetMs: 2000, textWorkers });
      await index.caching();
      const search = new IndexedSearch(index, { searchExcludePatterns: SEARCH_EXCLUDES, fallback: async () => scan, ripgrep });
      indexes.push({ name, index, search });
    }
    assert.ok(indexes[1].index.stats().cachedFiles < indexes[0].index.stats().cachedFiles, 'the small budget leaves texts on disk');
  });

  after(() => {
    for (const { index } of indexes) index.dispose();
    scan.dispose();
    walkScan.dispose();
    ripgrepScan.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function assertSame(label: string): Promise<void> {
    // The index answers first, before this process does any other I/O that could let watcher events in earlier.
    const qs = queries();
    const got = [];
    for (const { index, search } of indexes) {
      assert.ok(await index.fresh());
      const answers = [];
      for (const q of qs) answers.push(await answer(search, q));
      got.push({ files: [...index.listFiles()], answers });
    }
    // What answers a search that arrives before the listing is complete: the index's own worker walks the workspace
    // (one worker; with several, a walk that finds the listing complete leaves the search to the index, and
    // index-cold.test.ts covers their walk).
    const walkIndex = indexes[0].index;
    const rules = walkIndex.walkRules(SEARCH_EXCLUDES);
    const walkBackend: SearchBackend = {
      search: async (q) => {
        const walked = await walkIndex.walkSearch(rules, q);
        if (!walked) throw new Error('a one-worker walk always answers');
        return walked;
      },
    };
    const walks = [];
    for (const q of qs) walks.push(await answer(walkBackend, q));
    const listed = await listWorkspaceFiles(root, { excludePatterns: FILE_EXCLUDES, showHiddenFiles: false });
    let matched = 0;
    for (let i = 0; i < qs.length; i++) {
      const expected = await answer(scan, qs[i]);
      if (typeof expected !== 'string') matched += expected.results.length;
      for (let k = 0; k < indexes.length; k++) {
        assert.deepEqual(got[k].answers[i], expected, `${label}, ${indexes[k].name}: ${JSON.stringify(qs[i])}`);
      }
      assert.deepEqual(walks[i], expected, `${label}, ${indexes[0].name}, walking its worker: ${JSON.stringify(qs[i])}`);
      assert.deepEqual(await answer(walkScan, qs[i]), expected, `${label}, disk scan walking in its worker: ${JSON.stringify(qs[i])}`);
      assert.deepEqual(await answer(ripgrepScan, qs[i]), expected, `${label}, disk scan with ripgrep: ${JSON.stringify(qs[i])}`);
    }
    for (let k = 0; k < indexes.length; k++) assert.deepEqual(got[k].files, listed, `${label}, ${indexes[k].name}: list_files`);
    assert.ok(matched > 1000, 'the queries find plenty');
  }

  it('gives identical results for literal, case-insensitive, whole-word and regex queries', async () => {
    await assertSame('initial');
  });

  it('stays identical right after another program edits, replaces, creates, renames and deletes files and folders', async function () {
    // Three rounds of every query on seven backends: each round takes as long as the whole test before it (35-40 s
    // on a quiet 2-core machine), so the suite's 120 s left a busy machine no room.
    this.timeout(360_000);
    const script = (step: number) => `
      const fs = require('node:fs'); const path = require('node:path');
      const root = ${JSON.stringify(root)};
      const all = [];
      (function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else all.push(p); } })(root);
      const notes = all.filter((f) => f.endsWith('.md') && !f.includes('node_modules') && !f.includes('.hidden')).sort();
      const pick = (i) => notes[(i * 37 + ${step} * 11) % notes.length];
      fs.appendFileSync(pick(1), '\\nchanged by ${step}: kyoto TODO the deadline\\n');
      const tmp = pick(2) + '.tmp'; fs.writeFileSync(tmp, 'replaced atomically ${step}\\ncustomer feedback\\n'); fs.renameSync(tmp, pick(2));
      fs.writeFileSync(pick(3), '');
      fs.rmSync(pick(4));
      fs.mkdirSync(path.join(root, 'new${step}', 'deep', 'er'), { recursive: true });
      fs.writeFileSync(path.join(root, 'new${step}', 'deep', 'er', 'fresh.md'), '# Fresh\\nkyoto Straße customer feedback\\n');
      fs.writeFileSync(path.join(root, 'new${step}', 'top.txt'), 'TODO deadline kyoto\\n');
      fs.mkdirSync(path.join(root, '.hidden'), { recursive: true }); fs.writeFileSync(path.join(root, '.hidden', 'n${step}.md'), 'kyoto');
      fs.mkdirSync(path.join(root, 'node_modules', 'x'), { recursive: true }); fs.writeFileSync(path.join(root, 'node_modules', 'x', '${step}.md'), 'kyoto');
      const dirs = fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && !e.name.startsWith('new')).map((e) => e.name).sort();
      if (${step} === 0) fs.renameSync(path.join(root, dirs[0]), path.join(root, dirs[0] + '-moved'));
      if (${step} === 1) fs.rmSync(path.join(root, dirs[1]), { recursive: true });
      if (${step} === 2) { const f = pick(5); fs.rmSync(f); fs.mkdirSync(f); fs.writeFileSync(path.join(f, 'inside.md'), 'kyoto inside a folder named like a note'); }
      fs.mkdirSync(path.join(root, 'archive'), { recursive: true }); fs.writeFileSync(path.join(root, 'archive', 'step${step}.md'), 'kyoto archived');
    `;
    for (let step = 0; step < 3; step++) {
      const r = spawnSync(process.execPath, ['-e', script(step)], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      await assertSame(`after changes ${step}`); // no waiting: the index must see the changes by itself
    }
  });

  it('still stops a catastrophically backtracking regular expression, and searches normally afterwards', async () => {
    fs.writeFileSync(path.join(root, 'evil.md'), `${'a'.repeat(40)}!\n`);
    const runaway: SearchQuery = { query: '(a+)+$', regex: true, caseSensitive: true, wholeWord: false, maxResults: 10 };
    assert.match(String(await answer(walkScan, runaway)), /ran for more than 2000 ms on "evil\.md"/, 'disk scan walking in its worker');
    // With text ripgrep can look for, the runaway expression runs on the lines it printed: stopped the same way.
    fs.writeFileSync(path.join(root, 'evil2.md'), `evil ${'a'.repeat(40)}!\n`);
    const narrowed: SearchQuery = { query: 'evil (a+)+$', regex: true, caseSensitive: true, wholeWord: false, maxResults: 10 };
    assert.match(String(await answer(ripgrepScan, narrowed)), /ran for more than 2000 ms on "evil2\.md"/, 'disk scan with ripgrep');
    const after: SearchQuery = { query: 'customer feedback', regex: false, caseSensitive: true, wholeWord: false, maxResults: 100_000 };
    assert.deepEqual(await answer(ripgrepScan, after), await answer(scan, after), 'disk scan with ripgrep, after the runaway expression');
    for (const { name, index, search } of indexes) {
      const bad = await answer(search, { query: '(a+)+$', regex: true, caseSensitive: true, wholeWord: false, maxResults: 10 });
      assert.equal(typeof bad, 'string', name);
      // Either runaway file stops it (with several workers, whichever is reached first).
      assert.match(bad as string, /ran for more than 2000 ms on "evil2?\.md"/, name);
      const q: SearchQuery = { query: 'kyoto', regex: true, caseSensitive: false, wholeWord: false, maxResults: 100_000 };
      assert.deepEqual(await answer(search, q), await answer(scan, q), name);
      // The stopped worker was replaced and reads its texts again.
      await index.caching();
      assert.ok(index.stats().cachedFiles > 100, `${name}: ${index.stats().cachedFiles} texts kept again`);
    }
  });
});

describe('workspace index on a file system that ignores letter case', function () {
  this.timeout(30_000);
  // macOS and Windows: `Note.md` still finds a file renamed to `note.md`. Linux file systems here do not, so the
  // index's stat is made to behave that way (its own reads of folders stay as they are).
  const realLstat = fs.lstatSync;
  let root: string;
  let index: WorkspaceIndex | undefined;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-case-')));
    (fs as { lstatSync: unknown }).lstatSync = (p: fs.PathLike, options?: fs.StatSyncOptions) => {
      try {
        return realLstat(p, options);
      } catch (err) {
        const dir = path.dirname(String(p));
        const same = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.toLowerCase() === path.basename(String(p)).toLowerCase()) : undefined;
        if (same) return realLstat(path.join(dir, same), options);
        throw err;
      }
    };
  });
  afterEach(() => {
    (fs as { lstatSync: unknown }).lstatSync = realLstat;
    index?.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists a file or folder renamed in letter case only once, under its new name', async () => {
    fs.writeFileSync(path.join(root, 'Note.md'), 'kyoto\n');
    fs.mkdirSync(path.join(root, 'Projects'));
    fs.writeFileSync(path.join(root, 'Projects', 'Plan.md'), 'kyoto plan\n');
    index = new WorkspaceIndex({ root, excludePatterns: [], showHiddenFiles: false, fileExtension: '.md', maxFileSize: 1e6, maxFiles: 100, maxBytes: 1e7, textWorkers: 1 });
    await index.listing();
    assert.ok(await index.fresh());
    fs.renameSync(path.join(root, 'Note.md'), path.join(root, 'note.md'));
    fs.renameSync(path.join(root, 'Projects'), path.join(root, 'projects'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(await index.fresh());
    assert.deepEqual([...index.listFiles()], ['note.md', 'projects/Plan.md']);
    assert.deepEqual([...index.listFiles()], await listWorkspaceFiles(root, { excludePatterns: [], showHiddenFiles: false }));
  });
});
