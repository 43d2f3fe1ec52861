// ripgrep narrows searches down: what it is told to look for must be in every line the JavaScript query matches
// (or the search would lose results), and its runs must be found, bounded, stopped and reported as they say.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { matchLines } from '../../../src/core/workspace/match';
import { requiredLiterals } from '../../../src/core/workspace/regex-literals';
import { caseless, literalExpression, literalWeight, locateRipgrep, ripgrepArgs, ripgrepPattern, runRipgrep, RIPGREP_ENV, sieveExpression } from '../../../src/core/workspace/ripgrep';
import { spawnSync } from 'node:child_process';
import { compileGlobs } from '../../../src/core/workspace/listing';
import { compileQuery, RipgrepUse } from '../../../src/core/workspace/search';
import { testRipgrep } from './ripgrep-helper';


/** Every Unicode scalar value, as a string. */
function* everyCharacter(): Generator<string> {
  for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) yield String.fromCodePoint(cp);
}

describe('ripgrep: what it looks for', function () {
  this.timeout(120_000);

  it('pairs each ASCII letter with every character JavaScript matches it to case-insensitively, with or without the u flag', () => {
    const letters = /^[a-z]$/iu;
    const found = new Map<string, Set<string>>();
    for (const ch of everyCharacter()) {
      if (!letters.test(ch) && !/^[a-z]$/i.test(ch)) continue;
      for (const flags of ['iu', 'i']) {
        for (let c = 97; c <= 122; c++) {
          const letter = String.fromCharCode(c);
          if (new RegExp(`^${letter}$`, flags).test(ch)) (found.get(letter) ?? found.set(letter, new Set()).get(letter))?.add(ch);
        }
      }
    }
    for (const [letter, chars] of found) {
      const rgClass = literalExpression(letter, true);
      for (const ch of chars) {
        const cp = (ch.codePointAt(0) as number).toString(16).toUpperCase();
        assert.ok(rgClass.includes(ch) || rgClass.includes(`\\x{${cp}}`), `${letter} matches U+${cp} in JavaScript; ripgrep's class ${rgClass} must hold it`);
      }
    }
    assert.deepEqual([...(found.get('k') ?? [])].sort(), ['K', 'k', '\u212A'].sort());
    assert.deepEqual([...(found.get('s') ?? [])].sort(), ['S', 's', '\u017F'].sort());
  });

  it('keeps as themselves only characters that nothing else matches case-insensitively (every code point checked)', () => {
    // The characters called caseless, as a class: under i (with or without u) such a class matches a character
    // outside it exactly when that character folds to one inside, which must never happen; and no caseless
    // character folds to anything (checked by its property), so nothing inside folds to anything else either.
    const ranges: Array<[number, number]> = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (!caseless(String.fromCodePoint(cp))) continue;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === cp - 1) last[1] = cp;
      else ranges.push([cp, cp]);
    }
    const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
    const source = `^[${ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('')}]$`;
    const plain = new RegExp(source, 'u');
    const folded = new RegExp(source, 'iu');
    const bmpSource = `^[${ranges.filter(([a]) => a <= 0xffff).map(([a, b]) => `\\u${a.toString(16).padStart(4, '0')}-\\u${Math.min(b, 0xffff).toString(16).padStart(4, '0')}`).join('')}]$`;
    const bmpPlain = new RegExp(bmpSource);
    const bmpFolded = new RegExp(bmpSource, 'i');
    let inside = 0;
    for (const ch of everyCharacter()) {
      const isIn = plain.test(ch);
      if (isIn) inside++;
      assert.equal(folded.test(ch), isIn, `U+${(ch.codePointAt(0) as number).toString(16)} folds onto a caseless character (u flag)`);
      if (ch.length === 1) assert.equal(bmpFolded.test(ch), bmpPlain.test(ch), `U+${ch.charCodeAt(0).toString(16)} folds onto a caseless character (no u flag)`);
      if (isIn) assert.ok(!/\p{Changes_When_Casefolded}/u.test(ch));
    }
    assert.ok(inside > 1_000_000, 'CJK, digits, punctuation, symbols and most scripts are caseless');
    assert.ok(!caseless('é') && !caseless('A') && caseless('京') && caseless('7') && caseless(' '));
  });

  it('turns a literal into a ripgrep expression: letters into their cases, caseless characters kept, other cased ones into any character', () => {
    assert.equal(literalExpression('Sky 7', true), '[sS\\x{17F}][kK\\x{212A}][yY]\\x{20}7');
    assert.equal(literalExpression('tomás', true), '[tT][oO][mM].[sS\\x{17F}]');
    assert.equal(literalExpression('東京', true), '\\x{6771}\\x{4EAC}');
    assert.equal(literalExpression('a.b', false), 'a\\x{2E}b');
    assert.equal(literalWeight('tomás', true), 4);
    assert.equal(literalWeight('tomás', false), 5);
    assert.equal(literalWeight('line\nbreak', false), 0, 'a line end never appears inside a line');
    assert.equal(literalWeight('bad \uFFFD', false), 0, 'invalid bytes decode to U+FFFD, which ripgrep cannot find');
    assert.equal(literalWeight('lone \uD800', false), 0);
  });

  it('finds what a query needs: the literal itself, a regular expression\'s required text, or nothing', () => {
    const pattern = (query: string, regex: boolean, caseSensitive: boolean) => {
      const c = compileQuery({ query, regex, caseSensitive, wholeWord: false, maxResults: 10 });
      return ripgrepPattern(c.required, c.flags.includes('i'));
    };
    assert.deepEqual(pattern('customer feedback', false, true), { fixed: true, patterns: ['customer feedback'] });
    assert.deepEqual(pattern('KYOTO OFFICE', false, false), { fixed: false, patterns: ['[kK\\x{212A}][yY][oO][tT][oO]\\x{20}[oO][fF][fF][iI][cC][eE]'] });
    assert.deepEqual(pattern('\\b(TODO|FIXME)\\b.*deadline', true, true), { fixed: true, patterns: ['deadline'] });
    assert.deepEqual(pattern('(TODO|FIXME): ', true, true), { fixed: true, patterns: ['TODO: ', 'FIXME: '] });
    assert.equal(pattern('ab', false, true), undefined, 'too common to be worth it');
    assert.equal(pattern('(\\w+) \\1', true, true), undefined);
    assert.equal(pattern('é|ö|ß', true, true), undefined);
    assert.equal(pattern('x\uFFFDyz', false, true), undefined);
  });

  it('extracts required text from regular expressions', () => {
    const weight = (s: string) => literalWeight(s, false);
    const req = (source: string, flags = 'u') => requiredLiterals(source, flags, weight);
    assert.deepEqual(req('(?<=\\[\\[)Note 0000\\d'), ['Note 0000']);
    assert.deepEqual(req('colou?r scheme'), ['r scheme']);
    assert.deepEqual(req('[ab]cd'), ['acd', 'bcd']);
    assert.deepEqual(req('(?:ab){3}'), ['ababab']);
    assert.deepEqual(req('(?:abc)+x'), ['abc']);
    assert.deepEqual(req('^## '), ['## ']);
    assert.deepEqual(req('foo|bar'), ['foo', 'bar']);
    assert.equal(req('foo|.*'), undefined, 'one branch needs nothing');
    assert.equal(req('(?:foo)?'), undefined);
    assert.deepEqual(req('[^a]bcd'), ['bcd']);
    assert.deepEqual(req('(?i:abc)def', 'u'), ['def'], 'a group that changes case-insensitivity is not spelled out');
  });
});

