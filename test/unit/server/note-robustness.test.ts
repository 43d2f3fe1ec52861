// Note tools on awkward notes, through real stdio: abbreviations in prose, broken frontmatter, binaries, odd names.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, callError, callOk, startServer, textOf, type Harness } from './harness';

describe('note tools on awkward notes', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  function write(relative: string, content: string | Buffer): void {
    fs.mkdirSync(path.dirname(path.join(h.workspace, relative)), { recursive: true });
    fs.writeFileSync(path.join(h.workspace, relative), content);
  }

  it('summarize_note keeps whole sentences: abbreviations, version numbers and URLs do not cut them', async () => {
    const sentences = ['Use e.g. Node 20.1 here.', 'Visit https://example.com/a.b now.', 'Dr. Lee signed v1.2 of the plan.'];
    write('abbrev.md', `# Abbreviations\n\n${sentences.join(' ')}\n`);
    const whole = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'abbrev.md', maxLength: 500 });
    assert.equal(whole.summary, sentences.join(' '));
    const short = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'abbrev.md', maxLength: 40 });
    assert.ok(sentences.includes(short.summary), `"${short.summary}" is one whole sentence of the note`);
  });

  it('a note with broken YAML frontmatter is still read by every reader; only update_note_metadata refuses it', async () => {
    const text = '---\ntitle: [unclosed\ntags: x\n---\n# Broken\n\nStill a useful note. - [ ] a task\n\n- [ ] fix the frontmatter\n';
    write('broken.md', text);
    const meta = await callOk<{ frontmatter: unknown; frontmatterError?: string; title: string; headings: unknown[] }>(h.client, 'get_note_metadata', { path: 'broken.md' });
    assert.deepEqual(meta.frontmatter, {});
    assert.match(meta.frontmatterError ?? '', /./, 'says why the frontmatter is empty');
    assert.equal(meta.title, 'Broken');
    const tasks = await callOk<{ tasks: Array<{ text: string }> }>(h.client, 'extract_tasks', { path: 'broken.md' });
    assert.deepEqual(tasks.tasks.map((t) => t.text), ['fix the frontmatter']);
    const summary = await callOk<{ summary: string }>(h.client, 'summarize_note', { path: 'broken.md' });
    assert.match(summary.summary, /Still a useful note/);
    const resource = await h.client.readResource({ uri: 'notesapp://notes/broken.md' });
    assert.equal('text' in resource.contents[0] ? resource.contents[0].text : undefined, text);
    const prompt = await h.client.getPrompt({ name: 'extract-action-items', arguments: { path: 'broken.md' } });
    assert.match(JSON.stringify(prompt.messages), /fix the frontmatter/);
    assert.match(await callError(h.client, 'update_note_metadata', { path: 'broken.md', metadata: { status: 'done' } }), /frontmatter is not valid YAML/);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'broken.md'), 'utf8'), text, 'the note is left as it was');
  });
});

