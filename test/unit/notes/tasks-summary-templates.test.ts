// Task extraction, extractive summaries and new-note templates.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { clip, extractiveSummary, headOf, sentenceSegments } from '../../../src/core/notes/summary';
import { extractTasks } from '../../../src/core/notes/tasks';
import { splitNote } from '../../../src/core/notes/frontmatter';
import { analyseBody } from '../../../src/core/notes/structure';
import { fileNameForTitle, oneLineTitle, renderTemplate } from '../../../src/core/notes/templates';

describe('notes/tasks', () => {
  it('extracts every task item with status and file line, nested and ordered, but not in code or plain text', () => {
    const text = '---\na: 1\n---\n- [ ] one\n  - [x] nested done\n* [X] star\n1. [?] ordered question\n- [!] important\n- [] not a task\n[ ] not in a list\n\n```\n- [ ] in code\n```\n- [>] multi\n  line\n';
    assert.deepEqual(extractTasks(text).tasks, [
      { text: 'one', status: 'todo', line: 4 },
      { text: 'nested done', status: 'done', line: 5 },
      { text: 'star', status: 'done', line: 6 },
      { text: 'ordered question', status: 'question', line: 7 },
      { text: 'important', status: 'important', line: 8 },
      { text: 'multi line', status: 'deferred', line: 15 },
    ]);
  });
});

