// search_files through a real MCP client: literal, case, regex, whole word, caps, exclusions, bad and slow patterns.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RawServer } from '../hardening/raw-server';
import { testRipgrep } from '../workspace/ripgrep-helper';
import { answerOf, callError, callOk, startServer, type Harness } from './harness';

interface Item {
  file: string;
  line: number;
  content: string;
  match: string;
}
interface Outcome {
  results: Item[];
  count: number;
  truncated: boolean;
}

describe('MCP search_files', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('finds a literal, case-insensitively by default, one result per line with file, line, content and match', async () => {
    const r = await callOk<Outcome>(h.client, 'search_files', { query: 'SEARCH' });
    assert.deepEqual(
      r.results.map((i) => `${i.file}:${i.line}`),
      // "research" contains "search" too: this is a substring search unless search.wholeWord is on.
      [
        'archive/old-draft.md:3',
        'ideas.md:4',
        'index.md:10',
        'journal/2024-03-02.md:3',
        'meetings/2024-03-01 Standup.md:5',
        'meetings/2024-03-01 Standup.md:9',
        'projects/Project Plan.md:9',
        'projects/Project Plan.md:11',
      ],
    );
    assert.deepEqual(r.results[1], {
      file: 'ideas.md',
      line: 4,
      content: 'Search over plain files is fast enough for thousands of notes. An index only matters for very large workspaces.',
      match: 'Search',
    });
    assert.equal(r.count, 8);
    assert.equal(r.truncated, false);
  });

  it('honours case_sensitive', async () => {
    const r = await callOk<Outcome>(h.client, 'search_files', { query: 'Search', case_sensitive: true });
    assert.deepEqual(r.results.map((i) => i.file), ['ideas.md']);
  });

  it('treats the query as a regular expression when regex is true, and as text otherwise', async () => {
    const r = await callOk<Outcome>(h.client, 'search_files', { query: '\\[[x/]\\] \\w+', regex: true });
    assert.deepEqual(r.results.map((i) => [i.file, i.line, i.match]), [
      ['meetings/2024-03-01 Standup.md', 6, '[x] Dana'],
      ['projects/Project Plan.md', 13, '[x] Compare'],
      ['projects/Project Plan.md', 15, '[/] Draft'],
    ]);
    const literal = await callOk<Outcome>(h.client, 'search_files', { query: '[x]' });
    assert.deepEqual(literal.results.map((i) => i.match), ['[x]', '[x]']);
  });

  it('finds a line whose first match is empty by its next match: zero-length matches do not count', async () => {
    fs.writeFileSync(path.join(h.workspace, 'counts.md'), 'Total: 42\n42 apples\nnone\n');
    const r = await callOk<Outcome>(h.client, 'search_files', { query: '\\d*', regex: true });
    assert.deepEqual(
      r.results.filter((i) => i.file === 'counts.md').map((i) => [i.line, i.match]),
      [
        [1, '42'],
        [2, '42'],
      ],
    );
    fs.rmSync(path.join(h.workspace, 'counts.md'));
  });

  it('answers an invalid regular expression with a clear error', async () => {
    assert.match(await callError(h.client, 'search_files', { query: '(unclosed', regex: true }), /Invalid regular expression "\(unclosed"/);
  });

  it('searches for long plain text and refuses a query over 10 000 characters without quoting it back', async () => {
    const long = 'The quarterly figures, once adjusted, tell another story. '.repeat(200).slice(0, 10_000);
    fs.writeFileSync(path.join(h.workspace, 'pasted.md'), `${long}\n`);
    for (const case_sensitive of [true, false]) {
      const found = await callOk<Outcome>(h.client, 'search_files', { query: long, case_sensitive });
      assert.deepEqual(found.results.map((i) => i.file), ['pasted.md'], `case_sensitive: ${case_sensitive}`);
    }
    const tooLong = `${long}x`;
    for (const args of [{ case_sensitive: true }, { case_sensitive: false }, { regex: true }]) {
      const message = await callError(h.client, 'search_files', { query: tooLong, ...args });
      assert.match(message, /The search query is 10001 characters long, over the limit of 10000 characters/, JSON.stringify(args));
      assert.ok(message.length < 300, `a short message: ${message.length} characters`);
    }
    // An invalid regular expression is quoted, at most its first 200 characters.
    const invalid = await callError(h.client, 'search_files', { query: `(${'a'.repeat(5000)}`, regex: true });
    assert.match(invalid, /Invalid regular expression "\(a{199}…"/);
    assert.ok(invalid.length < 400, `a short message: ${invalid.length} characters`);
    fs.rmSync(path.join(h.workspace, 'pasted.md'));
  });

  it('stops a catastrophically backtracking regular expression instead of hanging, and keeps serving', async () => {
    fs.writeFileSync(path.join(h.workspace, 'evil.md'), `${'a'.repeat(40)}!\n`);
    const started = Date.now();
    const message = await callError(h.client, 'search_files', { query: '^(a+)+$', regex: true });
    assert.match(message, /ran for more than \d+ ms on "evil.md" and was stopped/);
    assert.ok(Date.now() - started < 10000);
    const after = await callOk<Outcome>(h.client, 'search_files', { query: 'Standup' });
    assert.ok(after.count > 0);
  });

  it('leaves out files matching search.excludePatterns and hidden files', async () => {
    const h2 = await startServer({ config: { search: { excludePatterns: ['**/archive/**'] } } });
    try {
      const r = await callOk<Outcome>(h2.client, 'search_files', { query: 'search' });
      assert.ok(!r.results.some((i) => i.file.startsWith('archive/')));
      const hidden = await callOk<Outcome>(h2.client, 'search_files', { query: 'hidden folder' });
      assert.equal(hidden.count, 0);
    } finally {
      await h2.close();
    }
  });
});