describe('read_file ranges and binary files', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('read_file ranges always advance: a range too short for one character returns that whole character', async () => {
    const text = 'é😀ab';
    fs.writeFileSync(path.join(h.workspace, 'accents.md'), text);
    let offset: number | null = 0;
    const parts: string[] = [];
    for (let calls = 0; offset !== null; calls++) {
      assert.ok(calls < 10, 'reading on from nextOffset ends');
      const r: { content: string; length: number; nextOffset: number | null } = await callOk(h.client, 'read_file', { path: 'accents.md', offset, length: 1 });
      assert.ok(r.length > 0, `the range at ${offset} returned bytes`);
      parts.push(r.content);
      offset = r.nextOffset;
    }
    assert.deepEqual(parts, ['é', '😀', 'a', 'b']);
    const inside = await callOk<{ content: string; offset: number }>(h.client, 'read_file', { path: 'accents.md', offset: 1, length: 1 });
    assert.deepEqual([inside.content, inside.offset], ['😀', 2], 'a range starting inside a character starts at the next one');
  });

  it('read_file ranges of a file that is not UTF-8 join up to every one of its bytes', async () => {
    // Windows-1252: curly quotes, degree and plus-minus signs and a dash are single bytes of 0x80-0xBF, which in
    // UTF-8 only continue a character; here none follows a byte that begins one.
    const cp1252 = Buffer.from([...Buffer.from('He said '), 0x93, ...Buffer.from('it'), 0x92, ...Buffer.from('s 25'), 0xb0, ...Buffer.from('C '), 0xb1, 0x32, 0x94, 0x20, 0x96, ...Buffer.from(' ok')]);
    fs.writeFileSync(path.join(h.workspace, 'cp1252.md'), cp1252);
    const ranges: Array<[number, number]> = [];
    let offset: number | null = 0;
    for (let calls = 0; offset !== null; calls++) {
      assert.ok(calls < cp1252.length, 'reading on from nextOffset ends');
      const r: { offset: number; length: number; nextOffset: number | null; invalidUtf8: boolean } = await callOk(h.client, 'read_file', { path: 'cp1252.md', offset, length: 4 });
      assert.equal(r.offset, offset, `the range asked for at ${offset} starts there`);
      ranges.push([r.offset, r.length]);
      offset = r.nextOffset;
    }
    assert.equal(ranges.reduce((n, [, length]) => n + length, 0), cp1252.length, `every byte is in a range: ${JSON.stringify(ranges)}`);
    // A file over 1 MB of it, read in its 1 MB ranges: the second starts where the first ended, on a quote.
    const big = Buffer.concat([Buffer.alloc(1_048_576, 'a'), cp1252]);
    fs.writeFileSync(path.join(h.workspace, 'cp1252.txt'), big);
    const first = await callOk<{ length: number; nextOffset: number }>(h.client, 'read_file', { path: 'cp1252.txt' });
    const rest = await callOk<{ offset: number; length: number; content: string; nextOffset: number | null }>(h.client, 'read_file', { path: 'cp1252.txt', offset: first.nextOffset + 8 });
    assert.deepEqual([first.length + 8 + rest.length, rest.offset, rest.nextOffset], [big.length, 1_048_584, null]);
    assert.equal(rest.content, cp1252.subarray(8).toString('utf8'));
    assert.ok(rest.content.startsWith('\uFFFDit\uFFFDs'), rest.content);
  });

  it('read_file refuses a length over 1 MB with a clear argument error', async () => {
    const result = await call(h.client, 'read_file', { path: 'ideas.md', length: 9e15 });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /length/);
  });

  it('read_file decides binary by the first 8 KB of the file, whatever range is asked for', async () => {
    // A NUL byte past the first 8 KB: text, readable to its end in 1 MB ranges.
    const log = Buffer.alloc(1_500_000, 'a');
    log[1_048_676] = 0;
    fs.writeFileSync(path.join(h.workspace, 'log.txt'), log);
    const first = await callOk<{ length: number; nextOffset: number }>(h.client, 'read_file', { path: 'log.txt' });
    assert.equal(first.length, 1_048_576);
    const rest = await callOk<{ content: string; nextOffset: number | null }>(h.client, 'read_file', { path: 'log.txt', offset: first.nextOffset });
    assert.equal(rest.content, log.subarray(first.nextOffset).toString('utf8'));
    assert.equal(rest.nextOffset, null);
    // A NUL byte in the first 8 KB: binary, refused for every range, those after it and shorter ones included.
    const bin = Buffer.alloc(20_000, 'a');
    bin[100] = 0;
    fs.writeFileSync(path.join(h.workspace, 'bin.md'), bin);
    for (const range of [{}, { offset: 9000, length: 10 }, { offset: 0, length: 10 }, { offset: 200 }, { offset: 20_000 }]) {
      assert.match(await callError(h.client, 'read_file', { path: 'bin.md', ...range }), /"bin\.md" is a binary file/, JSON.stringify(range));
    }
  });

  it('note tools refuse binary files instead of analysing their bytes', async () => {
    fs.writeFileSync(path.join(h.workspace, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    for (const tool of ['summarize_note', 'extract_tasks', 'get_note_metadata']) {
      assert.match(await callError(h.client, tool, { path: 'pic.png' }), /binary file/, tool);
    }
  });
});