describe('ripgrep: the sieve of a regular expression', () => {
  const gap = '(?-u:[^\\n])*';

  it('spells the literal texts a match holds in their order, with gaps of any bytes between them', () => {
    assert.equal(sieveExpression('\\b(TODO|FIXME)\\b.*deadline', 'u'), `(?:TODO|FIXME)${gap}deadline`);
    assert.equal(sieveExpression('colou?r scheme', 'u'), `colo${gap}r\\x{20}scheme`);
    assert.equal(sieveExpression('(?:abc)+x', 'u'), `abc${gap}x`);
    assert.equal(sieveExpression('[ab]cd|e\\d+f', ''), `(?:(?:acd|bcd)|e${gap}f)`);
    assert.equal(sieveExpression('(?<=\\[\\[)Note (\\d+)\\]\\]', 'u'), `Note\\x{20}${gap}\\x{5D}\\x{5D}`, 'a lookbehind is a gap');
    assert.equal(sieveExpression('Kyoto.*tomás', 'iu'), `[kK\\x{212A}][yY][oO][tT][oO]${gap}[tT][oO][mM].[sS\\x{17F}]`);
    assert.equal(sieveExpression('a\\bb', 'u'), 'ab', 'an assertion between two characters leaves them side by side');
  });

  it('has none when a branch or the whole can match without any literal text', () => {
    assert.equal(sieveExpression('foo|.*', 'u'), undefined);
    assert.equal(sieveExpression('(?:foo)?\\w+', 'u'), undefined);
    assert.equal(sieveExpression('(\\w+) \\1', 'u'), `\\x{20}`, 'a back-reference is a gap');
    assert.equal(sieveExpression('(?i:abc)', 'u'), undefined, 'a group that changes case-insensitivity is not spelled out');
    assert.equal(sieveExpression('x\\uFFFDy', 'u'), `x${gap}y`, 'U+FFFD (what invalid bytes decode to) is a gap');
    assert.equal(sieveExpression('\\uD83Dx', ''), undefined, 'half of a surrogate pair has no UTF-8 form: its run is not spelled');
    assert.equal(sieveExpression('\\uD83D\\uDE00x', ''), '\\x{1F600}x', 'the two halves together are');
  });

  it('replaces the required texts when ripgrep is used for a regular expression', () => {
    const c = compileQuery({ query: '\\b(TODO|FIXME)\\b.*deadline', regex: true, caseSensitive: true, wholeWord: false, maxResults: 10 });
    assert.deepEqual(ripgrepPattern(c.required, false, sieveExpression(c.source, c.flags)), { fixed: false, patterns: [`(?:TODO|FIXME)${gap}deadline`] });
    const common = compileQuery({ query: 'a.*b', regex: true, caseSensitive: true, wholeWord: false, maxResults: 10 });
    assert.equal(ripgrepPattern(common.required, false, sieveExpression(common.source, common.flags)), undefined, 'texts too common stay unused');
  });
});

