// Start-up snapshots (src/core/startup-snapshot.ts, server/snapshot-entry.ts): made with this test's own Node from
// the built dist/, a server started from one answers as a server started the usual way, with what is its process's
// own (arguments, environment, random keys) taken from the process and not from the snapshot.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildStartupSnapshot,
  DEFAULT_STARTS,
  snapshotState,
  StartError,
  startsToCompare,
  timeHandshake,
  usableSnapshot,
  SNAPSHOT_ENTRY,
  type BuildResult,
  type StartCommand,
} from '../../../src/core/startup-snapshot';
import { SnapshotMaker } from '../../../src/vscode/mcp/snapshot-maker';
import { callOk, fixture, serverJs, startServer, type Harness } from './harness';

const dist = path.dirname(serverJs);

/** A copy of the built server (loader, bundle, worker, builder) to change without touching dist/. */
function copyDist(into: string): string {
  const copy = path.join(into, 'dist');
  fs.mkdirSync(copy, { recursive: true });
  for (const file of ['server.js', 'server-core.js', 'note-worker.js', SNAPSHOT_ENTRY]) fs.copyFileSync(path.join(dist, file), path.join(copy, file));
  return copy;
}

describe('start-up snapshots of the server', function () {
  this.timeout(120_000);
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  let blob: string;

  before(async () => {
    assert.ok(fs.existsSync(path.join(dist, SNAPSHOT_ENTRY)), `dist/${SNAPSHOT_ENTRY} is built (npm run build)`);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-snapshot-'));
    // Kept without timing it against the code cache (NOTESAPP_SNAPSHOT_STARTS=0), so that what a server started from
    // one does is tested on every machine; the timing is tested below.
    env = { ...process.env, NOTESAPP_CACHE_DIR: path.join(tmp, 'cache'), NOTESAPP_NO_CODE_CACHE: '', NOTESAPP_SNAPSHOT_STARTS: '0' };
    assert.equal(snapshotState(dist, process.execPath, env).state, 'missing');
    const made = await buildStartupSnapshot({ distDir: dist, runtime: process.execPath, env });
    assert.ok(made.ok, `made: ${JSON.stringify(made)}`);
    blob = made.blob;
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is made for this runtime and this bundle, and is then ready', () => {
    assert.deepEqual(snapshotState(dist, process.execPath, env), { state: 'ready', blob });
    assert.equal(usableSnapshot(dist, process.execPath, env), blob);
    assert.ok(fs.statSync(blob).size > 1_000_000, 'a heap image');
    assert.deepEqual(
      fs.readdirSync(path.dirname(blob)).filter((f) => f.endsWith('.tmp')),
      [],
      'nothing half-made is left',
    );
  });

  it('starts a server that answers tools as the usual start does', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['list_files', {}],
      ['search_files', { query: 'search' }],
      ['search_files', { query: '\\[[x ]\\] \\w+', regex: true }],
      ['read_file', { path: 'ideas.md' }],
      ['get_note_metadata', { path: 'index.md' }],
    ];
    // Both on one copy of the fixture (the files' times are part of the answers), open at once.
    const workspace = fs.mkdtempSync(path.join(tmp, 'fixture-'));
    fs.cpSync(fixture, workspace, { recursive: true });
    const servers = [
      await startServer({ workspace, env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache') } }),
      await startServer({ nodeArgs: ['--snapshot-blob', blob], workspace, env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache') } }),
    ];
    const answers = async (h: Harness) => {
      const tools = (await h.client.listTools()).tools.map((t) => t.name);
      const results = [];
      for (const [name, args] of calls) results.push(await callOk(h.client, name, args));
      return { tools, results, instructions: h.client.getInstructions() };
    };
    let usual;
    let fromSnapshot;
    try {
      usual = await answers(servers[0]);
      fromSnapshot = await answers(servers[1]);
    } finally {
      for (const h of servers) await h.close();
    }
    assert.deepEqual(fromSnapshot, usual);
  });

  it('writes its log in the home folder of the process it starts, not of the one that made the snapshot', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'home-'));
    const h: Harness = await startServer({ nodeArgs: ['--snapshot-blob', blob], env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache'), HOME: home, USERPROFILE: home } });
    try {
      await h.client.listTools();
      assert.match(fs.readFileSync(path.join(home, '.notesapp', 'logs', 'mcp-server.log'), 'utf8'), /serving .* over stdio/);
    } finally {
      await h.close();
    }
  });

  it('serves the folder NOTESAPP_WORKSPACE names in the started process', async () => {
    const other = fs.mkdtempSync(path.join(tmp, 'ws-'));
    fs.writeFileSync(path.join(other, 'only-here.md'), '# only here\n');
    const h = await startServer({ nodeArgs: ['--snapshot-blob', blob], workspaceArgs: () => [], env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache'), NOTESAPP_WORKSPACE: other } });
    try {
      const listed = await callOk<{ files: string[] }>(h.client, 'list_files', {});
      assert.deepEqual(listed.files, ['only-here.md']);
    } finally {
      await h.close();
    }
  });

  it('gives each process its own cursor key: a cursor is taken by the server that gave it and refused by another', async () => {
    const workspace = fs.mkdtempSync(path.join(tmp, 'pages-'));
    fs.mkdirSync(path.join(workspace, 'n'));
    for (let i = 0; i < 2100; i++) fs.writeFileSync(path.join(workspace, 'n', `${String(i).padStart(4, '0')}.md`), `# ${i}\n`);
    const a = await startServer({ nodeArgs: ['--snapshot-blob', blob], workspace, env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache') } });
    const copy = fs.mkdtempSync(path.join(tmp, 'pages-copy-'));
    fs.cpSync(workspace, copy, { recursive: true });
    const b = await startServer({ nodeArgs: ['--snapshot-blob', blob], workspace: copy, env: { NOTESAPP_CACHE_DIR: path.join(tmp, 'cache') } });
    try {
      const cursor = (await a.client.listResources()).nextCursor;
      assert.ok(cursor, 'a second page');
      const second = await a.client.listResources({ cursor });
      assert.equal(second.resources[0].name, 'n/2000.md');
      await assert.rejects(b.client.listResources({ cursor }), (err: Error & { code?: number }) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /not a nextCursor this server gave/);
        return true;
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('is stale once the bundle changes, and missing for another runtime', () => {
    const copy = copyDist(fs.mkdtempSync(path.join(tmp, 'stale-')));
    const state = () => snapshotState(copy, process.execPath, env).state;
    assert.equal(state(), 'missing', 'nothing made for this folder yet');
    // A record as if made from this copy, then the bundle changes.
    return buildStartupSnapshot({ distDir: copy, runtime: process.execPath, env }).then((made) => {
      assert.ok(made.ok, JSON.stringify(made));
      assert.equal(state(), 'ready');
      fs.appendFileSync(path.join(copy, 'server-core.js'), '\n');
      assert.equal(state(), 'stale');
      assert.equal(usableSnapshot(copy, process.execPath, env), undefined);
      const otherRuntime = path.join(tmp, 'node-copy');
      fs.copyFileSync(process.execPath, otherRuntime);
      assert.equal(snapshotState(dist, otherRuntime, env).state, 'missing');
    });
  });

  it('refuses a bundle that takes a value from its process while it loads, naming it', async () => {
    for (const [line, named] of [
      ['const startedIn = process.env.NOTESAPP_SOMETHING;', /process\.env\.NOTESAPP_SOMETHING/],
      ["const key = require('node:crypto').randomUUID();", /crypto\.randomUUID\(\)/],
      ["const home = require('node:os').homedir();", /os\.homedir\(\)/],
      ["const { Worker } = require('node:worker_threads');", /loaded node:worker_threads as it loaded/],
    ] as const) {
      const copy = copyDist(fs.mkdtempSync(path.join(tmp, 'taking-')));
      const core = path.join(copy, 'server-core.js');
      fs.writeFileSync(core, `${line}\n${fs.readFileSync(core, 'utf8')}`);
      const made = await buildStartupSnapshot({ distDir: copy, runtime: process.execPath, env });
      assert.equal(made.ok, false, line);
      assert.match((made as { reason: string }).reason, named);
      const state = snapshotState(copy, process.execPath, env);
      assert.equal(state.state, 'failed', 'remembered: not tried again for this bundle');
    }
  });

  it('remembers a runtime that cannot make one, and says why', async () => {
    const fake = path.join(tmp, 'not-node.sh');
    fs.writeFileSync(fake, '#!/bin/sh\necho "bad option: --snapshot-blob" >&2\nexit 9\n', { mode: 0o755 });
    const made = await buildStartupSnapshot({ distDir: dist, runtime: fake, env });
    assert.deepEqual(made, { ok: false, reason: 'the runtime could not make one: bad option: --snapshot-blob (exit code 9)' });
    const state = snapshotState(dist, fake, env);
    assert.equal(state.state, 'failed');
    assert.equal((state as { reason: string }).reason, made.reason);
    assert.equal(usableSnapshot(dist, fake, env), undefined);
  });

  it('tries again another time after a run stopped for taking too long, and remembers a runtime that crashes', async () => {
    const slow = path.join(tmp, 'slow-node.sh');
    fs.writeFileSync(slow, '#!/bin/sh\nexec sleep 5\n', { mode: 0o755 });
    const made = await buildStartupSnapshot({ distDir: dist, runtime: slow, env, timeoutMs: 200 });
    assert.deepEqual(made, { ok: false, reason: 'the runtime could not make one: (stopped after 200 ms) (killed by SIGKILL)' });
    assert.equal(snapshotState(dist, slow, env).state, 'missing', 'not remembered');
    const crashing = path.join(tmp, 'crashing-node.sh');
    fs.writeFileSync(crashing, '#!/bin/sh\nkill -SEGV $$\n', { mode: 0o755 });
    const crashed = await buildStartupSnapshot({ distDir: dist, runtime: crashing, env });
    assert.deepEqual(crashed, { ok: false, reason: 'the runtime could not make one: killed by SIGSEGV' });
    assert.equal(snapshotState(dist, crashing, env).state, 'failed', 'remembered');
  });

  it('makes none without a cache folder (NOTESAPP_NO_CODE_CACHE)', async () => {
    const off = { ...env, NOTESAPP_NO_CODE_CACHE: '1' };
    assert.equal(snapshotState(dist, process.execPath, off).state, 'off');
    assert.deepEqual(await buildStartupSnapshot({ distDir: dist, runtime: process.execPath, env: off }), { ok: false, reason: 'NOTESAPP_NO_CODE_CACHE is set' });
  });

  it('the builder, run as a plain script, refuses instead of starting a server', () => {
    const r = spawnSync(process.execPath, [path.join(dist, SNAPSHOT_ENTRY)], { encoding: 'utf8', input: '' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /Run this as `node --snapshot-blob FILE --build-snapshot server-snapshot\.js`/);
  });
});

describe('a start-up snapshot is kept only when servers start sooner from it', function () {
  this.timeout(120_000);
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  let home: string;

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-compare-'));
    home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    env = { ...process.env, HOME: home, USERPROFILE: home, NOTESAPP_CACHE_DIR: path.join(tmp, 'cache'), NOTESAPP_NO_CODE_CACHE: '' };
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** The folders compareStarts makes in the system's temporary folder (removed once it is done). */
  const scratchFolders = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('notesapp-starts-'));

  it('times real servers from the snapshot and from the code cache, and keeps it only when it answered sooner', async () => {
    const before = scratchFolders();
    const made = await buildStartupSnapshot({ distDir: dist, runtime: process.execPath, env, starts: 2 });
    const times = made.startMs;
    assert.ok(times, `timed: ${JSON.stringify(made)}`);
    assert.equal(times.starts, 2);
    for (const ms of [times.snapshot, times.codeCache]) assert.ok(ms > 0 && ms < 60_000, `a start's time: ${ms}`);
    const state = snapshotState(dist, process.execPath, env);
    if (times.snapshot < times.codeCache) {
      assert.ok(made.ok, JSON.stringify(made));
      assert.deepEqual(state, { state: 'ready', blob: made.blob });
    } else {
      assert.equal(made.ok, false);
      assert.equal(state.state, 'slower');
      assert.equal(usableSnapshot(dist, process.execPath, env), undefined);
    }
    // Nothing of the user's is touched: their home has no log, their cache folder holds the snapshot's files only
    // (no code cache, listing hint or kept configuration of the servers timed), and no scratch folder is left.
    assert.deepEqual(fs.readdirSync(home), []);
    const kept = fs.readdirSync(env.NOTESAPP_CACHE_DIR!).map((f) => f.replace(/[0-9a-f]{8}/, 'H')).sort();
    assert.deepEqual(kept, made.ok ? ['startup-H.blob', 'startup-H.json'] : ['startup-H.json']);
    assert.deepEqual(scratchFolders(), before);
  });

  /** Builds with starts timed by `times` (from the snapshot, from the code cache), recording each start asked for. */
  const buildTimed = async (distDir: string, times: (start: StartCommand) => number | Error) => {
    const asked: StartCommand[] = [];
    const made = await buildStartupSnapshot({
      distDir,
      runtime: process.execPath,
      env,
      starts: 3,
      timeStart: async (start) => {
        asked.push(start);
        const t = times(start);
        if (t instanceof Error) throw t;
        return t;
      },
    });
    return { made, asked };
  };

  it('starts each way in turn, after one start of each that makes the code cache, in a folder of their own', async () => {
    const copy = copyDist(tmp);
    const { made, asked } = await buildTimed(copy, (s) => (s.fromSnapshot ? 100 : 120));
    assert.ok(made.ok, JSON.stringify(made));
    assert.deepEqual(made.startMs, { snapshot: 100, codeCache: 120, starts: 3 });
    // Code cache first in the untimed round, then snapshot first, code cache first, snapshot first.
    assert.deepEqual(
      asked.map((s) => `${s.fromSnapshot ? 'snapshot' : 'code cache'}${s.graceful ? ' (ended through its input)' : ''}`),
      ['code cache (ended through its input)', 'snapshot (ended through its input)', 'snapshot', 'code cache', 'code cache', 'snapshot', 'snapshot', 'code cache'],
    );
    const [first] = asked;
    const notes = first.args[first.args.indexOf('--workspace') + 1];
    assert.equal(first.cwd, notes);
    assert.deepEqual(first.args, [path.join(copy, 'server.js'), '--workspace', notes, '--config', path.join(path.dirname(notes), 'config.json')]);
    assert.equal(path.dirname(notes), path.dirname(first.env.HOME!), 'its home is in the same scratch folder');
    assert.equal(first.env.NOTESAPP_CACHE_DIR, path.join(path.dirname(notes), 'cache'));
    assert.equal(fs.existsSync(path.dirname(notes)), false, 'removed afterwards');
    const fromSnapshot = asked.find((s) => s.fromSnapshot)!;
    assert.deepEqual(fromSnapshot.args.slice(0, 1), ['--snapshot-blob']);
    assert.deepEqual(fromSnapshot.args.slice(2), first.args);
    assert.deepEqual(snapshotState(copy, process.execPath, env), { state: 'ready', blob: made.blob });
    assert.ok(fs.statSync(made.blob).size > 1_000_000);
  });

  it('puts a slower one aside, says by how much, and does not make it again for this runtime and bundle', async () => {
    const copy = copyDist(tmp);
    // The median of each way's timed starts decides (the untimed first ones aside).
    const snapshotTimes = [500, 180, 150, 210];
    const codeCacheTimes = [900, 140, 145, 120];
    const { made } = await buildTimed(copy, (s) => (s.fromSnapshot ? snapshotTimes : codeCacheTimes).shift()!);
    const reason = 'servers started from it answered later than servers started from the code cache (180.0 ms against 140.0 ms to the first tools/list answer, medians of 3 starts each)';
    assert.deepEqual(made, { ok: false, reason, startMs: { snapshot: 180, codeCache: 140, starts: 3 } });
    const state = snapshotState(copy, process.execPath, env);
    assert.deepEqual(state, { state: 'slower', blob: (state as { blob: string }).blob, reason });
    assert.equal(usableSnapshot(copy, process.execPath, env), undefined);
    assert.deepEqual(fs.readdirSync(env.NOTESAPP_CACHE_DIR!).filter((f) => !f.endsWith('.json')), [], 'no blob is left, nor anything half-made');
    // The extension asks again at every activation: it is told, and nothing is made.
    const lines: string[] = [];
    const maker = new SnapshotMaker(copy, { info: (m) => lines.push(m), warn: (m) => lines.push(m) }, async () => assert.fail('made again'));
    const previous = process.env.NOTESAPP_CACHE_DIR;
    process.env.NOTESAPP_CACHE_DIR = env.NOTESAPP_CACHE_DIR;
    try {
      assert.equal(await maker.prepare(process.execPath), `no start-up snapshot for ${process.execPath}: ${reason}`);
    } finally {
      if (previous === undefined) delete process.env.NOTESAPP_CACHE_DIR;
      else process.env.NOTESAPP_CACHE_DIR = previous;
    }
    assert.deepEqual(lines, []);
  });

  it('remembers a snapshot its server does not start from; tries again after a start that took too long or failed either way', async () => {
    const failing = new StartError('it ended before it answered tools/list: Error: boom (exit code 1)');
    const a = copyDist(fs.mkdtempSync(path.join(tmp, 'a-')));
    const fromIt = await buildTimed(a, (s) => (s.fromSnapshot ? failing : 120));
    assert.deepEqual(fromIt.made, { ok: false, reason: `the server started from it did not answer: ${failing.message}` });
    const remembered = snapshotState(a, process.execPath, env);
    assert.equal(remembered.state, 'failed');
    assert.equal((remembered as { reason: string }).reason, `the server started from it did not answer: ${failing.message}`);
    assert.equal(fromIt.asked.length, 2, 'stopped at the first start that failed');

    const b = copyDist(fs.mkdtempSync(path.join(tmp, 'b-')));
    const slow = await buildTimed(b, (s) => (s.fromSnapshot ? new StartError('no tools/list answer within 60000 ms', true) : 120));
    assert.deepEqual(slow.made, { ok: false, reason: 'the server started from it did not answer: no tools/list answer within 60000 ms' });
    assert.equal(snapshotState(b, process.execPath, env).state, 'missing', 'not remembered');

    const c = copyDist(fs.mkdtempSync(path.join(tmp, 'c-')));
    const neither = await buildTimed(c, () => new StartError('it ended before it answered tools/list: exit code 1'));
    assert.deepEqual(neither.made, { ok: false, reason: "the server's starts could not be timed: it ended before it answered tools/list: exit code 1" });
    assert.equal(snapshotState(c, process.execPath, env).state, 'missing', 'not remembered');
    assert.deepEqual(fs.readdirSync(env.NOTESAPP_CACHE_DIR!).filter((f) => f.endsWith('.blob') || f.endsWith('.tmp')), [], 'no blob kept, nothing half-made');
  });

  it('takes the number of starts from NOTESAPP_SNAPSHOT_STARTS, 0 keeping the snapshot untimed', async () => {
    assert.equal(startsToCompare({}), DEFAULT_STARTS);
    assert.equal(startsToCompare({ NOTESAPP_SNAPSHOT_STARTS: '0' }), 0);
    assert.equal(startsToCompare({ NOTESAPP_SNAPSHOT_STARTS: ' 9 ' }), 9);
    assert.equal(startsToCompare({ NOTESAPP_SNAPSHOT_STARTS: '1000' }), 50);
    for (const text of ['', 'many', '-1', '2.5']) assert.equal(startsToCompare({ NOTESAPP_SNAPSHOT_STARTS: text }), DEFAULT_STARTS, text);
    const copy = copyDist(tmp);
    const made = await buildStartupSnapshot({ distDir: copy, runtime: process.execPath, env: { ...env, NOTESAPP_SNAPSHOT_STARTS: '0' }, timeStart: async () => assert.fail('timed') });
    assert.ok(made.ok, JSON.stringify(made));
    assert.equal(made.startMs, undefined);
  });

  describe('timing one start (timeHandshake)', () => {
    /** A start of `node -e script`. */
    const start = (script: string, timeoutMs = 10_000): StartCommand => ({ command: process.execPath, args: ['-e', script], env: process.env, cwd: tmp, fromSnapshot: false, graceful: false, timeoutMs });
    const answering = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.id === undefined) return;
        %ANSWER%
      });
      rl.on('close', () => process.exit(0));`;

    it('is spawn to the tools/list answer, which is asked for once initialize is answered, and ends the process', async () => {
      const script = answering.replace('%ANSWER%', `setTimeout(() => process.stdout.write('not json\\n' + JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { method: m.method } }) + '\\n'), m.id === 1 ? 200 : 0);`);
      const ms = await timeHandshake(start(script));
      assert.ok(ms >= 200, `${ms} ms includes the 200 ms the tools/list answer waited`);
      const graceful = await timeHandshake({ ...start(script), graceful: true });
      assert.ok(graceful >= 200);
    });

    it('says why a start could not be timed', async () => {
      await assert.rejects(timeHandshake(start(answering.replace('%ANSWER%', `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'no workspace' } }) + '\\n');`))), {
        message: 'it answered initialize with an error: no workspace',
      });
      await assert.rejects(timeHandshake(start(`console.error('Error: cannot start'); process.exit(3)`)), {
        message: 'it ended before it answered tools/list: cannot start (exit code 3)',
      });
      await assert.rejects(timeHandshake(start('setInterval(() => {}, 1000)', 300)), (err: StartError) => {
        assert.equal(err.message, 'no tools/list answer within 300 ms');
        assert.equal(err.timedOut, true);
        return true;
      });
      await assert.rejects(timeHandshake({ ...start(''), command: path.join(tmp, 'no-such-runtime') }), /ENOENT/);
    });
  });
});

describe('SnapshotMaker (the extension)', () => {
  const log = () => {
    const lines: string[] = [];
    return { lines, info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) };
  };
  // An empty cache folder of its own: the maker asks for the state of a snapshot there before it builds.
  let tmp: string;
  const previous = process.env.NOTESAPP_CACHE_DIR;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-maker-'));
    process.env.NOTESAPP_CACHE_DIR = path.join(tmp, 'cache');
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.NOTESAPP_CACHE_DIR;
    else process.env.NOTESAPP_CACHE_DIR = previous;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('makes the snapshot once for calls made while it is made, and logs what it made', async () => {
    const l = log();
    let builds = 0;
    const build = async (): Promise<BuildResult> => {
      builds++;
      await new Promise((r) => setTimeout(r, 20));
      return { ok: true, blob: '/cache/startup-x.blob', ms: 700 };
    };
    const maker = new SnapshotMaker(dist, l, build);
    const [a, b] = await Promise.all([maker.prepare('/usr/bin/node'), maker.prepare('/usr/bin/node')]);
    assert.equal(builds, 1);
    assert.equal(a, b);
    assert.deepEqual(l.lines, ['info Made a start-up snapshot of the MCP server for /usr/bin/node in 700 ms: the next start uses it (/cache/startup-x.blob)']);
  });

  it('says how much sooner its servers started, and tells of a slower one without a warning', async () => {
    const faster = log();
    const made = await new SnapshotMaker(dist, faster, async () => ({ ok: true, blob: '/cache/startup-x.blob', ms: 2900, startMs: { snapshot: 121.26, codeCache: 140, starts: 5 } })).prepare('/usr/bin/node');
    assert.equal(made, 'Made a start-up snapshot of the MCP server for /usr/bin/node in 2900 ms: the next start uses it (/cache/startup-x.blob); servers started from it answered in 121.3 ms against 140.0 ms from the code cache (medians of 5 starts each)');
    assert.deepEqual(faster.lines, [`info ${made}`]);
    const slower = log();
    const reason = 'servers started from it answered later than servers started from the code cache (180.0 ms against 140.0 ms to the first tools/list answer, medians of 5 starts each)';
    const said = await new SnapshotMaker(dist, slower, async () => ({ ok: false, reason, startMs: { snapshot: 180, codeCache: 140, starts: 5 } })).prepare('/usr/bin/node');
    assert.equal(said, `No start-up snapshot of the MCP server for /usr/bin/node: ${reason}. The server starts from its code cache.`);
    assert.deepEqual(slower.lines, [`info ${said}`]);
  });

  it("asks VS Code's own runtime to run as Node, and warns with the reason when it cannot make one", async () => {
    const l = log();
    const seen: unknown[] = [];
    const maker = new SnapshotMaker(dist, l, async (o) => {
      seen.push(o.runtimeEnv);
      return { ok: false, reason: 'the runtime could not make one: bad option (exit code 9)' };
    });
    const said = await maker.prepare(undefined);
    assert.deepEqual(seen, [{ ELECTRON_RUN_AS_NODE: '1' }]);
    assert.equal(said, `No start-up snapshot of the MCP server for ${process.execPath}: the runtime could not make one: bad option (exit code 9). The server starts from its code cache.`);
    assert.deepEqual(l.lines, [`warn ${said}`]);
  });
});