describe('huge notes', () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ config: { security: { maxFileSize: 20 * 1024 * 1024 } } });
  });
  after(async () => h?.close());

  it('get_note_metadata, summarize_note and extract_tasks on an 8 MB note answer promptly, within the payload limit, and say they analysed only part', async () => {
    const block = 'Some prose with a [[Link]], a #tag and [a link](other.md). Another sentence follows here.\n- [ ] a task item\n\n## Heading\n\n';
    fs.writeFileSync(path.join(h.workspace, 'huge.md'), block.repeat(Math.ceil((8.5 * 1024 * 1024) / block.length)));
    const started = Date.now();
    const meta = await callOk<{ truncated: boolean; headings: unknown[]; links: unknown[] }>(h.client, 'get_note_metadata', { path: 'huge.md' });
    assert.equal(meta.truncated, true);
    assert.ok(meta.headings.length <= 5000 && meta.links.length <= 5000, `${meta.headings.length} headings, ${meta.links.length} links`);
    const summary = await callOk<{ truncated: boolean; summary: string }>(h.client, 'summarize_note', { path: 'huge.md' });
    assert.equal(summary.truncated, true);
    assert.ok(summary.summary.length > 0);
    const tasks = await callOk<{ truncated: boolean; tasks: unknown[] }>(h.client, 'extract_tasks', { path: 'huge.md' });
    assert.equal(tasks.truncated, true);
    assert.equal(tasks.tasks.length, 5000);
    // Before the bound, the metadata alone took over 15 s here.
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
  });

  it('get_note_metadata reads a note of 200 000 inline #tags in one paragraph: each tag once', async () => {
    // The tags of one run of text were pushed as the arguments of one call, over the stack's limit.
    fs.writeFileSync(path.join(h.workspace, 'tags.md'), '#a #b '.repeat(100_000));
    const meta = await callOk<{ tags: string[]; truncated: boolean }>(h.client, 'get_note_metadata', { path: 'tags.md' });
    assert.deepEqual([meta.tags, meta.truncated], [['a', 'b'], false]);
  });

  it('extract_tasks caps a note of 100 000 tasks at 5000 with truncated set, and the text block is compact JSON', async () => {
    fs.writeFileSync(path.join(h.workspace, 'many.md'), '- [ ] t\n'.repeat(100_000));
    const result = await call(h.client, 'extract_tasks', { path: 'many.md' });
    assert.equal(result.isError ?? false, false, textOf(result).slice(0, 200));
    const structured = result.structuredContent as { tasks: unknown[]; truncated: boolean };
    assert.deepEqual([structured.tasks.length, structured.truncated], [5000, true]);
    assert.equal(textOf(result), JSON.stringify(structured));
  });
});

describe('create_note names', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('long multibyte titles become names within the file system limit, cut between whole characters', async () => {
    for (const title of ['日本語'.repeat(60), '😀'.repeat(70), `${'a'.repeat(119)}😀`, `${'e\u0301'.repeat(150)}`, '👩‍👩‍👧‍👦'.repeat(40)]) {
      const r = await callOk<{ path: string }>(h.client, 'create_note', { title, content: 'x' });
      const name = path.posix.basename(r.path);
      assert.ok(Buffer.byteLength(name) <= 255, `${Buffer.byteLength(name)} bytes`);
      assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(name), `no lone surrogate in ${JSON.stringify(name)}`);
      assert.ok(title.normalize('NFC').startsWith(name.slice(0, -'.md'.length)), 'a prefix of the title');
      assert.equal(fs.readFileSync(path.join(h.workspace, r.path), 'utf8'), 'x');
      // The same title again still finds a free name, with its " 2".
      const again = await callOk<{ path: string }>(h.client, 'create_note', { title, content: 'y' });
      assert.match(again.path, / 2\.md$/);
    }
  });

  it('titles Windows would read as device names get a name that is safe there too', async () => {
    for (const title of ['con.draft', 'COM1.notes', 'COM¹', 'aux', 'LPT9 .txt']) {
      const r = await callOk<{ path: string }>(h.client, 'create_note', { title, content: 'x' });
      const name = path.posix.basename(r.path, '.md');
      assert.ok(!/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$) *(\..*)?$/i.test(name), `${name} is not a device name`);
      assert.ok(fs.existsSync(path.join(h.workspace, r.path)));
    }
  });
});