/**
 * Random regular expressions and random lines, some of them invalid UTF-8: every line JavaScript matches in the
 * decoded text is a line ripgrep prints for the sieve. This is what makes the sieve lose nothing.
 */
describe('ripgrep: the sieve finds every line a regular expression matches (property, with ripgrep)', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-sieve-')));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const atom = fc.constantFrom(
    'TODO', 'dead', 'line', 'a', 'b', 'K', 's', 'é', 'ß', '😀', '\\uD83D', '\\uDE00', '\\uFFFD', ' ',
    '.', '\\w', '\\W', '\\d', '\\s', '[ab]', '[^a]', '[a-c]', '[kK]', '\\b', '\\B', '^', '$', '(?=b)', '(?<!a)', '\\1', '\\r',
  );
  const regex: fc.Arbitrary<string> = fc.letrec((tie) => ({
    seq: fc.array(tie('item'), { minLength: 1, maxLength: 5 }).map((items) => items.join('')),
    item: fc.oneof(
      { weight: 4, arbitrary: atom },
      { weight: 1, arbitrary: fc.tuple(tie('seq'), tie('seq')).map(([a, b]) => `(${a}|${b})`) },
      { weight: 1, arbitrary: fc.tuple(tie('seq'), fc.constantFrom('?', '*', '+', '{2}', '{1,3}', '{0}', '+?')).map(([a, q]) => `(?:${a})${q}`) },
    ),
  })).seq as fc.Arbitrary<string>;
  // Pieces of lines as bytes: text in UTF-8, and invalid sequences (a lone continuation byte, a truncated sequence,
  // 0xFF), which JavaScript decodes to U+FFFD; a carriage return (dropped at a line's end) and NUL.
  const piece = fc.constantFrom<Buffer>(
    ...['TODO', 'todo', 'dead', 'line', 'DEAD', 'a', 'b', 'c', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'é', 'É', 'ß', 'ẞ', ' ', '1', '😀', '\uFFFD', '\r'].map((t) => Buffer.from(t)),
    Buffer.from([0x80]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x82]), Buffer.from([0xff]), Buffer.from([0]),
  );
  const line = fc.array(piece, { maxLength: 10 }).map((ps) => Buffer.concat(ps));

  for (const flags of ['u', 'iu', '', 'i']) {
    it(`flags "${flags}"`, () => {
      let sieved = 0;
      fc.assert(
        fc.property(regex, fc.array(line, { minLength: 1, maxLength: 12 }), (source, lines) => {
          try {
            new RegExp(source, flags);
          } catch {
            return; // not a valid expression with these flags
          }
          const sieve = sieveExpression(source, flags);
          if (!sieve) return;
          sieved++;
          const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
          fs.writeFileSync(path.join(dir, 'lines.md'), bytes);
          const expected = matchLines(bytes.toString('utf8'), source, flags, 1000).map(([n]) => n);
          const run = spawnSync(testRipgrep(), ripgrepArgs({ fixed: false, patterns: [sieve] }, { showHiddenFiles: false, extensions: ['.md'], exclude: [] }, 1e6), { cwd: dir });
          assert.ok(run.status === 0 || run.status === 1, `ripgrep failed on ${sieve}: ${run.stderr}`);
          const printed = new Set(
            run.stdout
              .toString('latin1')
              .split('\n')
              .filter(Boolean)
              .map((l) => Number(/\0(\d+):/.exec(l)?.[1])),
          );
          for (const n of expected) {
            assert.ok(printed.has(n), `/${source}/${flags} matches line ${n} (${JSON.stringify(lines[n - 1].toString('utf8'))}), which ripgrep skips for ${sieve}`);
          }
        }),
        { numRuns: 250 },
      );
      assert.ok(sieved > 50, `only ${sieved} of the expressions had a sieve`);
    });
  }
});