describe('MCP search_files without the index (files.watchForChanges: false)', () => {
  it('reads the disk on every search: the same answers as the index, and edits by other programs at once', async () => {
    const indexed = await startServer();
    const scanned = await startServer({ config: { files: { watchForChanges: false } } });
    try {
      for (const query of ['search', 'Standup', 'no such words here']) {
        assert.deepEqual(
          await callOk<Outcome>(scanned.client, 'search_files', { query }),
          await callOk<Outcome>(indexed.client, 'search_files', { query }),
          query,
        );
      }
      const regex = { query: '^#+ .*plan', regex: true };
      assert.deepEqual(await callOk<Outcome>(scanned.client, 'search_files', regex), await callOk<Outcome>(indexed.client, 'search_files', regex));
      fs.writeFileSync(path.join(scanned.workspace, 'fresh.md'), 'a zebra crossing\n');
      assert.deepEqual((await callOk<Outcome>(scanned.client, 'search_files', { query: 'zebra' })).results, [
        { file: 'fresh.md', line: 1, content: 'a zebra crossing', match: 'zebra' },
      ]);
      fs.writeFileSync(path.join(scanned.workspace, 'fresh.md'), 'now a giraffe\n');
      assert.equal((await callOk<Outcome>(scanned.client, 'search_files', { query: 'zebra' })).count, 0);
      assert.equal((await callOk<Outcome>(scanned.client, 'search_files', { query: 'giraffe' })).count, 1);
      // A runaway expression stops the scan's worker; the next scan gets a new one.
      fs.writeFileSync(path.join(scanned.workspace, 'evil.md'), `${'a'.repeat(40)}!\n`);
      assert.match(await callError(scanned.client, 'search_files', { query: '^(a+)+$', regex: true }), /ran for more than \d+ ms on "evil.md"/);
      assert.equal((await callOk<Outcome>(scanned.client, 'search_files', { query: 'giraffe' })).count, 1);
    } finally {
      await indexed.close();
      await scanned.close();
    }
  });
});

