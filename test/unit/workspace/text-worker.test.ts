// The text worker threads: which texts they keep (sync, budget shares), cancellation, and recovery
// after a worker is stopped.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NotesError } from '../../../src/core/errors';
import { matchBytes } from '../../../src/core/workspace/encoded-matches';
import { compileQuery, searchWith, type SearchOutcome, type SearchQuery } from '../../../src/core/workspace/search';
import { recheck } from '../../../src/core/workspace/prelist';
import { TextWorker } from '../../../src/core/workspace/text-worker';

function query(text: string, extra: Partial<SearchQuery> = {}): SearchQuery {
  return { query: text, regex: false, caseSensitive: true, wholeWord: false, maxResults: 10_000, ...extra };
}

describe('text worker threads', function () {
  this.timeout(60_000);
  let root: string;
  const files: string[] = [];
  const workers: TextWorker[] = [];
  const make = (options: Partial<ConstructorParameters<typeof TextWorker>[0]> = {}) => {
    const w = new TextWorker({ root, maxFileSize: 100_000, maxFiles: 1_000_000, maxBytes: 1e9, ...options });
    workers.push(w);
    return w;
  };

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-texts-')));
    for (let i = 0; i < 60; i++) {
      const rel = `f${String(i).padStart(3, '0')}/note ${i}.md`;
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), `# Note ${i}\nshared line\n${i % 3 === 0 ? 'fizz\n' : ''}${'x'.repeat(100)}\n`);
      files.push(rel);
    }
    files.sort();
  });

  after(() => {
    for (const w of workers) w.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("checks an early listing's folders as prelist's recheck does, and answers nothing once stopped or with no worker", async () => {
    const folders = ['', 'f001', 'f002', 'gone'];
    const stat = (rel: string) => fs.statSync(rel ? path.join(root, rel) : root);
    const head = { root, folders, stats: folders.flatMap((rel) => (rel === 'gone' ? [NaN, NaN, NaN] : [stat(rel).mtimeMs, stat(rel).ctimeMs, stat(rel).ino])) };
    const w = make({ shards: 1 });
    assert.equal(await w.recheck(head), undefined, 'no worker is started for it');
    w.start();
    assert.deepEqual(await w.recheck(head), recheck(fs, head).stats);
    const pending = w.recheck(head);
    w.close();
    assert.equal(await pending, undefined);
  });

  it('keeps the texts of the files the last sync names, within the budget', async () => {
    const w = make({ shards: 3 });
    w.sync(files.slice(0, 40), []);
    w.sync(files.slice(0, 20), []);
    // Pure ASCII text counts one byte a character, so the fixture notes cost their size.
    const bytes = files.slice(0, 20).reduce((sum, f) => sum + fs.statSync(path.join(root, f)).size, 0);
    assert.deepEqual(await w.cached(), { cachedFiles: 20, cachedBytes: bytes });
    // maxFiles is shared out exactly: 10 across 3 workers is 4 + 3 + 3.
    const small = make({ shards: 3, maxFiles: 10 });
    small.sync(files, []);
    assert.equal((await small.cached()).cachedFiles, 10);
  });

  it('counts an ASCII note with a byte order mark as ASCII: one byte a character, the mark not kept', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-bom-')));
    try {
      fs.writeFileSync(path.join(dir, 'bom.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('plain ascii\n')]));
      const w = new TextWorker({ root: dir, maxFileSize: 100_000, maxFiles: 100, maxBytes: 1e6, shards: 1 });
      workers.push(w);
      w.sync(['bom.md'], []);
      assert.deepEqual(await w.cached(), { cachedFiles: 1, cachedBytes: 'plain ascii\n'.length });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not keep the text of a file with other hard links, so a change made through another name is found', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-links-')));
    try {
      fs.writeFileSync(path.join(dir, 'plain.md'), 'plain before\n');
      fs.writeFileSync(path.join(dir, 'linked.md'), 'linked before\n');
      // The other name is outside the workspace: no watcher of the workspace hears a change made through it.
      const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-link-target-')));
      fs.linkSync(path.join(dir, 'linked.md'), path.join(outside, 'other-name.md'));
      const w = new TextWorker({ root: dir, maxFileSize: 100_000, maxFiles: 100, maxBytes: 1e6, shards: 1 });
      workers.push(w);
      w.sync(['linked.md', 'plain.md'], []);
      assert.deepEqual(await w.cached(), { cachedFiles: 1, cachedBytes: 'plain before\n'.length });
      fs.writeFileSync(path.join(outside, 'other-name.md'), 'linked after\n');
      const found = await searchWith(w, ['linked.md', 'plain.md'], query('after'), 1000);
      assert.deepEqual(found.results.map((r) => [r.file, r.content]), [['linked.md', 'linked after']]);
      fs.rmSync(outside, { recursive: true, force: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops a search once its matches hold more than maxChars characters, with every match before that point', async () => {
    const chars = (r: { file: string; content: string; match: string }) => r.file.length + r.content.length + r.match.length;
    // The fixture's notes, one match each; and notes that alternate many long matches with one short one, so that
    // one worker passes maxChars long before another has searched as far in the list.
    const uneven = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-uneven-')));
    const names: string[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const rel = `n${String(i).padStart(2, '0')}.md`;
        fs.writeFileSync(path.join(uneven, rel), i % 2 ? 'shared once\n' : Array.from({ length: 50 }, (_, k) => `shared ${k} ${'y'.repeat(100)}`).join('\n'));
        names.push(rel);
      }
      for (const [dir, list, maxChars] of [[root, files, 300], [uneven, names, 3000]] as const) {
        for (const shards of [1, 2, 3, 4]) {
          const w = new TextWorker({ root: dir, maxFileSize: 100_000, maxFiles: 1_000_000, maxBytes: 1e9, shards });
          workers.push(w);
          w.sync(list, []);
          const full = await searchWith(w, list, query('shared'), 1000);
          assert.equal(full.truncated, false);
          const capped = await searchWith(w, list, query('shared', { maxChars }), 1000);
          const label = `${path.basename(dir)}, ${shards} workers`;
          assert.equal(capped.truncated, true, label);
          assert.ok(capped.results.length < full.results.length, `${label}: ${capped.results.length} results`);
          // Every match of the list up to the last one returned: a prefix of the full answer, with none skipped.
          assert.deepEqual(capped.results, full.results.slice(0, capped.results.length), label);
          assert.ok(capped.results.reduce((n, r) => n + chars(r), 0) > maxChars, `${label}: stopped before maxChars`);
        }
      }
      // A search whose last matching file takes it over maxChars found everything: not truncated.
      const one = make({ shards: 1 });
      one.sync(files, []);
      const all = await searchWith(one, files, query('fizz'), 1000);
      const total = all.results.reduce((n, r) => n + chars(r), 0);
      const last = all.results.at(-1) as { file: string; content: string; match: string };
      const tight = await searchWith(one, files.slice(0, files.indexOf(last.file) + 1), query('fizz', { maxChars: total - 1 }), 1000);
      assert.equal(tight.truncated, false);
      assert.equal(tight.results.length, all.results.length);
    } finally {
      fs.rmSync(uneven, { recursive: true, force: true });
    }
  });

  it('answers a sharded search in list order with every match, and cuts at the limit', async () => {
    const one = make({ shards: 1 });
    const three = make({ shards: 3 });
    for (const w of [one, three]) w.sync(files, []);
    const all = await searchWith(three, files, query('fizz'), 1000);
    // The same results, truncated and files searched, and the same bytes to write: merged from three workers'
    // parts as one worker made them.
    const written = (o: SearchOutcome) => {
      const bytes = matchBytes(o.answer.matches, o.answer.count);
      return { results: o.results, truncated: o.truncated, filesSearched: o.filesSearched, text: Buffer.from(o.answer.matches.text.subarray(0, bytes)).toString() };
    };
    assert.deepEqual(written(all), written(await searchWith(one, files, query('fizz'), 1000)));
    assert.equal(all.results.length, 20);
    assert.deepEqual(
      all.results.map((r) => r.file),
      files.filter((f) => Number(/note (\d+)/.exec(f)?.[1]) % 3 === 0),
    );
    const cut = await searchWith(three, files, query('fizz', { maxResults: 7 }), 1000);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.results, all.results.slice(0, 7));
    assert.deepEqual(written(cut).text, JSON.stringify(JSON.stringify(cut.results).slice(1, -1)).slice(1, -1));
  });

  it('sees a changed text after a sync that names it, and forgets files no longer listed', async () => {
    const w = make({ shards: 2 });
    w.sync(files, []);
    await w.cached();
    const target = path.join(root, files[5]);
    const before = fs.readFileSync(target, 'utf8');
    try {
      fs.writeFileSync(target, 'brand new words\n');
      // Without the sync the kept (old) text answers: the index always syncs changed files before searching.
      assert.equal((await searchWith(w, files, query('brand new'), 1000)).results.length, 0);
      w.sync(undefined, [files[5]]);
      assert.deepEqual((await searchWith(w, files, query('brand new'), 1000)).results.map((r) => r.file), [files[5]]);
      w.sync(files.slice(10), []);
      assert.equal((await w.cached()).cachedFiles, files.length - 10);
    } finally {
      fs.writeFileSync(target, before);
    }
  });

  it('does not wait on a listed note replaced by a named pipe: the search answers, and so does the next', async function () {
    // Windows has no named pipes among files.
    if (process.platform === 'win32') this.skip();
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-fifo-')));
    try {
      fs.writeFileSync(path.join(dir, 'a.md'), 'kyoto\n');
      execFileSync('mkfifo', [path.join(dir, 'b.md')]);
      fs.writeFileSync(path.join(dir, 'c.md'), 'in kyoto\n');
      const w = make({ root: dir, shards: 1 });
      const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still waiting after 5 s')), 5000))]);
      // Opening the pipe for reading waited for a writer: the worker, and every search after, hung for good.
      for (let round = 0; round < 2; round++) {
        const out = await within(searchWith(w, ['a.md', 'b.md', 'c.md'], query('kyoto'), 1000));
        assert.deepEqual(out.results.map((r) => r.file), ['a.md', 'c.md']);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops a search when its request is cancelled, and serves the next one', async () => {
    const slow: string[] = [];
    for (let i = 0; i < 150; i++) {
      const rel = `slow/s${String(i).padStart(3, '0')}.md`;
      fs.mkdirSync(path.join(root, 'slow'), { recursive: true });
      fs.writeFileSync(path.join(root, rel), `${'a'.repeat(19)}!\n`);
      slow.push(rel);
    }
    const w = make({ shards: 2 });
    w.sync(slow, []);
    await w.cached();
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(searchWith(w, slow, query('(a+)+$', { regex: true, signal: controller.signal }), 5000), (err: unknown) => {
      assert.ok(err instanceof NotesError);
      assert.match(err.message, /cancelled/);
      return true;
    });
    assert.ok(Date.now() - started < 3000, `cancelled after ${Date.now() - started} ms`);
    const next = await searchWith(w, slow, query('aaa!'), 1000);
    assert.equal(next.results.length, 150);
    // Already cancelled before it starts: refused without running.
    await assert.rejects(searchWith(w, slow, query('a', { signal: AbortSignal.abort() }), 1000), /cancelled/);
  });

  it('stops a cancelled search stuck on one line long before its budget, and serves the next one', async () => {
    // The worker looks at the cancellation between lines: on this line the expression would run for ages.
    fs.writeFileSync(path.join(root, 'stuck.md'), `${'a'.repeat(40)}!\n`);
    const w = make({ shards: 1 });
    w.sync(['stuck.md'], []);
    await w.cached();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // A budget of ten minutes: only the cancellation can end this search within the test's time.
    await assert.rejects(searchWith(w, ['stuck.md'], query('(a+)+$', { regex: true, signal: controller.signal }), 600_000), /cancelled/);
    const next = await searchWith(w, ['stuck.md'], query('aaa!'), 1000);
    assert.deepEqual(next.results.map((r) => r.file), ['stuck.md']);
  });

  it('replaces a worker stopped for a runaway expression: the error names the file, the texts come back', async () => {
    const evil = 'evil/runaway.md';
    fs.mkdirSync(path.join(root, 'evil'), { recursive: true });
    fs.writeFileSync(path.join(root, evil), `${'a'.repeat(40)}!\n`);
    const list = [...files, evil].sort();
    const w = make({ shards: 2 });
    w.sync(list, []);
    assert.equal((await w.cached()).cachedFiles, list.length);
    await assert.rejects(searchWith(w, list, query('(a+)+$', { regex: true }), 500), /ran for more than 500 ms on "evil\/runaway\.md"/);
    assert.equal((await searchWith(w, list, query('shared line'), 500)).results.length, files.length);
    assert.equal((await w.cached()).cachedFiles, list.length);
    compileQuery(query('x')); // the module stays usable
  });

  it('stops keeping texts after a worker failed three times, and still answers every search from disk', async () => {
    const logged: string[] = [];
    const w = make({ shards: 1, log: (_level, message) => logged.push(message) });
    w.sync(files, []);
    assert.equal((await w.cached()).cachedFiles, files.length);
    // The worker dying under us (as from running out of memory), three times.
    const shard = (w as unknown as { shards: Array<{ worker?: { terminate(): Promise<number> } }> }).shards[0];
    for (let i = 0; i < 3; i++) {
      const exited = shard.worker?.terminate();
      assert.ok(exited, `a worker is running before failure ${i + 1}`);
      await exited;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(logged.filter((m) => /exited/.test(m)).length, 3, logged.join('\n'));
    assert.ok(logged.some((m) => /failed 3 times: note texts are no longer kept in memory/.test(m)), logged.join('\n'));
    w.sync(files, []);
    assert.deepEqual(await w.cached(), { cachedFiles: 0, cachedBytes: 0 });
    const found = await searchWith(w, files, query('fizz'), 1000);
    assert.equal(found.results.length, 20);
    assert.equal(w.cacheStats().cachedFiles, 0);
    // A worker stopped now is not replaced until the next search, which must still get its list of files.
    const evil = 'evil/again.md';
    fs.mkdirSync(path.join(root, 'evil'), { recursive: true });
    fs.writeFileSync(path.join(root, evil), `${'a'.repeat(40)}!\n`);
    const list = [...files, evil].sort();
    assert.equal((await searchWith(w, list, query('fizz'), 1000)).results.length, 20);
    await assert.rejects(searchWith(w, list, query('(a+)+$', { regex: true }), 300), /ran for more than 300 ms/);
    const after = await searchWith(w, list, query('fizz'), 1000);
    assert.equal(after.results.length, 20);
    assert.equal(after.filesSearched, list.length);
  });
});