/**
 * Random regular expressions over a small alphabet, and random lines: whenever JavaScript matches a line, the line
 * holds one of the required texts (case-insensitively when the flags say so). This is what makes ripgrep's
 * narrowing lose nothing.
 */
describe('ripgrep: required text holds for every match (property)', function () {
  this.timeout(120_000);
  const atom = fc.oneof(
    fc.constantFrom('a', 'b', 'c', 'K', 's', 'é', 'ß', '.', '\\w', '\\d', '[ab]', '[^a]', '[a-c]', '\\b', '^', '$', '(?=b)', '(?<!a)', '\\1'),
    fc.constantFrom('k', 'S', '\u212A', '\u017F', ' '),
  );
  const regex: fc.Arbitrary<string> = fc.letrec((tie) => ({
    seq: fc.array(tie('item'), { minLength: 1, maxLength: 5 }).map((items) => items.join('')),
    item: fc.oneof(
      { weight: 4, arbitrary: atom },
      { weight: 1, arbitrary: fc.tuple(tie('seq'), tie('seq')).map(([a, b]) => `(${a}|${b})`) },
      { weight: 1, arbitrary: fc.tuple(tie('seq'), fc.constantFrom('?', '*', '+', '{2}', '{1,3}', '{0}')).map(([a, q]) => `(?:${a})${q}`) },
    ),
  })).seq as fc.Arbitrary<string>;
  const line = fc.array(fc.constantFrom('a', 'b', 'c', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'é', 'É', 'ß', 'ẞ', ' ', '1'), { maxLength: 14 }).map((cs) => cs.join(''));

  for (const [flags, weigh] of [['u', 'flat'], ['iu', 'flat'], ['', 'flat'], ['i', 'flat'], ['u', 'weight'], ['iu', 'weight']] as const) {
    it(`flags "${flags}", sets chosen by ${weigh === 'flat' ? 'size' : 'weight'}`, () => {
      fc.assert(
        fc.property(regex, fc.array(line, { minLength: 1, maxLength: 8 }), (source, lines) => {
          let re: RegExp;
          try {
            re = new RegExp(source, flags);
          } catch {
            return; // not a valid expression with these flags
          }
          const required = requiredLiterals(source, flags, weigh === 'flat' ? () => 1 : (s) => literalWeight(s, flags.includes('i')));
          if (!required) return;
          const holds = (text: string, needle: string) =>
            flags.includes('i') ? new RegExp(literalExpression(needle, true).replace(/\\x\{([0-9A-F]+)\}/g, '\\u{$1}'), 'u').test(text) : text.includes(needle);
          for (const l of lines) {
            const m = re.exec(l);
            if (!m || m[0] === '') continue;
            assert.ok(
              required.some((r) => holds(m[0], r)),
              `/${source}/${flags} matched "${m[0]}" in "${l}", which holds none of ${JSON.stringify(required)}`,
            );
          }
        }),
        { numRuns: 3000 },
      );
    });
  }
});

