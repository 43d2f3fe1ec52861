// Frontmatter: parsing with gray-matter, merging, and the body kept byte for byte.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import matter from 'gray-matter';
import { splitNote, updateFrontmatter } from '../../../src/core/notes/frontmatter';

describe('notes/frontmatter', () => {
  it('splits frontmatter from the body and counts its lines', () => {
    const note = splitNote('---\ntitle: A\ntags: [x, y]\n---\n# A\nbody\n');
    assert.deepEqual(note, { data: { title: 'A', tags: ['x', 'y'] }, body: '# A\nbody\n', bodyLineOffset: 4 });
  });

  it('treats a note without frontmatter as all body, and a horizontal rule later on as body', () => {
    assert.deepEqual(splitNote('# Title\n\n---\n\ntext'), { data: {}, body: '# Title\n\n---\n\ntext', bodyLineOffset: 0 });
  });

  it('reports YAML dates as the text written, never as another date', () => {
    assert.deepEqual(splitNote('---\ndate: 2024-03-01\nat: 2024-03-01T10:30:00Z\nspaced: 2024-03-01 10:30\n---\n').data, {
      date: '2024-03-01',
      at: '2024-03-01T10:30:00Z',
      spaced: '2024-03-01 10:30',
    });
    // Dates that do not exist are not rolled over into ones that do.
    assert.deepEqual(splitNote('---\ndue: 2024-02-30\nlater: 2024-13-45\n---\n').data, { due: '2024-02-30', later: '2024-13-45' });
  });

  it('reads numbers by YAML 1.2 rules: a time is text, a leading zero is decimal, 0o is octal', () => {
    const note = '---\ntime: 10:30\nend: 14:45:10\nzip: 01234\nid: 0777\nmode: 0o17\nhex: 0x1F\nsep: 1_000\nok: yes\n---\n';
    assert.deepEqual(splitNote(note).data, { time: '10:30', end: '14:45:10', zip: 1234, id: 777, mode: 15, hex: 31, sep: '1_000', ok: 'yes' });
  });

  it('writes a frontmatter anew without changing values a YAML 1.1 reader would take for numbers', () => {
    const { text, data } = updateFrontmatter('---\n{meeting: 10:30, code: "0777", mode: "0o17"}\n---\nbody\n', { status: 'done' });
    assert.deepEqual(data, { meeting: '10:30', code: '0777', mode: '0o17', status: 'done' });
    assert.equal(text, "---\nmeeting: '10:30'\ncode: '0777'\nmode: '0o17'\nstatus: done\n---\nbody\n");
    assert.deepEqual(splitNote(text).data, data);
  });

  it('reads the frontmatter of a note whose lines end in CR alone, and refuses to edit it rather than add a second block', () => {
    const note = '---\rtitle: Old Mac note\rstatus: draft\r---\r# Heading\rText.\r';
    const read = splitNote(note);
    assert.deepEqual(read.data, { title: 'Old Mac note', status: 'draft' });
    assert.equal(read.body, '# Heading\rText.\r', 'the body as it is, from where the block ends');
    assert.equal(read.bodyLineOffset, 4);
    assert.throws(() => updateFrontmatter(note, { status: 'done' }), /lines end in CR alone .* Nothing was changed\./);
    // A CR-only note without frontmatter is all body, and an update can give it one.
    assert.deepEqual(splitNote('# Only a heading\rText\r').data, {});
  });

  it('quotes every string a YAML 1.1 reader (gray-matter as others use it) would take for a number', () => {
    const values = { invoice: '1_000', delta: '+12_000', code: '0x_1F', amount: '685_230.15', bits: '0b1010', clock: '1:20:30', neg: '-.5', inf: '.inf' };
    const { text } = updateFrontmatter('---\ntitle: x\n---\n', values);
    assert.deepEqual(splitNote(text).data, { title: 'x', ...values });
    // gray-matter's own js-yaml 3, YAML 1.1 rules: still the strings written.
    assert.deepEqual(matter(text).data, { title: 'x', ...values }, text);
    // Strings that are no number in either stay plain.
    assert.equal(updateFrontmatter('---\n---\n', { a: '1_000 items', b: 'v1.2.3', c: '_1' }).text, '---\na: 1_000 items\nb: v1.2.3\nc: _1\n---\n');
  });

  it('reads a `---` block that is not YAML and not meant as keys as body; one meant as keys is broken frontmatter', () => {
    const tasks = '---\n- [ ] task one\n* [x] task two\n---\n\nbody\n';
    assert.deepEqual(splitNote(tasks), { data: {}, body: tasks, bodyLineOffset: 0 });
    assert.throws(() => updateFrontmatter(tasks, { a: 1 }), /not a list of `key: value` entries \(it reads as markdown, not YAML\).*Nothing was changed/);
    for (const broken of ['---\ntitle: [unclosed\n---\nb\n', '---\n# comment\n"my key": [x\n---\nb\n', '---\n{a: 1\n---\nb\n']) {
      const split = splitNote(broken);
      assert.equal(split.body, 'b\n', broken);
      assert.match(split.frontmatterError ?? '', /./, broken);
      assert.throws(() => updateFrontmatter(broken, { a: 1 }), /not valid YAML/, broken);
    }
  });

  it('writes a frontmatter anew without changing its dates', () => {
    // A flow mapping cannot be edited key by key: it is written anew, from the values it reads as.
    const { text, data } = updateFrontmatter('---\n{due: 2024-02-30, start: 2024-01-15, at: 2024-01-15T08:00:00+02:00}\n---\nbody\n', { b: 2 });
    assert.equal(text, '---\ndue: 2024-02-30\nstart: 2024-01-15\nat: 2024-01-15T08:00:00+02:00\nb: 2\n---\nbody\n');
    assert.deepEqual(data, { due: '2024-02-30', start: '2024-01-15', at: '2024-01-15T08:00:00+02:00', b: 2 });
    // A date-like string given by the caller is written plain, and reads back as that string.
    const added = updateFrontmatter('body\n', { due: '2025-06-01', n: '42', yes: 'true' });
    assert.equal(added.text, "---\ndue: 2025-06-01\n'n': '42'\n'yes': 'true'\n---\nbody\n");
    assert.deepEqual(splitNote(added.text).data, { due: '2025-06-01', n: '42', yes: 'true' });
  });

  it('leaves a byte-order mark out of the body of a note without frontmatter', () => {
    const split = splitNote('\uFEFF# Title\n- [ ] first\n');
    assert.equal(split.body, '# Title\n- [ ] first\n');
    assert.equal(split.bodyLineOffset, 0);
  });

  it('reads a note opening with a `---` rule and a paragraph as body, not as frontmatter', () => {
    for (const text of ['---\nJust an intro line.\n---\n\n# Heading\n', '---\n\n- task after rule\n- another\n\n---\nrest\n', '\uFEFF---\n- a\n- b\n---\n']) {
      const split = splitNote(text);
      assert.deepEqual(split, { data: {}, body: text.replace(/^\uFEFF/, ''), bodyLineOffset: 0 }, JSON.stringify(text));
    }
    // A block that is not valid YAML and does not open with a key is markdown too: a task list between rules.
    const tasks = '---\n\n- [ ] task\n\n---\nrest\n';
    assert.deepEqual(splitNote(tasks), { data: {}, body: tasks, bodyLineOffset: 0 });
    // One that opens with a key is a broken frontmatter.
    const broken = splitNote('---\n\ntitle: [x\n\n---\nrest\n');
    assert.equal(broken.body, 'rest\n');
    assert.match(broken.frontmatterError ?? '', /not valid YAML/);
    // An empty block is an empty frontmatter.
    assert.deepEqual(splitNote('---\n---\nbody'), { data: {}, body: 'body', bodyLineOffset: 2 });
  });

  it('keeps untouched dates as YAML dates when other keys are updated', () => {
    const { text, data } = updateFrontmatter('---\ndue: 2024-03-01\n---\nbody', { status: 'open' });
    assert.deepEqual(data, { due: '2024-03-01', status: 'open' });
    assert.equal(text, '---\ndue: 2024-03-01\nstatus: open\n---\nbody', 'the date as written, not a timestamp or a quoted string');
    assert.deepEqual(splitNote(text).data, { due: '2024-03-01', status: 'open' });
  });

  it('reads a note with invalid YAML as empty frontmatter plus the reason, and refuses to update it', () => {
    const split = splitNote('---\nkey: [unclosed\n---\nbody');
    assert.deepEqual({ data: split.data, body: split.body, bodyLineOffset: split.bodyLineOffset }, { data: {}, body: 'body', bodyLineOffset: 3 });
    assert.match(split.frontmatterError ?? '', /unclosed|flow collection|end of the stream/);
    assert.throws(() => updateFrontmatter('---\nkey: [unclosed\n---\nbody', { a: 1 }), /frontmatter is not valid YAML/);
  });

  it('merges keys, removes null keys, drops an emptied block, and keeps CRLF line ends', () => {
    assert.equal(updateFrontmatter('---\na: 1\nb: 2\n---\nbody', { b: null, c: 'x' }).text, '---\na: 1\nc: x\n---\nbody');
    assert.equal(updateFrontmatter('---\na: 1\n---\nbody\n', { a: null }).text, 'body\n');
    assert.equal(updateFrontmatter('---\r\na: 1\r\n---\r\nbody\r\n', { b: true }).text, '---\r\na: 1\r\nb: true\r\n---\r\nbody\r\n');
  });

  it('keeps comments: the lines after a replaced or removed key, a replaced key’s own comment, a block of only comments', () => {
    const note = '---\n# About\ntitle: Old # shown in the tree\n# Planning\n\nstatus: draft\ntags:\n  - a # first\n  - b\n---\nBody\n';
    assert.equal(
      updateFrontmatter(note, { title: 'New "one"', tags: ['x'] }).text,
      '---\n# About\ntitle: New "one" # shown in the tree\n# Planning\n\nstatus: draft\ntags:\n  - x\n---\nBody\n',
    );
    assert.equal(updateFrontmatter(note, { title: null }).text, '---\n# About\n# Planning\n\nstatus: draft\ntags:\n  - a # first\n  - b\n---\nBody\n');
    // A # inside quotes is no comment; a value now on several lines leaves the one-line comment behind.
    assert.equal(updateFrontmatter('---\na: "x # y" # why\nb: 1\n---\n', { a: 'z' }).text, '---\na: z # why\nb: 1\n---\n');
    assert.equal(updateFrontmatter('---\na: "x # y"\n---\n', { a: 'z' }).text, '---\na: z\n---\n');
    assert.equal(updateFrontmatter('---\na: 1 # why\n---\n', { a: ['p', 'q'] }).text, '---\na:\n  - p\n  - q\n---\n');
    assert.equal(updateFrontmatter('---\r\na: 1 # why\r\n# next\r\nb: 2\r\n---\r\n', { a: 3, b: null }).text, '---\r\na: 3 # why\r\n# next\r\n---\r\n');
    // The last key removed: the block stays for its comments, and goes when it has none.
    assert.equal(updateFrontmatter('---\n# keep me\na: 1\n---\nbody', { a: null }).text, '---\n# keep me\n---\nbody');
    assert.equal(updateFrontmatter('---\na: 1\n\n---\nbody', { a: null }).text, 'body');
  });

  it('keeps an emptied block before a body that opens with `---`, which would otherwise be read as frontmatter', () => {
    const note = '---\ndraft: true\n---\n---\nQ: What is due?\n---\nA: the report.\n';
    const { text, data } = updateFrontmatter(note, { draft: null });
    assert.equal(text, '---\n\n---\n---\nQ: What is due?\n---\nA: the report.\n');
    assert.deepEqual(data, {});
    const read = splitNote(text);
    assert.deepEqual(read.data, {}, 'what the answer said');
    assert.equal(read.body, '---\nQ: What is due?\n---\nA: the report.\n', 'the body as it was');
    const crlf = updateFrontmatter('\uFEFF---\r\na: 1\r\n---\r\n---\r\n\r\n---\r\n', { a: null }).text;
    assert.equal(crlf, '\uFEFF---\r\n\r\n---\r\n---\r\n\r\n---\r\n');
    assert.equal(splitNote(crlf).body, '---\r\n\r\n---\r\n');
  });

  it('reads a frontmatter whose aliases would repeat values past all measure as broken, at once', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [i, name] of [...'bcdefghi'].entries()) levels.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`);
    const note = `---\n${levels.join('\n')}\n---\nbody\n`;
    assert.ok(note.length < 400);
    const started = Date.now();
    const read = splitNote(note);
    assert.ok(Date.now() - started < 2000, `read in ${Date.now() - started} ms`);
    assert.deepEqual(read.data, {});
    assert.equal(read.body, 'body\n');
    assert.match(read.frontmatterError ?? '', /its aliases \(\*name\) repeat values more than \d+ times/);
    assert.throws(() => updateFrontmatter(note, { x: 1 }), /its aliases \(\*name\) repeat values/);
    // Aliases as notes use them read as before.
    assert.deepEqual(splitNote('---\nbase: &b {x: 1}\nother: *b\nlist: [*b, *b]\n---\n').data, { base: { x: 1 }, other: { x: 1 }, list: [{ x: 1 }, { x: 1 }] });
  });

  it('leaves a key set to the value it has as written: its flow style, quotes and comment', () => {
    const note = '---\ntitle: Garden Plan\ntags: [home, garden] # keep this comment\nstatus: "draft"\nat: 10:30\no: {y: 2, x: 1}\n---\nBody\n';
    assert.equal(updateFrontmatter(note, { tags: ['home', 'garden'], status: 'draft', at: '10:30', o: { x: 1, y: 2 } }).text, note);
    // One value changed: only its entry is written anew.
    assert.equal(
      updateFrontmatter(note, { tags: ['home', 'garden'], status: 'done' }).text,
      '---\ntitle: Garden Plan\ntags: [home, garden] # keep this comment\nstatus: done\nat: 10:30\no: {y: 2, x: 1}\n---\nBody\n',
    );
    const crlf = '---\r\nb: [1, 2]\r\n---\r\nx\r\n';
    assert.equal(updateFrontmatter(crlf, { b: [1, 2] }).text, crlf);
    // The same text of another type is another value.
    assert.equal(updateFrontmatter('---\ncount: 10\n---\n', { count: '10' }).text, "---\ncount: '10'\n---\n");
  });

  it('rewrites a frontmatter it cannot edit key by key, and refuses to when that would lose comments', () => {
    assert.equal(updateFrontmatter('---\n{title: a}\n---\nB\n', { x: 1 }).text, '---\ntitle: a\nx: 1\n---\nB\n');
    assert.throws(() => updateFrontmatter('---\n{title: a} # flow\n---\nB\n', { x: 1 }), /would lose any comments/);
    assert.throws(() => updateFrontmatter('---\nbase: &b 1\n# uses the anchor\nother: *b\n---\nB\n', { x: 1 }), /would lose any comments/);
  });

  it('writes nothing that reads back otherwise: blank lines kept after a key do not join a block scalar kept with its line breaks', () => {
    // A string ending in blank lines is written as a `|+` block scalar, which takes the blank lines after it as its own.
    const replaced = updateFrontmatter('---\nnotes: old\n\nstatus: x\n---\n', { notes: 'a\n\n' });
    assert.deepEqual(replaced.data, { notes: 'a\n\n', status: 'x' });
    assert.deepEqual(splitNote(replaced.text).data, replaced.data);
    const removed = updateFrontmatter('---\nkeep: |+\n  a\n\nb: 1\n\n# about c\nc: 2\n---\n', { b: null });
    assert.deepEqual(removed.data, { keep: 'a\n\n', c: 2 });
    assert.deepEqual(splitNote(removed.text).data, removed.data);
    assert.match(removed.text, /# about c\n/);
  });

  it('reports exactly what it wrote, whatever the values and the lines between the keys', () => {
    const keys = ['a', 'b', 'c'];
    const value = fc.oneof(fc.constant(null), fc.string({ maxLength: 5 }), fc.constantFrom('x\n', 'x\n\n', '\n', ' lead', 'trail ', '# not a comment', 'a: b', '- item'), fc.integer(), fc.array(fc.constantFrom('p', 'q\n\n'), { maxLength: 2 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 }), fc.array(fc.constantFrom('', '\n', '# note\n', '\n# note\n\n'), { minLength: 3, maxLength: 3 }), (changes, between) => {
        const yaml = `a: |+\n  kept\n\n${between[0]}b: 1 # why\n${between[1]}c: [x]\n${between[2]}`;
        let result: { text: string; data: Record<string, unknown> };
        try {
          result = updateFrontmatter(`---\n${yaml}---\nbody`, Object.fromEntries(changes));
        } catch (err) {
          // Refused (nothing written) only when it cannot be done without losing a comment.
          assert.match((err as Error).message, /would lose any comments/);
          return;
        }
        assert.deepEqual(splitNote(result.text).data, result.data);
        assert.ok(result.text.endsWith('body'));
      }),
      { numRuns: 300 },
    );
  });

  it('loses no comment line, whatever keys are set or removed', () => {
    const keys = ['a', 'b', 'c', 'd'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...keys), fc.oneof(fc.constant(null), fc.string({ maxLength: 6 }), fc.integer())), { maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        (changes, commented) => {
          let yaml = '';
          keys.forEach((k, i) => {
            yaml += `${k}: ${i}${commented[i] ? ` # on ${k}` : ''}\n`;
            if (commented[i]) yaml += `# after ${k}\n\n`;
          });
          const patch = Object.fromEntries(changes);
          const { text } = updateFrontmatter(`---\n# top\n${yaml}---\nbody`, patch);
          const comments = (t: string) => t.split('\n').filter((l) => l.startsWith('#'));
          assert.deepEqual(comments(text), ['# top', ...keys.filter((_, i) => commented[i]).map((k) => `# after ${k}`)]);
          for (const [i, k] of keys.entries()) {
            // Values here are one-line scalars (fc.string makes printable ASCII), so a replaced key keeps its comment.
            const kept = !(k in patch) || patch[k] !== null;
            if (commented[i] && kept) assert.ok(text.includes(` # on ${k}\n`), `${k}: ${text}`);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never changes the body, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => /^[a-z]+$/.test(k)), fc.oneof(fc.string(), fc.integer(), fc.constant(null))), (body, patch) => {
        // A body that itself starts with a frontmatter-like block would be read as frontmatter; start it with text.
        const text = `---\ntitle: T\n---\nx${body}`;
        const { text: updated } = updateFrontmatter(text, patch);
        assert.ok(updated.endsWith(`x${body}`));
        assert.equal(splitNote(updated).body, `x${body}`);
      }),
      { numRuns: 200 },
    );
  });
});