describe('notes/tasks at the start of a note', () => {
  it('finds a task on the first line of a note saved with a byte-order mark', () => {
    assert.deepEqual(extractTasks('\uFEFF- [ ] first line task\n- [ ] second\n').tasks, [
      { text: 'first line task', status: 'todo', line: 1 },
      { text: 'second', status: 'todo', line: 2 },
    ]);
  });

  it('says the list may be cut where lists or quotes nest deeper than the markdown reader goes', () => {
    const nested = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- [ ] task ${i}\n`).join('');
    assert.deepEqual(extractTasks(nested(40)), { tasks: extractTasks(nested(40)).tasks, truncated: false });
    assert.equal(extractTasks(nested(40)).tasks.length, 40);
    const deep = extractTasks(nested(200));
    assert.equal(deep.tasks.length, 49, 'markdown-it reads no deeper');
    assert.equal(deep.truncated, true);
    const quotes = Array.from({ length: 500 }, (_, i) => `${'>'.repeat(i + 1)} - [ ] t\n`).join('');
    assert.equal(extractTasks(quotes).truncated, true);
  });

  it('finds the tasks of a note opening with a `---` rule, a list and another rule', () => {
    assert.deepEqual(extractTasks('---\nIntro line.\n---\n\n- [ ] after\n').tasks, [{ text: 'after', status: 'todo', line: 5 }]);
    // A task list between the rules is not YAML at all (`- [ ] a` does not parse): still markdown, not frontmatter.
    assert.deepEqual(extractTasks('---\n- [ ] task one\n- [x] task two\n---\n\nbody\n').tasks, [
      { text: 'task one', status: 'todo', line: 2 },
      { text: 'task two', status: 'done', line: 3 },
    ]);
  });
});

describe('notes/summary', () => {
  const note = '---\ntitle: T\n---\n# Gardening\n\nTomatoes need sun. Tomatoes need water every day. The cat sleeps.\n\n- [ ] Buy tomato seeds\n\nWater the tomatoes early, before the sun is high.\n';

  it('keeps the most representative sentences in their original order, within maxLength', () => {
    const summary = extractiveSummary(note, 80);
    assert.ok(summary.length <= 80 && summary.length > 40, summary);
    assert.ok(summary.startsWith('Tomatoes need sun. '), 'the opening sentence is on topic and kept first');
    assert.ok(!summary.includes('cat'), 'the off-topic sentence is left out');
    assert.ok(!summary.includes('Gardening') && !summary.includes('[ ]'), 'headings and task markers are not prose');
    const sentences = ['Tomatoes need sun.', 'Tomatoes need water every day.', 'Buy tomato seeds', 'Water the tomatoes early, before the sun is high.'];
    const positions = sentences.map((s) => summary.indexOf(s)).filter((i) => i >= 0);
    assert.ok(positions.length >= 2);
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'original order');
    assert.equal(extractiveSummary(note, 80), summary, 'deterministic');
    assert.ok(extractiveSummary(note, 500).includes('cat'), 'with room enough every sentence fits');
  });

  it('segments a long paragraph in pieces as the whole would be segmented, and a megabyte paragraph in seconds at most', function () {
    this.timeout(60_000);
    // Under 64 KiB, where segmenting it whole is still quick: the pieces give the same sentences.
    const kinds = ['Tomatoes need sun. ', 'Dr. Smith said so! ', 'e.g. this one? ', 'Ünïcödé “quoted.” ', 'emoji 🍅 here. ', 'no stop here ', 'Done.\n'];
    let paragraph = '';
    for (let i = 0; paragraph.length < 60_000; i++) paragraph += kinds[(i * 7919) % kinds.length];
    paragraph += 'Last one';
    const whole = Array.from(new Intl.Segmenter('en', { granularity: 'sentence' }).segment(paragraph), (s) => s.segment);
    assert.deepEqual([...sentenceSegments(paragraph)], whole);
    // A run of 8 KiB with no sentence end is cut there, every character kept, never inside a character.
    const run = `${'x'.repeat(8191)}🍅${'y'.repeat(2000)}. Next.`;
    const pieces = [...sentenceSegments(run)];
    assert.equal(pieces.join(''), run);
    assert.deepEqual(pieces.map((p) => p.length), [8191, 2 + 2000 + 2, 5]); // 🍅 is two code units; "Next." five
    // A hard-wrapped megabyte paragraph (V8 takes time growing with the square of one segmented whole: 23 s for
    // 256 KiB here) is summarised, its first sentence kept.
    const long = 'Word number. '.repeat(80_000).replace(/(.{70}) /g, '$1\n');
    const summary = extractiveSummary(long, 100);
    assert.ok(summary.startsWith('Word number.'), summary);
    assert.ok(summary.length <= 100);
  });

  it('clips a single long sentence at a word boundary, and returns nothing for an empty note', () => {
    const s = extractiveSummary('One very long sentence without any full stop that goes on and on', 30);
    assert.ok(s.length <= 30 && s.endsWith('…'), s);
    assert.equal(extractiveSummary('---\na: 1\n---\n', 100), '');
  });

  it('ends a list item or line without punctuation with a full stop when another sentence follows, and leaves table cells out', () => {
    const log = '# Running log\n\n| Date | Distance |\n|---|---|\n| 2026-11-15 | 5.2 km |\n\nThree runs this week.\n\n- Buy new running shoes\n- Stretch after runs\n- Rest on Sunday\n';
    assert.equal(extractiveSummary(log, 500), 'Three runs this week. Buy new running shoes. Stretch after runs. Rest on Sunday');
    assert.equal(extractiveSummary('Steps:\n\n- Plant tomatoes,\n- water them (daily)\n- “Harvest”\n- done\n', 500), 'Steps: Plant tomatoes, water them (daily). “Harvest”. done');
    assert.equal(extractiveSummary('- 买种子\n- 浇水。\n- 收获\n', 100), '买种子. 浇水。 收获');
    // The full stops count toward maxLength; the last sentence gets none, so one of exactly maxLength fits whole.
    for (let max = 20; max <= 80; max++) assert.ok(extractiveSummary(log, max).length <= max, String(max));
    assert.equal(extractiveSummary('- Buy new running shoes\n- Rest\n', 28), 'Buy new running shoes. Rest');
    assert.equal(extractiveSummary('Twenty characters ok\n', 20), 'Twenty characters ok');
  });

  it('never cuts an emoji in two', () => {
    // With the u flag a pair is one code point, so the class finds only a lone surrogate.
    const wellFormed = (text: string) => !/[\uD800-\uDFFF]/u.test(text);
    const emoji = '😀'.repeat(100);
    for (let max = 2; max <= 30; max++) {
      const s = extractiveSummary(emoji, max);
      assert.ok(s.length <= max && s.endsWith('…'), `${max}: ${s}`);
      assert.ok(wellFormed(s), `${max}: ${JSON.stringify(s)}`);
      assert.ok(wellFormed(clip(emoji, max)) && wellFormed(headOf(emoji, max)), String(max));
    }
    assert.equal(headOf('a😀b', 2), 'a');
    assert.equal(headOf('a😀b', 3), 'a😀');
  });

  it('keeps what closes a sentence after its full stop with it, and shows a highlight as its words', () => {
    const garden = '# Garden Plan\n\nSoil pH measured 6.4 — good for most vegetables. ==Remember to rotate the tomatoes.==\n';
    assert.equal(extractiveSummary(garden, 500), 'Soil pH measured 6.4 — good for most vegetables. Remember to rotate the tomatoes.');
    assert.equal(extractiveSummary(garden, 40), 'Remember to rotate the tomatoes.');
    // A closing mark with no highlight to close stays with its sentence, not a sentence of its own.
    assert.equal(extractiveSummary('Soil is good. Rotate the tomatoes.==\n', 500), 'Soil is good. Rotate the tomatoes.==');
    assert.equal(extractiveSummary('Plant seeds. ~~Water daily.~~ **Harvest.** Done.\n', 500), 'Plant seeds. Water daily. Harvest. Done.');
  });

  it('reads a note as it is shown: highlights as their words, no footnotes, an image as its alt text', () => {
    assert.equal(extractiveSummary('The garden needs ==daily watering== in July.\n', 500), 'The garden needs daily watering in July.');
    assert.equal(extractiveSummary('Marks ==a== and ==b c==, a==b==c; no highlight: x == y, ==not closed, === run ===.\n', 500), 'Marks a and b c, abc; no highlight: x == y, ==not closed, === run ===.');
    const footnotes = 'Tomatoes grow fast[^1]. Peppers are slower.[^note]\n\n[^1]: Seen in the 2024 season notes.\n[^note]: A guess.\n    Continued under it.\n\nBasil came last.\n';
    assert.equal(extractiveSummary(footnotes, 500), 'Tomatoes grow fast. Peppers are slower. Basil came last.');
    assert.equal(extractiveSummary('We planted ![tomato](t.png) and ![pepper](p.png) and basil.\n', 500), 'We planted tomato and pepper and basil.');
    // The alt text is no word of the note's count: it is not shown as text.
    assert.equal(analyseBody('We planted ![tomato](t.png) and ![pepper](p.png) and basil.\n', 0).wordCount, 5);
    // A block of images only (a row of badges) is no prose.
    assert.equal(extractiveSummary('[![Build](b.svg)](ci) [![npm](n.svg)](npm)\n\n![photo](a.png)\n\nThe library parses notes.\n', 500), 'The library parses notes.');
  });

  it('leaves code, escaped marks and references to footnotes the note does not define as written', () => {
    assert.equal(extractiveSummary('Compare `x==y` with `a==b` here, and \\==not marked\\== either.\n', 500), 'Compare x==y with a==b here, and ==not marked== either.');
    assert.equal(extractiveSummary('Strip non-digits with `[^0-9]` first. The class [^abc] matches others.\n', 500), 'Strip non-digits with [^0-9] first. The class [^abc] matches others.');
    // A highlight over emphasis or code is one highlight.
    assert.equal(extractiveSummary('Keep ==the *best* `seeds`== dry.\n', 500), 'Keep the best seeds dry.');
  });

  it('leaves out the lines that continue a footnote: indented, after a blank line, or lazily', () => {
    const note = [
      '- Buy seeds[^1]',
      '- Plant tomatoes[^2]',
      '',
      '[^1]: From the shop.',
      '    Ask for organic ones.',
      '',
      '    A second paragraph of the footnote.',
      '[^2]: Seen in the',
      'season notes of 2024.',
      '## Later',
      '',
      'Water them daily.',
      '',
    ].join('\n');
    assert.equal(extractiveSummary(note, 500), 'Buy seeds. Plant tomatoes. Water them daily.');
    // A block that starts on the next line is no continuation: a fence there is kept whole (code, left out).
    assert.equal(extractiveSummary('Text[^1].\n\n[^1]: A note.\n```\nBIG CODE\n```\nAfter the code.\n', 500), 'Text. After the code.');
  });

  it('summarises the intro of a note opening with a `---` rule, and the first line of one with a byte-order mark', () => {
    assert.equal(extractiveSummary('---\n\nJust an intro line.\n\n---\n\n# Heading\n', 100), 'Just an intro line.');
    assert.equal(extractiveSummary('\uFEFFOnly line.\n', 100), 'Only line.');
  });
});

describe('notes/templates', () => {
  it('fills {title}, {date}, {time} and {datetime}', () => {
    const now = new Date(2024, 2, 5, 9, 7, 3);
    const out = renderTemplate('{title}|{date}|{time}|{datetime}|{other}', { title: 'T', now });
    const [title, date, time, datetime, other] = out.split('|');
    assert.deepEqual([title, date, time, other], ['T', '2024-03-05', '09:07', '{other}']);
    assert.match(datetime, /^2024-03-05T09:07:03[+-]\d{2}:\d{2}$/);
    assert.equal(new Date(datetime).getTime(), now.getTime());
  });

  it('fills a whole frontmatter value so that it reads back as the title, and the body as written', () => {
    const now = new Date(2024, 2, 5, 14, 5, 0);
    const template = '---\ntitle: {title}\ncreated: {date}\nat: {time}\n---\n# {title}\n';
    for (const title of ['Re: budget', '#1 priority', 'true', '42', "it's \"quoted\"", 'Plain title', '- dash', '[draft]', 'yes', '10:30', '{date}', 'Agenda for {time} at {title}', 'x'.repeat(120)]) {
      const out = renderTemplate(template, { title: oneLineTitle(title), now });
      const split = splitNote(out);
      assert.equal(split.frontmatterError, undefined, out);
      assert.deepEqual(split.data.title, title, out);
      assert.equal(split.data.created, '2024-03-05');
      assert.equal(split.data.at, '14:05');
      assert.equal(split.body, `# ${title}\n`, 'the body gets the title as it is');
    }
    // Quoted as update_note_metadata writes values: a time would be a number to a YAML 1.1 reader.
    assert.equal(renderTemplate(template, { title: 'Plain', now }), "---\ntitle: Plain\ncreated: 2024-03-05\nat: '14:05'\n---\n# Plain\n");
    // Part of a value is filled as it is: the template's author quotes it.
    assert.equal(renderTemplate('---\nlabel: "Note {title}"\n---\n', { title: 'Re: x', now }), '---\nlabel: "Note Re: x"\n---\n');
    assert.equal(oneLineTitle('  a\n b\tc  '), 'a b c');
    // Control characters too, as the file name turns them into `-`: a NUL would make the note a binary file.
    assert.equal(oneLineTitle('a\u0000b\u0007 \u001fc\u007f'), 'a b c');
  });

  it('makes titles into file names valid on Windows, macOS and Linux', () => {
    assert.equal(fileNameForTitle('a/b\\c:d*e?f"g<h>i|j'), 'a-b-c-d-e-f-g-h-i-j');
    assert.equal(fileNameForTitle('  trailing dots...  '), 'trailing dots');
    assert.equal(fileNameForTitle('..hidden'), 'hidden');
    assert.equal(fileNameForTitle(' . spaced'), 'spaced', 'no space is left at the start once the dots go');
    assert.equal(fileNameForTitle('nul'), '_nul');
    assert.equal(fileNameForTitle('COM1'), '_COM1');
    assert.equal(fileNameForTitle('???'), 'Untitled');
    assert.equal(fileNameForTitle('/ ?'), 'Untitled');
    // Dashes the title has of its own are its name.
    assert.equal(fileNameForTitle('-'), '-');
    assert.equal(fileNameForTitle('-?'), '--');
    assert.equal(fileNameForTitle('tab\there\nnewline'), 'tab here newline');
    assert.equal(fileNameForTitle('x'.repeat(300)).length, 200);
    // Cut at 200 bytes, never inside a character: whole emoji (4 bytes each), a letter with its 60 combining marks
    // (121 bytes) kept whole or not at all; a title of megabytes the same way.
    assert.equal(fileNameForTitle('🍅'.repeat(60)), '🍅'.repeat(50));
    const zalgo = `q${'\u0301'.repeat(60)}`; // no precomposed form: NFC leaves it as it is
    assert.equal(fileNameForTitle(`${'a'.repeat(79)}${zalgo}x`), `${'a'.repeat(79)}${zalgo}`);
    assert.equal(fileNameForTitle(`${'a'.repeat(80)}${zalgo}x`), 'a'.repeat(80));
    assert.equal(fileNameForTitle(`${'a'.repeat(199)}🍅`), 'a'.repeat(199));
    assert.equal(fileNameForTitle('é'.repeat(1_000_000)), 'é'.repeat(100));
    assert.equal(fileNameForTitle('Ünïcode 日本語 ✓'), 'Ünïcode 日本語 ✓');
  });
});

describe('notes/summary and templates at start-up', () => {
  it('create no text segmenter until one is needed (the first costs about 30 ms of ICU loading)', () => {
    // A fresh process: in this one the modules are loaded already.
    const code = `
      const made = [];
      const Real = Intl.Segmenter;
      Intl.Segmenter = class extends Real { constructor(...args) { super(...args); made.push(args[1].granularity); } };
      // Loaded as CommonJS: the exports are the namespace's default.
      const summary = (await import('./src/core/notes/summary.ts')).default;
      const templates = (await import('./src/core/notes/templates.ts')).default;
      const loaded = made.length;
      summary.extractiveSummary('First sentence here. Second one follows. A third.', 30);
      templates.fileNameForTitle('é'.repeat(150));
      console.log(JSON.stringify({ loaded, made }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { loaded: 0, made: ['sentence', 'grapheme'] });
  });
});
