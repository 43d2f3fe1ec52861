// The end of `npm test`'s output names each failing test and its error, one line each (test/failures.mjs): a CI log
// that keeps only its last lines still says what failed.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

/** Runs mocha's spec reporter on one test file and returns what it printed, colours removed. */
function mochaOutput(source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-summary-'));
  try {
    const file = path.join(dir, 'sample.test.js');
    fs.writeFileSync(file, source);
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--reporter', 'spec', '--colors', file], {
      cwd: dir,
      encoding: 'utf8',
    });
    return (r.stdout + r.stderr).replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('npm test summary: failing tests', function () {
  let failureLines: (plain: string) => string[];
  before(async () => {
    ({ failureLines } = await import(path.join(root, 'test', 'failures.mjs')));
  });

  it('gives each failure as "N) suite › test — error", with an assertion\'s values and a hook\'s name', function () {
    const out = mochaOutput(`
      const assert = require('node:assert/strict');
      describe('outer suite', function () {
        describe('inner', function () {
          it('compares numbers', function () { assert.equal(1, 2); });
          it('passes', function () {});
        });
        it('reads a property', function () { null.x; });
        it('waits', function (done) { this.timeout(20); });
        afterEach(function () { if (this.currentTest.title === 'passes') throw new Error('hook broke'); });
      });
    `);
    const lines = failureLines(out);
    assert.equal(lines.length, 4, lines.join('\n'));
    assert.equal(lines[0], "1) outer suite › reads a property — TypeError: Cannot read properties of null (reading 'x')");
    assert.match(lines[1]!, /^2\) outer suite › waits — Error: Timeout of 20ms exceeded\. .*\(.*sample\.test\.js\)$/);
    assert.equal(lines[2], '3) outer suite › inner › compares numbers — AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 1 !== 2');
    assert.equal(lines[3], '4) outer suite › "after each" hook for "passes" — Error: hook broke');
  });

  it('cuts a long error to one line of at most 320 characters, and gives nothing when every test passed', function () {
    const failing = mochaOutput(`it('throws', function () { throw new Error('${'y'.repeat(1000)}'); });`);
    const [line, ...rest] = failureLines(failing);
    assert.deepEqual(rest, []);
    assert.equal(line!.length, 320);
    assert.ok(line!.startsWith('1) throws — Error: yyy') && line!.endsWith('y…'), line);
    assert.deepEqual(failureLines(mochaOutput(`it('passes', function () {});`)), []);
  });
});