describe('note titles', () => {
  it('create_note fills {title} with the title on one line, quoted where the template makes it a YAML value; a numeric frontmatter title is the title', async () => {
    const h = await startServer({ config: { files: { defaultNewFileTemplate: '---\ntitle: {title}\n---\n# {title}\n' } } });
    try {
      // A NUL in the note would make it a binary file, which get_note_metadata and read_file refuse.
      for (const title of ['Re: budget', '#1 priority', 'a\nb', 'c\u0000d']) {
        const created = await callOk<{ path: string; title: string }>(h.client, 'create_note', { title });
        const meta = await callOk<{ title: string; frontmatter: Record<string, unknown>; frontmatterError?: string }>(h.client, 'get_note_metadata', { path: created.path });
        // eslint-disable-next-line no-control-regex -- the NUL is what is replaced
        const oneLine = title.replace(/[\n\u0000]/g, ' ');
        assert.equal(meta.frontmatterError, undefined, title);
        assert.equal(meta.frontmatter.title, oneLine, title);
        assert.equal(meta.title, oneLine, title);
        assert.equal(created.title, oneLine);
      }
      fs.writeFileSync(path.join(h.workspace, '1984.md'), '---\ntitle: 1984\n---\n# Heading\n');
      assert.equal((await callOk<{ title: string }>(h.client, 'get_note_metadata', { path: '1984.md' })).title, '1984');
      // As written, not as JavaScript prints the number YAML reads (1.1, 2, 16, 7, 1000); the frontmatter keeps the value.
      for (const written of ['1.10', '2.0', '0x10', '007', '1e3', 'true', '-0']) {
        fs.writeFileSync(path.join(h.workspace, 'numeric.md'), `---\ntitle: ${written} # as in the catalogue\n---\n# Heading\n`);
        const meta = await callOk<{ title: string; frontmatter: { title: unknown } }>(h.client, 'get_note_metadata', { path: 'numeric.md' });
        assert.equal(meta.title, written);
        assert.equal(typeof meta.frontmatter.title, written === 'true' ? 'boolean' : 'number');
      }
    } finally {
      await h.close();
    }
  });
});

describe('wikilinks to names with dots', () => {
  it('resolve to the note of that whole name, with any note extension', async () => {
    const h = await startServer();
    try {
      for (const f of ['v1.md', 'v1.2 notes.md', 'docs/setup.mdown', 'media/diagram.png']) {
        fs.mkdirSync(path.dirname(path.join(h.workspace, f)), { recursive: true });
        fs.writeFileSync(path.join(h.workspace, f), 'x');
      }
      fs.writeFileSync(path.join(h.workspace, 'links.md'), '[[v1.2 notes]] [[v1]] [[setup]] [[diagram.png]] [[v1.md]] [[v1.2]]\n');
      const meta = await callOk<{ links: Array<{ target: string; path: string | null }> }>(h.client, 'get_note_metadata', { path: 'links.md' });
      assert.deepEqual(
        meta.links.map((l) => [l.target, l.path]),
        [
          ['v1.2 notes', 'v1.2 notes.md'],
          ['v1', 'v1.md'],
          ['setup', 'docs/setup.mdown'],
          ['diagram.png', 'media/diagram.png'],
          ['v1.md', 'v1.md'],
          ['v1.2', null],
        ],
      );
    } finally {
      await h.close();
    }
  });
});