describe('MCP search_files and ripgrep', () => {
  it('uses ripgrep from NOTESAPP_RIPGREP or PATH, and answers the same without it or with one that fails', async () => {
    const queries = [{ query: 'search' }, { query: 'Standup', case_sensitive: true }, { query: '^#+ .*plan', regex: true }, { query: 'no such words here' }];
    // The disk scan (no index): every search goes through ripgrep when it can.
    const config = { files: { watchForChanges: false } };
    const servers = {
      path: await startServer({ config }),
      off: await startServer({ config, env: { NOTESAPP_RIPGREP: 'off' } }),
      broken: await startServer({ config, env: { NOTESAPP_RIPGREP: path.join(os.tmpdir(), 'no-such-ripgrep') } }),
    };
    try {
      for (const q of queries) {
        const expected = await callOk<Outcome>(servers.off.client, 'search_files', q);
        assert.deepEqual(await callOk<Outcome>(servers.path.client, 'search_files', q), expected, JSON.stringify(q));
        assert.deepEqual(await callOk<Outcome>(servers.broken.client, 'search_files', q), expected, JSON.stringify(q));
      }
      assert.ok((await callOk<Outcome>(servers.off.client, 'search_files', { query: 'search' })).count > 0);
      assert.match(servers.path.stderr(), /search: ripgrep \S+ narrows down the files searches read/);
      assert.doesNotMatch(servers.path.stderr(), /could not be used/);
      assert.match(servers.off.stderr(), /search: no ripgrep found/);
      assert.equal(servers.broken.stderr().match(/search: ripgrep \(.*no-such-ripgrep\) could not be used, so every file is read/g)?.length, 1, 'warned once');
    } finally {
      for (const h of Object.values(servers)) await h.close();
    }
  });
});

describe('MCP search_files and a byte order mark', () => {
  it('does not count a UTF-8 byte order mark as text of the first line, with ripgrep, without it and with the index', async () => {
    const expected = [
      { file: 'bom.md', line: 1, content: 'Agenda for Monday', match: 'Agenda' },
      { file: 'bom.md', line: 2, content: 'Agenda items follow', match: 'Agenda' },
    ];
    for (const ripgrep of ['rg', 'off']) {
      for (const config of [{ files: { watchForChanges: false } }, {}]) {
        const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-bom-'));
        fs.writeFileSync(path.join(workspace, 'bom.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Agenda for Monday\r\nAgenda items follow\r\n')]));
        const h = await startServer({ workspace, config, env: { NOTESAPP_RIPGREP: ripgrep === 'rg' ? testRipgrep() : 'off' } });
        try {
          const run = `${ripgrep} ${JSON.stringify(config)}`;
          for (const round of [1, 2]) {
            assert.deepEqual((await callOk<Outcome>(h.client, 'search_files', { query: '^Agenda', regex: true, case_sensitive: true })).results, expected, `${run} ${round}`);
            assert.deepEqual((await callOk<Outcome>(h.client, 'search_files', { query: 'agenda for' })).results, [{ ...expected[0], match: 'Agenda for' }], `${run} ${round}`);
          }
        } finally {
          await h.close();
        }
      }
    }
  });
});

describe('MCP search_files and line ends', () => {
  it('ends a line at a carriage return alone, as VS Code and extract_tasks do, with ripgrep, without it and with the index', async () => {
    // A classic Mac note (CR only), and one mixing CR, LF and CRLF: ripgrep numbers lines by line feeds alone.
    const files: Record<string, string> = {
      'mac.md': '# Trip\r- [ ] book the train\r- [ ] pack the bag\r\rtrain times below\r',
      'mixed.md': 'train one\ntwo\rthree\r\nfour train\nfive\r\rsix train\r\nseven\rtrain eight',
    };
    const expected = [
      { file: 'mac.md', line: 2, content: '- [ ] book the train', match: 'train' },
      { file: 'mac.md', line: 5, content: 'train times below', match: 'train' },
      { file: 'mixed.md', line: 1, content: 'train one', match: 'train' },
      { file: 'mixed.md', line: 4, content: 'four train', match: 'train' },
      { file: 'mixed.md', line: 7, content: 'six train', match: 'train' },
      { file: 'mixed.md', line: 9, content: 'train eight', match: 'train' },
    ];
    for (const ripgrep of ['rg', 'off']) {
      for (const config of [{ files: { watchForChanges: false } }, {}]) {
        const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-cr-'));
        for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
        const h = await startServer({ workspace, config, env: { NOTESAPP_RIPGREP: ripgrep === 'rg' ? testRipgrep() : 'off' } });
        try {
          const run = `${ripgrep} ${JSON.stringify(config)}`;
          for (const round of [1, 2]) {
            assert.deepEqual((await callOk<Outcome>(h.client, 'search_files', { query: 'train', case_sensitive: true })).results, expected, `${run} ${round}`);
            const anchored = await callOk<Outcome>(h.client, 'search_files', { query: '^- \\[ \\] (.*)$', regex: true });
            assert.deepEqual(anchored.results.map((i) => [i.file, i.line, i.content]), [
              ['mac.md', 2, '- [ ] book the train'],
              ['mac.md', 3, '- [ ] pack the bag'],
            ], `${run} ${round}`);
          }
          // The same lines as the note tools give.
          const tasks = await callOk<{ tasks: Array<{ text: string; line: number }> }>(h.client, 'extract_tasks', { path: 'mac.md' });
          assert.deepEqual(tasks.tasks.map((t) => [t.line, t.text]), [
            [2, 'book the train'],
            [3, 'pack the bag'],
          ]);
        } finally {
          await h.close();
        }
      }
    }
  });
});

