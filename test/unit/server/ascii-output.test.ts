// Every bundle in dist/ is pure ASCII (server/ascii-output.mjs): esbuild leaves regular expression literals as they
// are in the source, and one character outside ASCII makes V8 keep the whole 1.3 MB server bundle at two bytes a
// character and Node decode it slowly. Escaping must not change what any expression matches.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module without types (the build script's plugin)
import { asciiOnly, asciiOutput, escapeRegexLiteral } from '../../../server/ascii-output.mjs';

const ASCII = /^[^\u0080-\uffff]*$/;
const SAMPLES = ['Wait…', 'Wait...', 'Stop!?…', '終わり。次', '「引用」！', "it’s", 'com¹', 'lpt³x', '😀 grin', '\u{1F600}', 'a\uD83Db', '‼', 'e\u0301', ''];

describe('server build: ASCII bundles', () => {
  it('escapes regular expression literals so that they match exactly what they matched', () => {
    const literals = [
      String.raw`/([?!])…/g`,
      String.raw`/[.!?…:;,。！？‼⁇⁈⁉：；，、][\p{Pe}\p{Pf}"'*_\x60)]*/gu`,
      String.raw`/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i`,
      String.raw`/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu`,
      '/😀+/u',
      '/😀/',
      '/[😀]/u',
      '/[😀]/',
      '/\\…/',
      '/\\\\…/',
      '/[^。]+/',
    ];
    for (const literal of literals) {
      const escaped = escapeRegexLiteral(literal);
      assert.match(escaped, ASCII, `${literal} -> ${escaped}`);
      const before = vm.runInNewContext(literal) as RegExp;
      const after = vm.runInNewContext(escaped) as RegExp;
      assert.equal(after.flags, before.flags);
      for (const sample of [...SAMPLES, '\\…', 'x\\…y']) {
        const hits = (re: RegExp) => (re.global ? [...sample.matchAll(re)].map((m) => [m.index, m[0]]) : [re.exec(sample)?.[0] ?? null]);
        assert.deepEqual(hits(after), hits(before), `${literal} on ${JSON.stringify(sample)}`);
      }
    }
  });

  it('leaves strings alone, escapes comments, and names the place of what it cannot escape', () => {
    const code = '#!/usr/bin/env node\n// café\nconst a = "\\u2026", b = /…/g; /* “quoted” */\nmodule.exports = a.replace(b, "...");\n';
    const ascii = asciiOnly(code, 'x.js');
    assert.match(ascii, ASCII);
    assert.equal(ascii, '#!/usr/bin/env node\n// caf\\u00e9\nconst a = "\\u2026", b = /\\u2026/g; /* \\u201cquoted\\u201d */\nmodule.exports = a.replace(b, "...");\n');
    assert.equal(asciiOnly('let x = 1;', 'y.js'), 'let x = 1;');
    assert.throws(() => asciiOnly('const s = String.raw`a\n…`;', 'raw.js'), /^Error: raw\.js:2:1: "…" outside a string, regular expression or comment/);
  });

  it('rewrites what esbuild writes, and fails the build on what cannot be escaped', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-ascii-'));
    try {
      fs.writeFileSync(path.join(dir, 'entry.js'), 'module.exports = (s) => s.replace(/([?!])…/g, "$1..").replace(/。/g, ". ");\n');
      await build({ entryPoints: [path.join(dir, 'entry.js')], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(dir, 'out.js'), logLevel: 'silent', plugins: [asciiOutput()] });
      const out = fs.readFileSync(path.join(dir, 'out.js'), 'utf8');
      assert.match(out, ASCII);
      const mod = { exports: {} as (s: string) => string };
      vm.runInNewContext(out, { module: mod });
      assert.equal(mod.exports('Really?…終わり。'), 'Really?..終わり. ');

      fs.writeFileSync(path.join(dir, 'raw.js'), 'module.exports = String.raw`…`;\n');
      await assert.rejects(
        build({ entryPoints: [path.join(dir, 'raw.js')], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(dir, 'raw-out.js'), logLevel: 'silent', plugins: [asciiOutput()] }),
        /raw-out\.js:\d+:\d+: "…" outside a string, regular expression or comment/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is what the bundles in dist/ are', () => {
    const dist = path.join(__dirname, '../../../dist');
    for (const file of ['extension.js', 'server.js', 'server-core.js', 'server-snapshot.js', 'note-worker.js']) {
      const code = fs.readFileSync(path.join(dist, file), 'utf8');
      const at = code.search(/[\u0080-\uffff]/);
      assert.equal(at, -1, `${file} holds ${JSON.stringify(code.slice(at, at + 1))} at ${at}: ${JSON.stringify(code.slice(Math.max(0, at - 40), at + 20))}`);
    }
  });
});