describe('update_note_metadata on notes it must not damage', () => {
  it('updates sent together each keep their keys: every one is merged into what the one before wrote', async () => {
    const h = await startServer();
    try {
      const file = path.join(h.workspace, 'busy.md');
      fs.writeFileSync(file, '---\ntitle: A\n---\nBody\n');
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      const answers = await Promise.all(keys.map((k, i) => callOk(h.client, 'update_note_metadata', { path: 'busy.md', metadata: { [k]: i } })));
      assert.equal(answers.length, 20);
      const expected = Object.fromEntries([['title', 'A'], ...keys.map((k, i) => [k, i])]);
      const meta = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'get_note_metadata', { path: 'busy.md' });
      assert.deepEqual(meta.frontmatter, expected);
      assert.ok(fs.readFileSync(file, 'utf8').endsWith('---\nBody\n'));
    } finally {
      await h.close();
    }
  });

  it('refuses a `---` block that is not keys (a paragraph between rules, a list, a typo) and leaves the note as it was', async () => {
    const h = await startServer();
    try {
      const notes = {
        'typo.md': '---\ntitle - My note\n---\nBody text\n',
        'rules.md': '---\n\nIntro paragraph that matters\n\n---\n\nBody\n',
        'list.md': '---\n- one\n- two\n---\nBody\n',
      };
      for (const [name, text] of Object.entries(notes)) {
        fs.writeFileSync(path.join(h.workspace, name), text);
        assert.match(
          await callError(h.client, 'update_note_metadata', { path: name, metadata: { status: 'done' } }),
          /begins with a `---` block that is not a list of `key: value` entries \(it reads as a (string|list)\).*Nothing was changed/,
        );
        assert.equal(fs.readFileSync(path.join(h.workspace, name), 'utf8'), text);
      }
      // An empty block is frontmatter with no keys yet.
      fs.writeFileSync(path.join(h.workspace, 'empty.md'), '---\n---\nBody\n');
      await callOk(h.client, 'update_note_metadata', { path: 'empty.md', metadata: { status: 'done' } });
      assert.equal(fs.readFileSync(path.join(h.workspace, 'empty.md'), 'utf8'), '---\nstatus: done\n---\nBody\n');
    } finally {
      await h.close();
    }
  });

  it('refuses a note that is not valid UTF-8 rather than replace its other bytes, and leaves it as it was', async () => {
    const h = await startServer();
    try {
      const bytes = Buffer.concat([Buffer.from('---\ntitle: A\n---\nCaf'), Buffer.from([0xe9]), Buffer.from(' au lait\n')]);
      fs.writeFileSync(path.join(h.workspace, 'latin1.md'), bytes);
      assert.match(await callError(h.client, 'update_note_metadata', { path: 'latin1.md', metadata: { status: 'done' } }), /"latin1\.md" is not valid UTF-8 text.*Nothing was changed/);
      assert.ok(fs.readFileSync(path.join(h.workspace, 'latin1.md')).equals(bytes));
    } finally {
      await h.close();
    }
  });

  it('keys named like built-in properties (constructor, toString, valueOf) are keys like any other', async () => {
    const h = await startServer();
    try {
      fs.writeFileSync(path.join(h.workspace, 'proto.md'), '---\nconstructor: Foo\ntoString: bar\n---\nBody\n');
      const r = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'update_note_metadata', { path: 'proto.md', metadata: { status: 'done', valueOf: 3 } });
      assert.deepEqual(r.frontmatter, { constructor: 'Foo', toString: 'bar', status: 'done', valueOf: 3 });
      assert.equal(fs.readFileSync(path.join(h.workspace, 'proto.md'), 'utf8'), '---\nconstructor: Foo\ntoString: bar\nstatus: done\nvalueOf: 3\n---\nBody\n');
      await callOk(h.client, 'update_note_metadata', { path: 'proto.md', metadata: { constructor: null } });
      const meta = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'get_note_metadata', { path: 'proto.md' });
      assert.deepEqual(meta.frontmatter, { toString: 'bar', status: 'done', valueOf: 3 });
    } finally {
      await h.close();
    }
  });

  it('a string ending in blank lines reads back the same, first, last or alone in the frontmatter', async () => {
    const h = await startServer();
    try {
      const value = 'line one\nline two\n\n';
      for (const [name, text] of [['new.md', '---\ntitle: A\n---\nBody\n'], ['none.md', 'Body\n'], ['first.md', '---\nnotes: x\ntitle: A\n---\nBody\n']]) {
        fs.writeFileSync(path.join(h.workspace, name), text);
        await callOk(h.client, 'update_note_metadata', { path: name, metadata: { notes: value } });
        const meta = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'get_note_metadata', { path: name });
        assert.equal(meta.frontmatter.notes, value, name);
        assert.ok(fs.readFileSync(path.join(h.workspace, name), 'utf8').endsWith('---\nBody\n'), name);
      }
    } finally {
      await h.close();
    }
  });
});