describe('MCP search_files and a file name that is not UTF-8', () => {
  it('answers the same with ripgrep as without: the file, which no path can name, is skipped', async function () {
    // Only Linux file systems take such names.
    if (process.platform !== 'linux') this.skip();
    const answers: Record<string, unknown> = {};
    for (const ripgrep of ['rg', 'off']) {
      for (const config of [{}, { files: { watchForChanges: false } }]) {
        const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-latin1-'));
        fs.writeFileSync(path.join(workspace, 'a.md'), 'zebraword\n');
        // "bé.md" and "bè.md" in Latin-1: both read as "b\uFFFD.md".
        for (const byte of [0xe9, 0xe8]) fs.writeFileSync(Buffer.concat([Buffer.from(`${workspace}/b`), Buffer.from([byte]), Buffer.from('.md')]), 'zebraword here too\n');
        const h = await startServer({ workspace, config, env: { NOTESAPP_RIPGREP: ripgrep === 'rg' ? testRipgrep() : 'off' } });
        try {
          for (const round of [1, 2]) {
            const found = await callOk<Outcome>(h.client, 'search_files', { query: 'zebraword' });
            answers[`${ripgrep} ${JSON.stringify(config)} ${round}`] = found.results.map((r) => `${r.file}:${r.line}`);
          }
        } finally {
          await h.close();
          fs.rmSync(workspace, { recursive: true, force: true });
        }
      }
    }
    for (const [run, found] of Object.entries(answers)) assert.deepEqual(found, ['a.md:1'], run);
  });
});

