// A search that arrives while the index is still listing (the first one after start) is answered by the text
// worker listing and reading the workspace itself: the same answer as the disk scan, changes by other programs
// included, and a listing asked for meanwhile is not held up by it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IndexedSearch } from '../../../src/core/workspace/index-search';
import { listWorkspaceFiles } from '../../../src/core/workspace/listing';
import { RipgrepUse, ScanSearch, type SearchOutcome, type SearchQuery } from '../../../src/core/workspace/search';
import { WorkspaceIndex } from '../../../src/core/workspace/workspace-index';
import { testRipgrep } from './ripgrep-helper';

const FILE_EXCLUDES = ['**/node_modules/**'];
const SEARCH_EXCLUDES = ['archive/**'];
const WALK_MESSAGE = /the index is still listing, so its text worker lists/;
const RIPGREP_MESSAGE = /the index is still listing, so the text worker matches the lines ripgrep found/;
const UNCACHED_MESSAGE = 'search: not every text is in memory, so the text worker matches the lines ripgrep found';

describe('workspace index: the first search, before the listing is complete', function () {
  this.timeout(60_000);
  let root: string;
  let scan: ScanSearch;
  const opened: WorkspaceIndex[] = [];

  interface OpenOptions {
    budgetMs?: number;
    textWorkers?: number;
    waitForOutput?: () => Promise<void>;
    /** The ripgrep program to narrow searches down with (none: the worker walks). */
    ripgrep?: string;
    /** Bytes of text kept (default: all of them). */
    maxBytes?: number;
  }

  function open(o: OpenOptions = {}): { index: WorkspaceIndex; search: IndexedSearch; logged: string[]; warnings: string[]; fallbacks: () => number } {
    const logged: string[] = [];
    const warnings: string[] = [];
    const record = (level: string, message: string) => {
      logged.push(message);
      if (level === 'warn') warnings.push(message);
    };
    let fallbacks = 0;
    const index = new WorkspaceIndex({
      root,
      excludePatterns: FILE_EXCLUDES,
      showHiddenFiles: false,
      fileExtension: '.md',
      maxFileSize: 100_000,
      maxFiles: 10_000,
      maxBytes: o.maxBytes ?? 1e8,
      regexBudgetMs: o.budgetMs ?? 20_000,
      textWorkers: o.textWorkers ?? 1,
      waitForOutput: o.waitForOutput,
      log: record,
    });
    opened.push(index);
    const fallback = async () => {
      fallbacks++;
      return scan;
    };
    const ripgrep = o.ripgrep === undefined ? undefined : new RipgrepUse(o.ripgrep, record);
    return { index, search: new IndexedSearch(index, { searchExcludePatterns: SEARCH_EXCLUDES, fallback, ripgrep }), logged, warnings, fallbacks: () => fallbacks };
  }

  /** What a user sees of an answer: the results and whether they were cut (filesSearched depends on the way). */
  const answer = async (backend: { search(q: SearchQuery): Promise<SearchOutcome> }, query: SearchQuery) => {
    const { results, truncated } = await backend.search(query);
    return { results, truncated };
  };
  /** The answer and how many files were searched (the encoded bytes behind the results are compared elsewhere). */
  const seen = ({ results, truncated, filesSearched }: SearchOutcome) => ({ results, truncated, filesSearched });
  const q = (query: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({ query, regex: false, caseSensitive: false, wholeWord: false, maxResults: 100_000, ...extra });

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-cold-')));
    const { writeCorpus } = await import('../../bench/corpus.mjs');
    writeCorpus(root, 150);
    const extra: Record<string, string> = {
      '.hidden/secret.md': 'kyoto hidden\n',
      'node_modules/pkg/readme.md': 'kyoto in node_modules\n',
      'archive/old.md': 'kyoto archived\n',
      'data.bin': 'kyoto binary\n',
      'plain.txt': 'kyoto text\n',
      'outside/target.md': 'kyoto behind a link\n',
    };
    for (const [rel, text] of Object.entries(extra)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    // Symbolic links are skipped by every listing, so by the walk too.
    fs.symlinkSync(path.join(root, 'outside', 'target.md'), path.join(root, 'link.md'));
    fs.symlinkSync(path.join(root, 'outside'), path.join(root, 'linked-folder'));
    scan = new ScanSearch({
      root,
      files: { listFiles: () => listWorkspaceFiles(root, { excludePatterns: [...FILE_EXCLUDES, ...SEARCH_EXCLUDES], showHiddenFiles: false }), fileExtension: '.md' },
      maxFileSize: 100_000,
    });
  });

  after(() => {
    for (const index of opened) index.dispose();
    scan.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is answered by the worker walking the workspace, as the disk scan answers, a note just written by another program included', async () => {
    const r = spawnSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(path.join(root, 'just-written.md'))}, 'kyoto fresh from elsewhere\\n')`]);
    assert.equal(r.status, 0);
    const queries = [q('kyoto'), q('customer feedback', { caseSensitive: true }), q('\\b(TODO|FIXME)\\b.*deadline', { regex: true }), q('kyoto', { maxResults: 3 })];
    for (const [query, textWorkers] of [...queries.map((x) => [x, 1] as const), [queries[0], 3] as const]) {
      const { index, search, logged } = open({ textWorkers });
      const cold = await search.search(query);
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1, `the first search walked: ${logged.join(' | ')}`);
      const expected = await scan.search(query);
      assert.deepEqual(seen(cold), seen(expected), JSON.stringify(query));
      if (query.query === 'kyoto' && query.maxResults > 3) {
        const files = cold.results.map((x) => x.file);
        assert.ok(files.includes('just-written.md') && files.includes('plain.txt'), files.join(', '));
        for (const never of ['.hidden/secret.md', 'node_modules/pkg/readme.md', 'archive/old.md', 'data.bin', 'link.md', 'linked-folder/target.md']) assert.ok(!files.includes(never), never);
      }
      // Once listed, searches use the index (no walk) and answer the same.
      assert.ok(await index.fresh());
      assert.deepEqual(seen(await search.search(query)), seen(expected));
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1);
    }
  });

  it('with ripgrep, matches only the lines it found, as the disk scan answers, a note just written by another program included', async () => {
    const program = testRipgrep();
    const r = spawnSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(path.join(root, 'just-written-too.md'))}, 'kyoto written a moment ago\\n')`]);
    assert.equal(r.status, 0);
    const queries = [q('kyoto'), q('customer feedback', { caseSensitive: true }), q('\\b(TODO|FIXME)\\b.*deadline', { regex: true }), q('kyoto', { maxResults: 3 }), q('KYOTO office', { wholeWord: true })];
    for (const [query, textWorkers] of [...queries.map((x) => [x, 1] as const), [queries[0], 3] as const]) {
      const { index, search, logged } = open({ textWorkers, ripgrep: program });
      const cold = await answer(search, query);
      assert.equal(logged.filter((m) => RIPGREP_MESSAGE.test(m)).length, 1, `ripgrep answered: ${logged.join(' | ')}`);
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 0, 'no walk');
      const expected = await answer(scan, query);
      assert.deepEqual(cold, expected, JSON.stringify(query));
      if (query.query === 'kyoto' && query.maxResults > 3) {
        const files = cold.results.map((x) => x.file);
        assert.ok(files.includes('just-written-too.md') && files.includes('plain.txt'), files.join(', '));
        for (const never of ['.hidden/secret.md', 'node_modules/pkg/readme.md', 'archive/old.md', 'data.bin', 'link.md', 'linked-folder/target.md']) assert.ok(!files.includes(never), never);
      }
      assert.ok(await index.fresh());
      assert.deepEqual(await answer(search, query), expected);
    }
  });

  it('with ripgrep, walks when ripgrep cannot narrow the query down, fails or finds too much, and warns of a failure once', async () => {
    // Too short a text to look for: the worker walks.
    {
      const { search, logged } = open({ ripgrep: testRipgrep() });
      assert.deepEqual(await answer(search, q('ky')), await answer(scan, q('ky')));
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1, logged.join(' | '));
    }
    // A program that is not there: a warning, then the walk; the next failure is only a debug line.
    {
      // Replies never finish being written, so the texts are never read: every search tries ripgrep.
      const { search, logged, warnings } = open({ ripgrep: path.join(root, 'no-such-rg'), waitForOutput: () => new Promise<void>(() => undefined) });
      assert.deepEqual(await answer(search, q('kyoto')), await answer(scan, q('kyoto')));
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1, logged.join(' | '));
      // Later searches before the texts are read try it again: a debug line this time.
      assert.deepEqual(await answer(search, q('customer feedback')), await answer(scan, q('customer feedback')));
      const failed = /ripgrep \(.*no-such-rg\) could not be used, so every file is read: .*ENOENT/;
      assert.equal(logged.filter((m) => failed.test(m)).length, 2, logged.join(' | '));
      assert.equal(warnings.length, 1, warnings.join(' | '));
      assert.match(warnings[0], failed);
    }
    // More lines than it takes (at least 10 000, or four times the results asked for): the walk, which stops early.
    {
      const many = 'kyoto\n'.repeat(12_000); // under maxFileSize
      fs.writeFileSync(path.join(root, 'many.md'), many);
      try {
        const { search, logged } = open({ ripgrep: testRipgrep() });
        const query = q('kyoto', { maxResults: 5 });
        assert.deepEqual(await answer(search, query), await answer(scan, query));
        assert.ok(logged.some((m) => /ripgrep found more than 10000 lines/.test(m)), logged.join(' | '));
        assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1, logged.join(' | '));
      } finally {
        fs.rmSync(path.join(root, 'many.md'));
      }
    }
  });

  it('with ripgrep, answers searches made while the texts are still being read from the lines it found', async () => {
    // Replies never finish being written, so reading the texts never starts.
    const { index, search, logged } = open({ ripgrep: testRipgrep(), waitForOutput: () => new Promise<void>(() => undefined) });
    assert.ok(await index.fresh());
    for (const query of [q('kyoto'), q('customer feedback', { caseSensitive: true }), q('\\b(TODO|FIXME)\\b.*deadline', { regex: true })]) {
      const before = logged.length;
      assert.deepEqual(await answer(search, query), await answer(scan, query), JSON.stringify(query));
      assert.equal(index.stats().cachedFiles, 0, 'no text was read');
      assert.deepEqual(logged.slice(before), [UNCACHED_MESSAGE]);
    }
  });

  it('with ripgrep, holds the reading of texts back for the first search after the listing only', async () => {
    // A ripgrep that waits until its gate file exists (or its folder is gone: a failed test leaves no process behind).
    const gates = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-gate-'));
    const gate = path.join(gates, 'open');
    const program = path.join(gates, 'rg-gated');
    fs.writeFileSync(program, `#!/bin/sh\nwhile [ ! -e '${gate}' ] && [ -d '${gates}' ]; do sleep 0.01; done\nexec '${testRipgrep()}' "$@"\n`, { mode: 0o755 });
    try {
      const { index, search } = open({ ripgrep: program });
      const textFiles = (await listWorkspaceFiles(root, { excludePatterns: FILE_EXCLUDES, showHiddenFiles: false })).filter((f) => /\.(md|txt)$/.test(f));
      // A listing request, then a search: the listing completes while the search's ripgrep runs.
      assert.ok(await index.fresh());
      const first = search.search(q('kyoto'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(index.stats().cachedFiles, 0, 'no text read while the first search runs');
      fs.writeFileSync(gate, '');
      const found = await first;
      assert.deepEqual({ results: found.results, truncated: found.truncated }, await answer(scan, q('kyoto')));
      // A later search whose ripgrep runs on does not hold the reading back: every text is read meanwhile.
      fs.rmSync(gate);
      const later = search.search(q('customer feedback', { caseSensitive: true }));
      await index.caching();
      assert.equal(index.stats().cachedFiles, textFiles.length);
      fs.writeFileSync(gate, '');
      const { results, truncated } = await later;
      assert.deepEqual({ results, truncated }, await answer(scan, q('customer feedback', { caseSensitive: true })));
    } finally {
      fs.writeFileSync(gate, '');
      fs.rmSync(gates, { recursive: true, force: true });
    }
  });

  it('with ripgrep, answers from the lines it found while the texts do not all fit the budget, and from memory when they do', async () => {
    const queries = [q('kyoto'), q('customer feedback', { caseSensitive: true }), q('\\b(TODO|FIXME)\\b.*deadline', { regex: true })];
    for (const [maxBytes, uncached] of [[20_000, true], [1e8, false]] as const) {
      const { index, search, logged } = open({ ripgrep: testRipgrep(), maxBytes });
      await index.caching();
      assert.equal(index.stats().cachedFiles > 0, true);
      for (const query of queries) {
        const before = logged.length;
        assert.deepEqual(await answer(search, query), await answer(scan, query), `${maxBytes}: ${JSON.stringify(query)}`);
        assert.deepEqual(logged.slice(before), uncached ? [UNCACHED_MESSAGE] : [], `${maxBytes} bytes kept: ${JSON.stringify(query)}`);
      }
    }
  });

  it('walks for the first search only: the next ones wait for the listing, which another walk would hold up again', async () => {
    const { index, search, logged } = open();
    const queries = [q('kyoto'), q('customer feedback', { caseSensitive: true }), q('deadline', { wholeWord: true })];
    const answers = await Promise.all(queries.map((query) => search.search(query)));
    assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 1, logged.join(' | '));
    assert.ok(index.listed());
    for (let i = 0; i < queries.length; i++) assert.deepEqual(seen(answers[i]), seen(await scan.search(queries[i])), JSON.stringify(queries[i]));
  });

  it('does not hold up a listing a request asks for, while a background one waits for the walk', async () => {
    fs.writeFileSync(path.join(root, 'evil.md'), `${'a'.repeat(40)}!\n`);
    try {
      const runaway = q('(a+)+$', { regex: true, caseSensitive: true });
      // A request's listing: ready while the walk is still stuck in the runaway expression.
      {
        const { index, search } = open({ budgetMs: 1500 });
        let settled = false;
        const walking = search.search(runaway).finally(() => (settled = true));
        walking.catch(() => undefined);
        // The walk is under way and the crawl waits for it; a request now needs the listing.
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.ok(await index.fresh());
        assert.equal(settled, false, 'the listing was ready before the walk ended');
        assert.deepEqual([...index.listFiles()], await listWorkspaceFiles(root, { excludePatterns: FILE_EXCLUDES, showHiddenFiles: false }));
        await assert.rejects(walking, /ran for more than 1500 ms on "evil\.md"/);
      }
      // A background listing (the note-set snapshot at start) waits until the walk is over.
      {
        const { index, search } = open({ budgetMs: 1500 });
        let settled = false;
        const walking = search.search(runaway).finally(() => (settled = true));
        walking.catch(() => undefined);
        assert.ok(await index.fresh(true));
        assert.equal(settled, true, 'the crawl waited for the walk');
        await assert.rejects(walking, /ran for more than 1500 ms on "evil\.md"/);
        // The stopped worker was replaced: the index searches normally.
        assert.deepEqual(seen(await search.search(q('kyoto'))), seen(await scan.search(q('kyoto'))));
      }
    } finally {
      fs.rmSync(path.join(root, 'evil.md'));
    }
  });

  it('starts reading texts once the requests that waited for the listing are answered, and reads them all', async () => {
    const textFiles = (await listWorkspaceFiles(root, { excludePatterns: FILE_EXCLUDES, showHiddenFiles: false })).filter((f) => /\.(md|txt)$/.test(f));
    // A listing request waits for the listing: reading starts after its answer (and does start).
    {
      const { index } = open();
      assert.ok(await index.fresh());
      await index.caching();
      assert.equal(index.stats().cachedFiles, textFiles.length);
    }
    // A listing request and a search wait together: the search still finds everything, and every text is kept.
    {
      const { index, search, logged } = open();
      const listed = index.fresh();
      const found = await search.search(q('kyoto'));
      assert.ok(await listed);
      assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 0, 'a request already waited for the listing: no walk');
      assert.deepEqual(found, await scan.search(q('kyoto')));
      await index.caching();
      assert.equal(index.stats().cachedFiles, textFiles.length);
    }
  });

  it('waits for the replies already sent to be written out, before crawling on and before reading texts', async () => {
    let pending = true;
    let release = () => {};
    let gate = new Promise<void>((resolve) => (release = resolve));
    const waitForOutput = () => (pending ? gate : Promise.resolve());
    const { index } = open({ waitForOutput });
    let listed = false;
    const listing = index.listing().then(() => (listed = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(listed, false, 'the crawl waits while a reply is being written');
    pending = false;
    release();
    await listing;
    assert.ok(await index.fresh());
    // The listing was complete before this request: reading starts after the reply, once it is written out.
    const { index: second } = open({ waitForOutput });
    assert.ok(await second.fresh());
    pending = true; // the reply to that request is being written
    gate = new Promise<void>((resolve) => (release = resolve));
    let cached = false;
    const caching = second.caching().then(() => (cached = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(cached, false, 'no text is read while the reply is being written');
    assert.equal(second.stats().cachedFiles, 0);
    pending = false;
    release();
    await caching;
    assert.ok(second.stats().cachedFiles > 100, `${second.stats().cachedFiles} texts read once the reply was out`);
  });

  it('lets a request have the listing while replies are still being written, and does not report texts read before they are', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { index, logged } = open({ waitForOutput: () => gate });
    index.prepareTexts();
    void index.listing(); // the background crawl, stuck after its first folder while the output is busy
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(await index.fresh(), 'a request gets the listing without waiting for the output');
    // Reading waits for the reply to be written; a change another program makes meanwhile must not make the index
    // say that its texts are read.
    const victim = path.join(root, 'just-written.md');
    fs.appendFileSync(victim, 'one more line\n');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the watcher's change is applied
    let cached = false;
    const caching = index.caching().then(() => (cached = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(cached, false, `caching() waits for the reading: ${logged.join(' | ')}`);
    release();
    await caching;
    assert.ok(index.stats().cachedFiles > 100, `${index.stats().cachedFiles} texts read`);
  });

  it('leaves a closed index to the disk scan, as before: no walk, no new worker', async () => {
    const { index, search, logged, fallbacks } = open();
    index.dispose();
    assert.deepEqual(seen(await search.search(q('kyoto'))), seen(await scan.search(q('kyoto'))));
    assert.equal(fallbacks(), 1);
    assert.equal(logged.filter((m) => WALK_MESSAGE.test(m)).length, 0, logged.join(' | '));
  });

  it('does not count the listing as time spent in the regular expression: a slow listing does not stop a regex search', async () => {
    // 1 000 exclude globs tested on each of 3 000 names make the listing take about three times the 100 ms budget.
    // Each has a `?`, so that its expression runs for every name (plain globs are ruled out by a cheaper test).
    const slow = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-slow-listing-')));
    try {
      for (let i = 0; i < 3000; i++) fs.writeFileSync(path.join(slow, `n${i}.md`), i % 1000 === 0 ? 'hello there\n' : 'nothing\n');
      const excludePatterns = Array.from({ length: 1000 }, (_, i) => `**/never-${i}?/**`);
      const regex = q('hel+o', { regex: true, caseSensitive: true });
      const expected = ['n0.md', 'n1000.md', 'n2000.md'];
      const diskScan = new ScanSearch({ root: slow, files: { excludePatterns, searchExcludePatterns: [], showHiddenFiles: false, fileExtension: '.md' }, maxFileSize: 1e6, regexBudgetMs: 100 });
      const index = new WorkspaceIndex({ root: slow, excludePatterns, showHiddenFiles: false, fileExtension: '.md', maxFileSize: 1e6, maxFiles: 10_000, maxBytes: 1e8, regexBudgetMs: 100 });
      opened.push(index);
      try {
        const started = Date.now();
        const scanned = await diskScan.search(regex);
        assert.ok(Date.now() - started > 100, `the listing took longer than the budget (${Date.now() - started} ms)`);
        assert.deepEqual(scanned.results.map((x) => x.file), expected);
        const walked = await new IndexedSearch(index, { searchExcludePatterns: [], fallback: async () => diskScan }).search(regex);
        assert.deepEqual(walked.results.map((x) => x.file), expected);
      } finally {
        diskScan.dispose();
      }
    } finally {
      fs.rmSync(slow, { recursive: true, force: true });
    }
  });
});