describe('update_note_metadata keeps what it does not touch', () => {
  it('keeps a note ending at its closing `---` without a line break, and refuses a "__proto__" key instead of dropping it', async () => {
    const h = await startServer();
    try {
      const file = path.join(h.workspace, 'bare.md');
      fs.writeFileSync(file, '---\ntitle: x\n---');
      await callOk(h.client, 'update_note_metadata', { path: 'bare.md', metadata: { status: 'done' } });
      assert.equal(fs.readFileSync(file, 'utf8'), '---\ntitle: x\nstatus: done\n---');
      // JSON.parse keeps "__proto__" as a key; the tool's arguments are JSON.
      const args = JSON.parse('{"path": "bare.md", "metadata": {"__proto__": {"a": 1}, "other": 2}}') as Record<string, unknown>;
      const result = await h.client.callTool({ name: 'update_note_metadata', arguments: args });
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /frontmatter key \\"__proto__\\" cannot be set or removed/);
      assert.equal(fs.readFileSync(file, 'utf8'), '---\ntitle: x\nstatus: done\n---', 'nothing written');
    } finally {
      await h.close();
    }
  });

  it('a time and a number with a leading zero read as YAML 1.2 reads them, in small notes and large ones, and are written back unchanged', async () => {
    const h = await startServer();
    try {
      const head = '---\n{meeting: 10:30, zip: 01234, mode: 0o17}\n---\n';
      fs.writeFileSync(path.join(h.workspace, 'flow.md'), `${head}Body\n`);
      // Over 128 KiB: analysed in the note worker, a bundle of its own.
      fs.writeFileSync(path.join(h.workspace, 'large.md'), `${head}${'A line of prose.\n'.repeat(9000)}`);
      for (const name of ['flow.md', 'large.md']) {
        const meta = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'get_note_metadata', { path: name });
        assert.deepEqual(meta.frontmatter, { meeting: '10:30', zip: 1234, mode: 15 }, name);
      }
      await callOk(h.client, 'update_note_metadata', { path: 'flow.md', metadata: { status: 'done' } });
      assert.equal(fs.readFileSync(path.join(h.workspace, 'flow.md'), 'utf8'), "---\nmeeting: '10:30'\nzip: 1234\nmode: 15\nstatus: done\n---\nBody\n");
    } finally {
      await h.close();
    }
  });

  it('untouched entries stay as written (dates, emoji, quotes, comments), the BOM stays, line ends follow the frontmatter', async () => {
    const h = await startServer();
    try {
      const file = path.join(h.workspace, 'kept.md');
      const front = '\uFEFF---\r\ndue: 2024-01-05\r\nmood: "😀 happy"\r\n# reviewed weekly\r\nowner: \'Dana\'\r\nold: x\r\n---\r\n';
      const body = 'Body with LF lines\nand more\n';
      fs.writeFileSync(file, front + body);
      const r = await callOk<{ frontmatter: Record<string, unknown> }>(h.client, 'update_note_metadata', {
        path: 'kept.md',
        metadata: { status: 'done', old: null, emoji: '🎉 party' },
      });
      assert.deepEqual(r.frontmatter, { due: '2024-01-05', mood: '😀 happy', owner: 'Dana', status: 'done', emoji: '🎉 party' });
      assert.equal(
        fs.readFileSync(file, 'utf8'),
        '\uFEFF---\r\ndue: 2024-01-05\r\nmood: "😀 happy"\r\n# reviewed weekly\r\nowner: \'Dana\'\r\nstatus: done\r\nemoji: 🎉 party\r\n---\r\n' + body,
      );
    } finally {
      await h.close();
    }
  });
});

describe('small protocol edges', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(async () => h?.close());

  it('resources/subscribe refuses a URI that is not one of our resources', async () => {
    for (const uri of ['bogus://x', 'notesapp://nothing/here']) {
      await assert.rejects(h.client.subscribeResource({ uri }), (err: Error & { code?: number }) => {
        assert.equal(err.code, -32002);
        assert.match(err.message, /Resource not found/);
        return true;
      });
    }
    await h.client.subscribeResource({ uri: 'notesapp://theme/current' });
    await h.client.subscribeResource({ uri: 'notesapp://config/editor' });
  });

  it('error messages carry the MCP error prefix once', async () => {
    await assert.rejects(h.client.readResource({ uri: 'notesapp://config/editor.noSuchKey' }), (err: Error & { code?: number }) => {
      assert.match(err.message, /^MCP error -32002: Resource not found: notesapp:\/\/config\/editor\.noSuchKey\. Unknown configuration key "editor\.noSuchKey";/);
      assert.equal(err.message.match(/MCP error/g)?.length, 1, err.message);
      return true;
    });
    await assert.rejects(h.client.getPrompt({ name: 'summarize-note', arguments: { path: 'missing.md' } }), (err: Error) => {
      assert.equal(err.message.match(/MCP error/g)?.length, 1, err.message);
      return true;
    });
  });

  it('create_note in a "folder" that is a file answers a clear error without an absolute path or stack', async () => {
    fs.writeFileSync(path.join(h.workspace, 'plain.md'), 'a file');
    const message = await callError(h.client, 'create_note', { title: 'Inside', folder: 'plain.md', content: 'x' });
    assert.match(message, /"plain\.md\/Inside\.md": a part of its folder path is a file, not a folder/);
    assert.ok(!message.includes(h.workspace) && !/\n\s+at /.test(message), message);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'plain.md'), 'utf8'), 'a file');
  });
});