describe('MCP search_files with configured defaults', () => {
  it('caps results at search.maxResults with truncated, and applies wholeWord, useRegex and caseSensitive defaults', async () => {
    const h = await startServer({ config: { search: { maxResults: 2, wholeWord: true, useRegex: true, caseSensitive: true } } });
    try {
      fs.writeFileSync(path.join(h.workspace, 'words.md'), 'plan\nplanning\nPlan\nplan plan\nplans\nplan\n');
      const capped = await callOk<Outcome>(h.client, 'search_files', { query: 'pla[n]' });
      assert.equal(capped.count, 2);
      assert.equal(capped.truncated, true);
      const r = await callOk<Outcome>(h.client, 'search_files', { query: 'plan', case_sensitive: true });
      assert.deepEqual(r.results.map((i) => `${i.file}:${i.line}`), ['words.md:1', 'words.md:4']);
      const all = await callOk<Outcome>(h.client, 'search_files', { query: 'no such words here' });
      assert.deepEqual(all, { results: [], count: 0, truncated: false });
    } finally {
      await h.close();
    }
  });

  it('search.wholeWord counts combining marks as part of a word (an accent written after its letter)', async () => {
    const h = await startServer({ config: { search: { wholeWord: true } } });
    try {
      // "café" and "résumé" as macOS and some editors write them: e + U+0301.
      fs.writeFileSync(path.join(h.workspace, 'accents.md'), 'un cafe\u0301 noir\nle cafe ici\nre\u0301sume\u0301 du jour\nre: sume\n');
      for (const regex of [false, true]) {
        for (const query of ['cafe', 're', 'sume']) {
          const found = await callOk<Outcome>(h.client, 'search_files', { query, regex });
          assert.deepEqual(found.results.filter((i) => i.file === 'accents.md').map((i) => i.line), { cafe: [2], re: [4], sume: [4] }[query], `${query} ${regex}`);
        }
      }
      // A regular expression valid only without Unicode mode takes the same guard.
      const legacy = await callOk<Outcome>(h.client, 'search_files', { query: 'caf\\e', regex: true });
      assert.deepEqual(legacy.results.filter((i) => i.file === 'accents.md').map((i) => i.line), [2]);
    } finally {
      await h.close();
    }
  });

  it('answers a search whose matches exceed what one answer holds with the first results, marked truncated', async function () {
    this.timeout(120_000);
    const h = await startServer({ config: { search: { maxResults: 100_000 } } });
    try {
      // 80 000 matching lines of about 300 characters, with quotes and a tab to escape: some 50 MB of answer.
      const line = (f: number, i: number) => `needle ${f}-${i} "quoted"\tand\\slashed ${'é'.repeat(20)} ${'x'.repeat(240)}`;
      for (let f = 0; f < 8; f++) {
        const lines = Array.from({ length: 10_000 }, (_, i) => line(f, i));
        fs.writeFileSync(path.join(h.workspace, `big-${f}.md`), `${lines.join('\n')}\n`);
      }
      const raw = await h.client.callTool({ name: 'search_files', arguments: { query: 'needle', case_sensitive: true } });
      assert.notEqual(raw.isError, true, JSON.stringify(raw.content).slice(0, 300));
      // The search stops once its matches hold more than half the 10 MB limit in characters (paths, lines and
      // matches): the answer holds those, under the limit.
      const replyBytes = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 99, result: raw }));
      assert.ok(replyBytes <= 10 * 1024 * 1024, `${replyBytes} bytes`);
      const r = answerOf<Outcome>(raw);
      const held = r.results.reduce((n, x) => n + x.file.length + x.content.length + x.match.length, 0);
      assert.ok(held > 5_000_000, `${held} characters: the search stopped early`);
      assert.equal(r.truncated, true);
      assert.equal(r.count, r.results.length);
      assert.ok(r.count > 10_000 && r.count < 80_000, String(r.count));
      // The first results, in path and line order, with nothing skipped.
      r.results.forEach((item, k) => {
        const f = Math.floor(k / 10_000);
        const i = k % 10_000;
        assert.deepEqual(item, { file: `big-${f}.md`, line: i + 1, content: line(f, i), match: 'needle' });
      });
    } finally {
      await h.close();
    }
  });

  it('keeps the SDK client connected through cut answers sent back to back (room for its read buffer)', async function () {
    // The SDK's stdio client closes the connection when a line and what arrives with its end pass 10 MiB.
    this.timeout(120_000);
    const h = await startServer({ config: { search: { maxResults: 100_000 } } });
    try {
      // Quotes and backslashes take two bytes each in the text block, so the answer is cut by its bytes (to within
      // one result of the limit), not by the characters the search gathers.
      const lines = Array.from({ length: 30_000 }, (_, i) => `needle ${i} ${'"\\'.repeat(100)}`);
      fs.writeFileSync(path.join(h.workspace, 'big.md'), `${lines.join('\n')}\n`);
      const ask = () => h.client.callTool({ name: 'search_files', arguments: { query: 'needle', case_sensitive: true } });
      // The answers are written one after another, so the read that ends one brings the next one's start.
      const answers = await Promise.all([ask(), ask(), ask()]);
      for (const raw of answers) {
        assert.notEqual(raw.isError, true, JSON.stringify(raw.content).slice(0, 300));
        const r = answerOf<Outcome>(raw);
        assert.equal(r.truncated, true);
        const replyBytes = Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 99, result: raw }));
        assert.ok(replyBytes <= 10 * 1024 * 1024 - 64 * 1024, `${replyBytes} bytes`);
        assert.ok(replyBytes > 10 * 1024 * 1024 - 64 * 1024 - 2048, `${replyBytes} bytes: cut further than one result below the limit`);
      }
      assert.deepEqual((await callOk<Outcome>(h.client, 'search_files', { query: 'needle 29999 ' })).count, 1);
    } finally {
      await h.close();
    }
  });

  it('leaves room in a cut answer for the request id the client chose, however long', async function () {
    this.timeout(120_000);
    const server = new RawServer({ config: { search: { maxResults: 100_000 } } });
    try {
      // 9.9 MB, under security.maxFileSize; its matches make an 11 MB answer.
      const lines = Array.from({ length: 30_000 }, (_, i) => `needle ${i} ${'y'.repeat(320)}`);
      fs.writeFileSync(path.join(server.workspace, 'big.md'), `${lines.join('\n')}\n`);
      await server.initialize();
      const id = `request-${'i'.repeat(300_000)}`;
      const reply = await server.request(id, 'tools/call', { name: 'search_files', arguments: { query: 'needle', case_sensitive: true } });
      assert.equal(reply.error, undefined, JSON.stringify(reply.error));
      const result = answerOf<Outcome>(reply.result as Record<string, unknown>);
      assert.equal(result.truncated, true, JSON.stringify({ count: result.count, bytes: JSON.stringify(reply).length }));
      assert.ok(result.count > 1000);
      assert.ok(Buffer.byteLength(JSON.stringify(reply)) <= 10 * 1024 * 1024);
    } finally {
      server.child.kill();
      await server.exited;
    }
  });

  it('answers, whatever the lines hold, JSON of the fields its description names, once, in the text block', async () => {
    const h = await startServer();
    try {
      // Lines with everything JSON escapes or encodes in several bytes, text that looks like the boundary between two
      // results, and a line long enough to be clipped (with an ellipsis); in two files.
      const tricky = [
        'needle "quoted" and back\\slash',
        'needle\ttab, ctrl \u0001 and a \u2028 line separator',
        'needle café 日本語 😀',
        'needle ,{"file":"x.md","line":1} looks like a result',
        `${'long '.repeat(200)}needle${' tail'.repeat(200)}`,
        'needle at the end ,{',
      ];
      fs.mkdirSync(path.join(h.workspace, 'tricky'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'tricky', 'a "b".md'), `${tricky.join('\n')}\n`);
      fs.writeFileSync(path.join(h.workspace, 'tricky', 'c.md'), `plain\n${tricky[3]}\n`);
      const { tools } = await h.client.listTools();
      const tool = tools.find((t) => t.name === 'search_files');
      assert.equal(tool?.outputSchema, undefined, 'no output schema: it would oblige the server to send the answer twice');
      assert.match(tool?.description ?? '', /\{"results": \[\{"file", "line", "content", "match"\}\], "count", "truncated"\}/);
      let answer: Outcome | undefined;
      // The listing may not hold the new files yet at first: asked again until it does.
      for (let i = 0; i < 50 && answer?.results.filter((r) => r.file.startsWith('tricky/')).length !== 7; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        answer = await callOk<Outcome>(h.client, 'search_files', { query: 'needle', case_sensitive: true });
      }
      assert.deepEqual(Object.keys(answer ?? {}), ['results', 'count', 'truncated']);
      for (const item of answer?.results ?? []) {
        assert.deepEqual(Object.keys(item), ['file', 'line', 'content', 'match']);
        assert.ok(typeof item.file === 'string' && Number.isInteger(item.line) && typeof item.content === 'string' && typeof item.match === 'string', JSON.stringify(item));
      }
      assert.equal(answer?.count, answer?.results.length);
      const mine = (answer as Outcome).results.filter((r) => r.file.startsWith('tricky/'));
      assert.deepEqual(
        mine.map((r) => [r.file, r.line, r.match]),
        [...tricky.map((_, i) => ['tricky/a "b".md', i + 1, 'needle']), ['tricky/c.md', 2, 'needle']],
      );
      assert.deepEqual(mine.slice(0, 4).map((r) => r.content), tricky.slice(0, 4));
      assert.match(mine[4].content, /^….*needle.*…$/);
      assert.equal(mine[5].content, tricky[5]);
    } finally {
      await h.close();
    }
  });

  it('clips a match of a whole long line as it clips the line, so it cannot fill an answer', async () => {
    const h = await startServer();
    try {
      fs.writeFileSync(path.join(h.workspace, 'long.md'), `start ${'z'.repeat(3_000_000)} end\nstart short end\n`);
      const r = await callOk<Outcome>(h.client, 'search_files', { query: 'start.*end', regex: true, case_sensitive: true });
      assert.deepEqual(
        r.results.map((i) => [i.file, i.line, i.match.length, i.content.length]),
        [
          ['long.md', 1, 401, 401],
          ['long.md', 2, 15, 15],
        ],
      );
      assert.equal(r.results[0].match, `start ${'z'.repeat(394)}…`);
    } finally {
      await h.close();
    }
  });
});
