// Crash safety: SIGKILL the real server while it rewrites and creates notes in a loop; each is whole or absent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverJs } from './raw-server';

const KILLS = 200;
const WORKERS = 4;
/** Writes kept in flight: each reply sends the next one, so the server always has work queued when it is killed. */
const IN_FLIGHT = 20;
/** Upper bound of writes in one run (versions of one run are numbered within it). */
const WRITES_PER_RUN = 1000;

/** One whole version of the note: its number at both ends and a fixed size, so any tear or mix shows. */
function version(n: number): string {
  const line = `line of version ${n} `.padEnd(63, '.') + '\n';
  return `BEGIN ${n}\n${line.repeat(500)}END ${n}\n`;
}

function assertWhole(content: string, where: string): number {
  const m = /^BEGIN (\d+)\n/.exec(content);
  assert.ok(m, `${where}: the note is empty or torn at the start (${content.length} bytes)`);
  const n = Number(m[1]);
  assert.equal(content, version(n), `${where}: the note is torn or mixed (version ${n}, ${content.length} bytes)`);
  return n;
}

interface RunOutcome {
  repliesBeforeKill: number;
  sentBeforeKill: number;
}

/** Starts the server, keeps IN_FLIGHT writes of new versions pipelined, and kills it at a random moment of the loop. */
function runAndKill(workspace: string, home: string, firstVersion: number): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverJs, '--workspace', workspace, '--config', path.join(home, 'config.json')], {
      env: { ...process.env, HOME: home },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdin.on('error', () => undefined);
    let replies = 0;
    let repliesAtKill = -1;
    let pending = '';
    let sendMore = (): void => undefined;
    // Kill after a random number of completed writes (0 = while the first ones are under way), plus a random delay.
    const killAfter = Math.floor(Math.random() * (IN_FLIGHT / 2));
    const kill = () => {
      if (repliesAtKill >= 0) return;
      repliesAtKill = replies;
      child.kill('SIGKILL');
    };
    const scheduleKill = () => {
      if (Math.random() < 0.5) setImmediate(kill);
      else setTimeout(kill, Math.random() * 4);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) !== -1) {
        const msg = JSON.parse(pending.slice(0, nl)) as { result?: { isError?: boolean; content?: Array<{ text: string }> } };
        pending = pending.slice(nl + 1);
        if (msg.result?.isError) reject(new Error(`write failed: ${msg.result.content?.[0]?.text}`));
        replies++;
        if (replies === killAfter) scheduleKill();
        sendMore();
      }
    });
    child.on('exit', () => resolve({ repliesBeforeKill: repliesAtKill, sentBeforeKill: sent }));
    if (killAfter === 0) scheduleKill();
    let sent = 0;
    const request = (): string => {
      // Rewrites of one note alternate with creations of new ones: both must be all or nothing.
      const i = sent++;
      const n = firstVersion + i;
      const [name, args] =
        i % 2 === 0 ? ['write_file', { path: 'notes/journal.md', content: version(n) }] : ['create_file', { path: `notes/new-${n}.md`, content: version(n) }];
      return `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: args } })}\n`;
    };
    sendMore = () => {
      if (repliesAtKill < 0 && sent < WRITES_PER_RUN) child.stdin.write(request());
    };
    child.stdin.write(Array.from({ length: IN_FLIGHT }, request).join(''));
  });
}

describe('crash safety over real stdio', function () {
  // 200 kills take about a minute on a loaded machine; the work is bounded by KILLS, the budget leaves room.
  this.timeout(300_000);
  let tmp: string;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-kill-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(`leaves every note whole (old or new version, never torn or empty) after ${KILLS} SIGKILLs during a write and create loop`, async () => {
    const outcomes: RunOutcome[] = [];
    const seen = new Set<number>();
    // allSettled: a failing worker must not leave the others spawning servers into a folder being removed.
    const settled = await Promise.allSettled(
      Array.from({ length: WORKERS }, async (_, w) => {
        const workspace = path.join(tmp, `ws${w}`);
        // One home for all workers, so the server's start-up code cache is shared.
        const home = path.join(tmp, 'home');
        fs.mkdirSync(path.join(workspace, 'notes'), { recursive: true });
        fs.mkdirSync(home, { recursive: true });
        const note = path.join(workspace, 'notes', 'journal.md');
        fs.writeFileSync(note, version(0), { mode: 0o640 });
        for (let k = 0; k < KILLS / WORKERS; k++) {
          const firstVersion = 1 + k * WRITES_PER_RUN;
          outcomes.push(await runAndKill(workspace, home, firstVersion));
          const n = assertWhole(fs.readFileSync(note, 'utf8'), `worker ${w}, kill ${k}`);
          for (const f of fs.readdirSync(path.dirname(note)).filter((f) => /^new-\d+\.md$/.test(f))) {
            assert.equal(assertWhole(fs.readFileSync(path.join(path.dirname(note), f), 'utf8'), `${f}, worker ${w}, kill ${k}`), Number(/\d+/.exec(f)?.[0]));
          }
          assert.ok(n === 0 || n < firstVersion + WRITES_PER_RUN, 'only versions that were written');
          seen.add(n);
          assert.equal(fs.statSync(note).mode & 0o777, 0o640, 'the file keeps its permissions');
        }
      }),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    assert.equal(outcomes.length, KILLS);
    const midLoop = outcomes.filter((o) => o.repliesBeforeKill >= 0 && o.repliesBeforeKill < o.sentBeforeKill).length;
    assert.ok(midLoop >= KILLS * 0.9, `${midLoop} of ${KILLS} kills landed while writes were still queued`);
    assert.ok(seen.size > WORKERS, 'the loop really replaced the note between kills');
  });
});
