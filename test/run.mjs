// `npm test`: build, typecheck, lint, unit tests, extension-host tests; ends with a line per step, a line per failing
// test, and one "N passed, N failed" line.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { failureLines } from './failures.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/**
 * A test step that has reported its results but does not end (a child process, server or timer a test left
 * running) is stopped this long after, and fails: it would otherwise hold the run until CI gives up on it.
 */
const EXIT_GRACE_MS = 60_000;

const steps = [
  { name: 'build', cmd: process.execPath, args: ['esbuild.mjs'] },
  { name: 'typecheck', cmd: bin('tsc'), args: ['--noEmit', '-p', 'tsconfig.json'] },
  { name: 'lint', cmd: bin('eslint'), args: ['.'] },
  { name: 'unit', cmd: bin('mocha'), args: [], counts: true },
  { name: 'integration', cmd: process.execPath, args: ['test/host/run.mjs'], counts: true },
];

function runStep(step) {
  return new Promise((resolve) => {
    const started = Date.now();
    console.log(`\n=== ${step.name} ===`);
    const child = spawn(step.cmd, step.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let out = '';
    let lingering;
    let stalled = false;
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
      if (step.counts && !lingering && /\d+ passing/.test(out.replace(ANSI, ''))) {
        lingering = setTimeout(() => {
          stalled = true;
          console.error(`\n${step.name}: the tests reported their results but the process did not end within ${EXIT_GRACE_MS / 1000} s (something a test started is still running); stopped.`);
          child.kill();
        }, EXIT_GRACE_MS);
      }
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (exitCode) => {
      clearTimeout(lingering);
      const code = stalled ? 1 : exitCode;
      const plain = out.replace(ANSI, '');
      const num = (re) => Number(plain.match(re)?.[1] ?? 0);
      resolve({
        ...step,
        code,
        seconds: (Date.now() - started) / 1000,
        passed: num(/(\d+) passing/),
        failed: num(/(\d+) failing/),
        pending: num(/(\d+) pending/),
        failures: step.counts ? failureLines(plain) : [],
      });
    });
  });
}

const results = [];
for (const step of steps) {
  const r = await runStep(step);
  results.push(r);
  // Later steps need the build; a type or lint error should not hide test results, so only a failed build stops.
  if (r.code !== 0 && step.name === 'build') break;
}

console.log('\n=== summary ===');
for (const r of results) {
  const counts = r.counts ? ` — ${r.passed} passed, ${r.failed} failed${r.pending ? `, ${r.pending} pending` : ''}` : '';
  console.log(`${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name.padEnd(12)} ${r.seconds.toFixed(1).padStart(6)} s${counts}`);
}
// The failing tests again, one line each, so that the last lines of the output say which failed and why.
const MAX_LISTED = 12;
for (const r of results) {
  for (const line of r.failures?.slice(0, MAX_LISTED) ?? []) console.log(`failed in ${r.name}: ${line}`);
  if (r.failures?.length > MAX_LISTED) console.log(`failed in ${r.name}: … and ${r.failures.length - MAX_LISTED} more (see "${r.name}" above)`);
}
const passed = results.reduce((n, r) => n + r.passed, 0);
// A step that failed without reporting a failing test (crash, type error, lint error) counts as one failure.
const failed = results.reduce((n, r) => n + (r.failed || (r.code !== 0 ? 1 : 0)), 0);
const ok = results.length === steps.length && results.every((r) => r.code === 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