describe('matching only the lines that hold the required text (property)', function () {
  this.timeout(120_000);
  const piece = fc.constantFrom('TODO', 'todo', 'FIXME', 'deadline', 'DeadLine', 'dead', 'line', ' ', 'a', 'A', 'é', 'É', 'K', 'k', '\u212A', 'ſ', 's', '\r', '😀', '[x]', 'x');
  const line = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
  const text = fc.array(line, { maxLength: 12 }).map((lines) => lines.join('\n'));
  const query = fc.oneof(
    fc.record({ query: fc.constantFrom('\\b(TODO|FIXME)\\b.*deadline', 'dead(?:line)?', '(?<!a)line', 'TODO|x\\b', '^\\[x\\]', 'é+K', 'line$', '😀 ?a', 'a\\r'), regex: fc.constant(true) }),
    fc.record({ query: fc.constantFrom('TODO', 'dead', 'a K', 'line\r', 'é', 'ks', 'éa'), regex: fc.constant(false) }),
  );
  it('gives the lines matching every line gives, whatever the text', () => {
    fc.assert(
      fc.property(text, query, fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 20 }), (t, q, caseSensitive, wholeWord, limit) => {
        const compiled = compileQuery({ ...q, caseSensitive, wholeWord, maxResults: limit });
        if (!compiled.required) return;
        const everyLine = matchLines(t, compiled.source, compiled.flags, limit, false);
        assert.deepEqual(matchLines(t, compiled.source, compiled.flags, limit, compiled.wholeText, compiled.required), everyLine, JSON.stringify({ t, q, wholeWord }));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('ripgrep: runs', function () {
  this.timeout(60_000);
  let root: string;
  const rules = { showHiddenFiles: false, extensions: ['.md', '.txt'], exclude: [] };
  const fixed = (text: string) => ({ fixed: true, patterns: [text] });

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-rg-')));
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'a.md'), 'one kyoto\ntwo\nthree kyoto\n');
    fs.writeFileSync(path.join(root, 'sub', 'b.txt'), 'kyoto\n');
    fs.writeFileSync(path.join(root, 'skip.bin'), 'kyoto\n');
    fs.writeFileSync(path.join(root, 'big.md'), `kyoto ${'x'.repeat(5000)}\n`);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is found through NOTESAPP_RIPGREP, turned off by "off", else looked up on PATH', () => {
    assert.equal(locateRipgrep({ [RIPGREP_ENV]: '/opt/rg' }), '/opt/rg');
    assert.equal(locateRipgrep({ [RIPGREP_ENV]: 'off', PATH: process.env.PATH }), undefined);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-path-'));
    try {
      assert.equal(locateRipgrep({ PATH: dir }), undefined);
      const rg = path.join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg');
      fs.writeFileSync(rg, '#!/bin/sh\n', { mode: 0o755 });
      assert.equal(locateRipgrep({ PATH: `${path.join(dir, 'missing')}${path.delimiter}${dir}` }), rg);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Temporary output files of this process left in the temporary folder. */
  const leftovers = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`notesapp-rg-${process.pid}-`));

  for (const output of ['file', 'pipe'] as const) {
    it(`prints each matching line after its path, in files of the searched types up to the size limit (output to a ${output})`, async () => {
      const out = await runRipgrep({ program: testRipgrep(), root, pattern: fixed('kyoto'), rules, maxFileSize: 1000, maxLines: 100, maxBytes: 1e6, output });
      assert.ok('lines' in out, JSON.stringify(out));
      const printed = Buffer.from(out.lines).toString('utf8').split('\n').filter(Boolean).sort();
      assert.deepEqual(printed, ['./a.md\x001:one kyoto', './a.md\x003:three kyoto', './sub/b.txt\x001:kyoto']);
      assert.ok(out.lines.buffer.byteLength === out.lines.byteLength, 'a buffer of its own, to move to a worker');
      assert.deepEqual(leftovers(), []);
    });

    it(`stops at too many lines or bytes, and reports a missing program or a failed run as an error (output to a ${output})`, async () => {
      const program = testRipgrep();
      assert.deepEqual(await runRipgrep({ program, root, pattern: fixed('kyoto'), rules, maxFileSize: 1e6, maxLines: 2, maxBytes: 1e6, output }), { overflow: true });
      assert.deepEqual(await runRipgrep({ program, root, pattern: fixed('kyoto'), rules, maxFileSize: 1e6, maxLines: 100, maxBytes: 20, output }), { overflow: true });
      const missing = await runRipgrep({ program: path.join(root, 'no-such-rg'), root, pattern: fixed('kyoto'), rules, maxFileSize: 1e6, maxLines: 100, maxBytes: 1e6, output });
      assert.ok('error' in missing && /ENOENT/.test(missing.error), JSON.stringify(missing));
      const invalid = await runRipgrep({ program, root, pattern: { fixed: false, patterns: ['(unclosed'] }, rules, maxFileSize: 1e6, maxLines: 100, maxBytes: 1e6, output });
      assert.ok('error' in invalid && /exited with 2/.test(invalid.error), JSON.stringify(invalid));
      assert.deepEqual(leftovers(), []);
    });

    it(`is stopped when the search is cancelled (output to a ${output})`, async () => {
      const controller = new AbortController();
      const run = runRipgrep({ program: testRipgrep(), root: '/', pattern: fixed('a needle nobody wrote anywhere'), rules: { showHiddenFiles: true, extensions: ['.md'], exclude: [] }, maxFileSize: 1e6, maxLines: 100, maxBytes: 1e6, signal: controller.signal, output });
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      assert.deepEqual(await run, { error: 'cancelled' });
      assert.ok(Date.now() - started < 5000);
      assert.deepEqual(leftovers(), []);
    });

    it(`is not started for a search cancelled before it (output to a ${output})`, async () => {
      // A "ripgrep" that leaves a mark when it runs, then takes a minute.
      const marked = path.join(root, 'marking-rg');
      const mark = path.join(root, 'ran');
      fs.writeFileSync(marked, `#!/bin/sh\ntouch '${mark}'\nexec sleep 60\n`, { mode: 0o755 });
      try {
        const started = Date.now();
        const out = await runRipgrep({ program: marked, root, pattern: fixed('kyoto'), rules, maxFileSize: 1e6, maxLines: 100, maxBytes: 1e6, signal: AbortSignal.abort(), output });
        assert.deepEqual(out, { error: 'cancelled' });
        assert.ok(Date.now() - started < 5000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(fs.existsSync(mark), false, 'the program never ran');
      } finally {
        fs.rmSync(marked);
        fs.rmSync(mark, { force: true });
      }
    });

    it(`is stopped once its output passes the byte limit, without waiting for the end of the run (output to a ${output})`, async () => {
      // A "ripgrep" that prints 200 KB of matching lines, then takes a minute to finish.
      const slow = path.join(root, 'slow-rg');
      fs.writeFileSync(slow, "#!/bin/sh\nyes './a.md:1:kyoto' | head -c 200000\nexec sleep 60\n", { mode: 0o755 });
      try {
        const started = Date.now();
        const out = await runRipgrep({ program: slow, root, pattern: fixed('kyoto'), rules, maxFileSize: 1e6, maxLines: 1e9, maxBytes: 64 * 1024, output });
        assert.deepEqual(out, { overflow: true });
        assert.ok(Date.now() - started < 20_000, 'stopped, not waited for');
        assert.deepEqual(leftovers(), []);
      } finally {
        fs.rmSync(slow);
      }
    });
  }

  it('does not enter folders that **/NAME/** exclude globs prune, and enters all others', async () => {
    const files: Record<string, string> = {
      'node_modules/pkg/readme.md': 'kyoto',
      'deep/node_modules/x.md': 'kyoto',
      '.git/notes.md': 'kyoto',
      'node_modules.md': 'kyoto, a note named like the folder',
      'build/out.md': 'kyoto',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), `${text}\n`);
    }
    try {
      const exclude = compileGlobs(['**/node_modules/**', '**/.git/**', 'build/**', '**/*.tmp/**']);
      const args = ripgrepArgs(fixed('kyoto'), { showHiddenFiles: true, extensions: ['.md'], exclude }, 1000);
      assert.deepEqual(args.filter((_arg, i) => args[i - 1] === '--glob'), ['!**/node_modules', '!**/.git'], 'only the plain folder globs are handed over');
      const out = await runRipgrep({ program: testRipgrep(), root, pattern: fixed('kyoto'), rules: { showHiddenFiles: true, extensions: ['.md'], exclude }, maxFileSize: 1000, maxLines: 100, maxBytes: 1e6 });
      assert.ok('lines' in out, JSON.stringify(out));
      const printed = Buffer.from(out.lines).toString('utf8').split('\n').filter(Boolean).map((l) => l.split('\0')[0]).sort();
      // build/ is excluded by a glob ripgrep is not given: the worker's rules drop it.
      assert.deepEqual(printed, ['./a.md', './a.md', './build/out.md', './node_modules.md']);
    } finally {
      for (const top of ['node_modules', 'deep', '.git', 'node_modules.md', 'build']) fs.rmSync(path.join(root, top), { recursive: true, force: true });
    }
  });

  it('runs once more through a pipe when writing to its temporary file fails', async () => {
    // A "ripgrep" that cannot write to a file (as in a full temporary folder) and works through a pipe.
    const picky = path.join(root, 'picky-rg');
    fs.writeFileSync(picky, `#!/bin/sh\nif [ -f /dev/stdout ]; then echo 'rg: No space left on device (os error 28)' >&2; exit 2; fi\nexec '${testRipgrep()}' "$@"\n`, { mode: 0o755 });
    try {
      const out = await runRipgrep({ program: picky, root, pattern: fixed('kyoto'), rules, maxFileSize: 1000, maxLines: 100, maxBytes: 1e6 });
      assert.ok('lines' in out, JSON.stringify(out));
      assert.equal(Buffer.from(out.lines).toString('utf8').split('\n').filter(Boolean).length, 3);
      // A failure through the pipe as well is the first run's error.
      const invalid = await runRipgrep({ program: picky, root, pattern: { fixed: false, patterns: ['(unclosed'] }, rules, maxFileSize: 1e6, maxLines: 100, maxBytes: 1e6 });
      assert.ok('error' in invalid && /No space left/.test(invalid.error), JSON.stringify(invalid));
      assert.deepEqual(leftovers(), []);
    } finally {
      fs.rmSync(picky);
    }
  });

  it('searches the folder, not its standard input, and takes patterns that look like options', async () => {
    fs.writeFileSync(path.join(root, 'dash.md'), '--version\n');
    try {
      assert.ok(ripgrepArgs(fixed('x'), rules, 10).slice(-2).join(' ') === '-- .');
      const out = await runRipgrep({ program: testRipgrep(), root, pattern: fixed('--version'), rules, maxFileSize: 1000, maxLines: 100, maxBytes: 1e6 });
      assert.ok('lines' in out && Buffer.from(out.lines).toString().startsWith('./dash.md\x00'), JSON.stringify(out));
    } finally {
      fs.rmSync(path.join(root, 'dash.md'));
    }
  });

  it('prints, for a regular expression, only the lines holding its texts in order', async () => {
    fs.writeFileSync(path.join(root, 'order.md'), 'TODO: call about the deadline\ndeadline first, then TODO\nFIXME deadline\nno texts\n');
    try {
      const use = new RipgrepUse(testRipgrep());
      const q = { query: '\\b(TODO|FIXME)\\b.*deadline', regex: true, caseSensitive: true, wholeWord: false, maxResults: 100 };
      const out = await use.lines(root, { ...rules, exclude: [] }, q, 1e6);
      assert.ok(out, 'ripgrep was used');
      const printed = Buffer.from(out).toString('utf8').split('\n').filter(Boolean).sort();
      assert.deepEqual(printed, ['./order.md\x001:TODO: call about the deadline', './order.md\x003:FIXME deadline']);
    } finally {
      fs.rmSync(path.join(root, 'order.md'));
    }
  });

});
