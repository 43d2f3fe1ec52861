// `npm run bench`: measures the server against references run on the same machine in the same run, and reports
// medians and ratios. Options: --quick (fewer repetitions, smaller corpora), --only=a,b (sections: startup, search, list, tools, throughput, memory, activation), --readme
// (write the table into README.md). Results go to bench-results/latest.json.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fdir } from 'fdir';
import { tsImport } from 'tsx/esm/api';
import { ensureCorpus } from './corpus.mjs';
import { LineClient } from './line-client.mjs';
import { median, ms, percentile, ratio } from './stats.mjs';
import { timeInitialize } from './startup.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const builtServerJs = path.join(root, 'dist', 'server.js');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const want = (name) => !only || only.includes(name);
const REPS = quick ? 3 : 10;
/** Fresh servers started for each first-call row: the first call of a fresh server varies the most between starts. */
const FRESH = REPS;
// The quick search corpus is as large as the smallest workspace a server keeps its listing for (5 000 files, see
// EARLY_LISTING_MIN_FILES), so that the kept-listing rows run in a quick run too.
const SIZES = quick ? { search: 5000, list: 5000 } : { search: 10000, list: 50000 };

if (!fs.existsSync(builtServerJs)) {
  console.error('dist/server.js is missing: run `npm run build` first.');
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-bench-'));
// The server measured is built now, as the extension package ships it (minified), into the run's own folder with a
// code cache of its own: a rebuild during the run cannot change what is measured or invalidate the cache half-way.
const serverJs = path.join(tmp, 'dist', 'server.js');
const built = spawnSync(process.execPath, ['esbuild.mjs', `--server-out=${path.dirname(serverJs)}`], { cwd: root, encoding: 'utf8' });
if (built.status !== 0) {
  console.error(`building the server failed:\n${built.stderr}`);
  process.exit(2);
}
process.env.NOTESAPP_CACHE_DIR = path.join(tmp, 'code-cache');
const configPath = path.join(tmp, 'config.json');
// Results uncapped so that both sides return every match; the rate limit and timeout raised by the server's
// benchmark-only flags.
fs.writeFileSync(configPath, JSON.stringify({ search: { maxResults: 100_000 } }));
const serverFlags = ['--config', configPath, '--rate-limit', '1000000', '--timeout-ms', '600000'];
const results = { machine: machineInfo(), date: new Date().toISOString(), quick, sections: {} };
const rows = [];

function machineInfo() {
  return { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}`, pageFaultUs: pageFaultMicros() };
}

/**
 * What a process pays the first time it touches a page of memory (a minor page fault), in microseconds: the median
 * of 5 fresh Node processes, each touching 64 MiB it has just allocated, divided by the faults the kernel counted.
 * Every start, every new buffer and every heap that grows pays it: well under a microsecond on most machines, ten
 * times more or worse in some virtual machines, where it weighs on every row below (see the README).
 */
function pageFaultMicros() {
  const script = `
    const bytes = 64 * 2 ** 20;
    const before = process.resourceUsage().minorPageFault;
    const t = performance.now();
    const memory = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i += 4096) memory[i] = 1;
    const elapsed = performance.now() - t;
    const faults = process.resourceUsage().minorPageFault - before;
    process.stdout.write(String(faults > 0 ? (elapsed * 1000) / faults : NaN));
    process.exit(0);`;
  return median(Array.from({ length: 5 }, () => numberFromScript(script, 'page fault')));
}

function row(section, what, ours, reference, refName, target) {
  const r = ratio(ours, reference);
  rows.push({ section, what, ours, reference, refName, ratio: r, target });
}

/** The server's log line that says its index has read every note text it keeps (see waitIndexed). */
const INDEXED = /index: \d+ texts \(\d+ MiB\) kept by the text worker, ready/;

/**
 * A promise that resolves when the server writing to `stderr` logs that its index is complete: the texts it keeps
 * are read. Warm rows wait for it, so that they time a server that has finished its start-up work (as one a client
 * keeps running has), not one still reading the notes in the background on the same cores. The stream is drained
 * whatever happens, so that the server never blocks on a full pipe.
 */
function waitIndexed(stderr) {
  let tail = '';
  return new Promise((resolve) => {
    stderr.on('data', (chunk) => {
      if (tail === null) return;
      tail = (tail + chunk.toString()).slice(-4096);
      if (INDEXED.test(tail)) {
        tail = null;
        resolve();
      }
    });
  });
}

/** Fails after `ms` with what `what` is. */
function deadline(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * The environment every server of the run is started with, as an MCP client starts it: an SDK client (the SDK's
 * own, the Inspector) and Claude Desktop pass a server only a few variables of their own (getDefaultEnvironment():
 * HOME, LOGNAME, PATH, SHELL, TERM, USER) and those its configuration names, here this shell's NOTESAPP_ variables
 * (the run's code cache among them) and `extra`. This shell's whole environment can hold variables that slow every
 * Node start, such as NODE_EXTRA_CA_CERTS (Node then loads all root certificates before running any code): the
 * start-up section also times the servers with it, and says what it holds.
 */
function clientEnv(extra = {}) {
  const named = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('NOTESAPP_')));
  return { ...getDefaultEnvironment(), ...named, ...extra };
}

async function connect(workspace, extraEnv = {}, args = [serverJs, '--workspace', workspace, ...serverFlags]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: clientEnv(extraEnv),
    stderr: 'pipe',
  });
  const indexed = waitIndexed(transport.stderr);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  openClients.add(client);
  return { client, pid: transport.pid, indexed: () => deadline(indexed, 120_000, 'the index') };
}

async function lineClient(workspace, extraEnv = {}) {
  const lc = await LineClient.start(process.execPath, [serverJs, '--workspace', workspace, ...serverFlags], clientEnv(extraEnv), { stderr: 'pipe' });
  const indexed = waitIndexed(lc.child.stderr);
  lc.indexed = () => deadline(indexed, 120_000, 'the index');
  openLineClients.add(lc);
  return lc;
}
const openLineClients = new Set();

/** Clients a failed section left open are closed after it, so no server outlives the run. */
const openClients = new Set();
async function closeLeftovers() {
  for (const c of openClients) await c.close().catch(() => undefined);
  openClients.clear();
  for (const c of openLineClients) c.close();
  openLineClients.clear();
}

function structured(result) {
  if (result.isError) throw new Error(result.content?.[0]?.text ?? 'tool error');
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

// 1. spawn -> initialize
async function benchStartup() {
  const corpus = ensureCorpus(1000);
  const fsServer = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
  const ours = [serverJs, '--workspace', corpus.dir, '--config', configPath];
  // A large workspace (the list section's): given by --workspace, it is listed while the server loads by a worker
  // thread (the early listing), from the listing kept at the last start; the 1k corpus is under the 5 000 files that
  // takes.
  const large = ensureCorpus(SIZES.list);
  await keepListing(large.dir);
  const floorArgs = ['-e', 'process.stdin.once("data",()=>process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:0,result:{}})+"\\n"))'];
  // The start-up snapshot the extension makes for the runtime it starts the server with, made with the product's code,
  // and kept whichever start is sooner here (starts: 0): this section times both starts itself, with more of each
  // than the extension's own comparison before it keeps one.
  const { buildStartupSnapshot } = await tsImport('../../src/core/startup-snapshot.ts', import.meta.url);
  const snapshot = await buildStartupSnapshot({ distDir: path.dirname(serverJs), runtime: process.execPath, starts: 0 });
  if (!snapshot.ok) throw new Error(`no start-up snapshot: ${snapshot.reason}`);
  const subjects = [
    { name: 'notesapp (dist/server.js)', cmd: process.execPath, args: ours, env: clientEnv(), toolsList: true },
    { name: 'notesapp, start-up snapshot', cmd: process.execPath, args: ['--snapshot-blob', snapshot.blob, ...ours], env: clientEnv(), toolsList: true },
    { name: 'notesapp, large workspace', cmd: process.execPath, args: [serverJs, '--workspace', large.dir, '--config', configPath], env: clientEnv(), toolsList: true },
    // A first start ever, before the V8 code cache exists (or with it turned off).
    { name: 'notesapp, no code cache', cmd: process.execPath, args: ours, env: clientEnv({ NOTESAPP_NO_CODE_CACHE: '1' }) },
    fs.existsSync(fsServer) && { name: 'server-filesystem', cmd: process.execPath, args: [fsServer, corpus.dir], env: clientEnv() },
    { name: 'minimal SDK server', cmd: process.execPath, args: [path.join(root, 'test', 'bench', 'minimal-sdk-server.mjs')], env: clientEnv(), toolsList: true },
    { name: 'node, empty script (floor)', cmd: process.execPath, args: floorArgs, env: clientEnv() },
    // Started with this shell's whole environment instead (see clientEnv).
    { name: 'notesapp, whole environment', cmd: process.execPath, args: ours, env: process.env },
    { name: 'node, empty script (floor), whole environment', cmd: process.execPath, args: floorArgs, env: process.env },
  ].filter(Boolean);
  const times = Object.fromEntries(subjects.map((s) => [s.name, []]));
  const toolsListTimes = Object.fromEntries(subjects.filter((s) => s.toolsList).map((s) => [s.name, []]));
  // The page faults each process had taken when its initialize answer came (Linux): unlike times, they barely vary
  // between starts or with the machine's load, and each costs the page fault time in the table's head.
  const faults = Object.fromEntries(subjects.map((s) => [s.name, []]));
  for (let i = 0; i < REPS + 2; i++) {
    for (const s of subjects) {
      // Two warm-up rounds fill the OS file cache for every subject alike, and let each server finish its start-up
      // work (our code cache) as a server that a client keeps running would.
      const t = await timeInitialize(s.cmd, s.args, { env: s.env, lingerMs: i < 2 ? 1500 : 0, toolsList: s.toolsList });
      if (i < 2) continue;
      times[s.name].push(t.init);
      if (s.toolsList) toolsListTimes[s.name].push(t.toolsList);
      if (t.faults !== undefined) faults[s.name].push(t.faults);
    }
  }
  const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const faultMed = Object.fromEntries(Object.entries(faults).filter(([, v]) => v.length > 0).map(([k, v]) => [k, median(v)]));
  const listMed = Object.fromEntries(Object.entries(toolsListTimes).map(([k, v]) => [k, median(v)]));
  // The extension's own comparison, as it makes it before it keeps a snapshot (its default number of starts, in a
  // cache folder of its own): whether it would keep one on this machine.
  const compared = await buildStartupSnapshot({ distDir: path.dirname(serverJs), runtime: process.execPath, env: { ...process.env, NOTESAPP_CACHE_DIR: path.join(tmp, 'snapshot-comparison') } });
  if (!compared.startMs) throw new Error(`the extension's comparison of starts did not run: ${compared.ok ? 'no times' : compared.reason}`);
  const slowing = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'].filter((k) => process.env[k]);
  const whole = `this shell's whole environment (${slowing.length ? `${slowing.join(' and ')} set` : 'no NODE_EXTRA_CA_CERTS or NODE_OPTIONS'})`;
  results.sections.startup = {
    runs: REPS,
    medianMs: med,
    samples: times,
    snapshotMakeMs: snapshot.ms,
    extensionComparison: { kept: compared.ok, startMs: compared.startMs },
    toolsListMedianMs: listMed,
    toolsListSamples: toolsListTimes,
    initializeFaultsMedian: faultMed,
    clientEnvironment: Object.keys(clientEnv()).sort(),
    wholeEnvironmentSets: slowing,
  };
  row('startup', 'spawn → initialize', med['notesapp (dist/server.js)'], med['server-filesystem'], 'server-filesystem', '< 150 ms');
  // How the extension starts it on a runtime that made a snapshot (a Node binary; see src/core/startup-snapshot.ts).
  row('startup', 'spawn → initialize, from the start-up snapshot', med['notesapp, start-up snapshot'], med['server-filesystem'], 'server-filesystem', '< 150 ms');
  // What a client waits for before it can call anything: initialize, initialized, then tools/list.
  row('startup', 'spawn → first tools/list response', listMed['notesapp (dist/server.js)'], listMed['minimal SDK server'], 'minimal SDK server (one tool, unbundled)', '');
  row('startup', 'spawn → first tools/list response, from the start-up snapshot', listMed['notesapp, start-up snapshot'], listMed['minimal SDK server'], 'minimal SDK server (one tool, unbundled)', '');
  row(
    'startup',
    `the extension's comparison: spawn → first tools/list response from the snapshot (${compared.ok ? 'kept' : 'not kept'})`,
    compared.startMs.snapshot,
    compared.startMs.codeCache,
    `from the code cache (medians of ${compared.startMs.starts})`,
    '',
  );
  row('startup', `spawn → initialize, ${large.notes}-note workspace (listed early by a worker, from its kept listing)`, med['notesapp, large workspace'], med['notesapp (dist/server.js)'], `the same, ${corpus.notes}-note workspace`, '');
  row('startup', 'spawn → initialize, no code cache (first start)', med['notesapp, no code cache'], med['server-filesystem'], 'server-filesystem', '');
  // What any server made with the SDK pays before its own code runs: McpServer with one tool, unbundled.
  row('startup', 'spawn → initialize, against a minimal MCP server made with the SDK', med['notesapp (dist/server.js)'], med['minimal SDK server'], 'minimal SDK server (one tool, unbundled)', '');
  row('startup', 'floor: node answering from an empty script', med['node, empty script (floor)'], med['server-filesystem'], 'server-filesystem', '');
  const ourFaults = faultMed['notesapp (dist/server.js)'];
  const floorFaults = faultMed['node, empty script (floor)'];
  if (ourFaults !== undefined && floorFaults !== undefined) {
    const over = ourFaults - floorFaults;
    const cost = Number.isFinite(results.machine.pageFaultUs) ? `, about ${((over * results.machine.pageFaultUs) / 1000).toFixed(1)} ms at this machine's page fault time` : '';
    rows.push({ section: 'startup', what: `page faults up to the initialize answer: ${ourFaults} (dist/server.js), ${floorFaults} (node answering from an empty script); ${over} more${cost}` });
  }
  row('startup', `spawn → initialize, started with ${whole}`, med['notesapp, whole environment'], med['node, empty script (floor), whole environment'], 'node answering from an empty script, same environment', '');
}

/**
 * The floor of delivering an answer, whatever the server does to make it: the SDK client receiving the very same
 * `result` (as the server wrote it in its reply `line` when given, see resultText; written to a file) from a
 * process that does nothing but send it (reply-server.mjs). `first`: the first call of a freshly connected client
 * and process (FRESH of them), as a cold row's call is; `repeated`: REPS calls to one of them after a first, as a
 * warm row's. The client copies its whole read buffer for every chunk the pipe delivers, so what it pays grows with
 * the square of the answer's size, much of it in memory it touches for the first time (see the page fault time in
 * the table's head).
 */
async function deliveryFloor(dir, result, tool, args, line) {
  const resultFile = path.join(tmp, 'result.json');
  fs.writeFileSync(resultFile, resultText(result, line));
  const replyBytes = fs.statSync(resultFile).size;
  const replier = () => connect(dir, {}, [path.join(root, 'test', 'bench', 'reply-server.mjs'), resultFile]);
  const call = (client) => timed(() => client.callTool({ name: tool, arguments: args }));
  const first = [];
  for (let i = 0; i < FRESH; i++) {
    const { client } = await replier();
    first.push((await call(client)).ms);
    await client.close();
  }
  const { client } = await replier();
  await call(client);
  const repeated = [];
  for (let i = 0; i < REPS; i++) repeated.push((await call(client)).ms);
  await client.close();
  return { replyBytes, first, repeated };
}

/**
 * The JSON of a reply's `result` as the server wrote it, taken from its reply `line` (our transport writes `result`
 * first and `jsonrpc`, `id` last), so that the floor sends the very bytes the server did (its escapes included);
 * without a line of that form, `result` serialised again.
 */
function resultText(result, line) {
  const head = '{"result":';
  const tail = line?.lastIndexOf(',"jsonrpc":"2.0","id":') ?? -1;
  return line?.startsWith(head) && tail > 0 ? line.slice(head.length, tail) : JSON.stringify(result);
}

// 2. search_files vs ripgrep
const QUERIES = [
  { name: 'literal', args: { query: 'customer feedback', case_sensitive: true, regex: false }, rg: ['-F', '-e', 'customer feedback'] },
  // Rare enough that every match fits one response (a single corpus word matches ~29 000 lines, over the 10 MB
  // result limit); non-ASCII, so case folding is Unicode on both sides.
  { name: 'case-insensitive words', args: { query: 'priya tomás', case_sensitive: false, regex: false }, rg: ['-F', '-i', '-e', 'priya tomás'] },
  { name: 'regex', args: { query: '\\b(TODO|FIXME)\\b.*deadline', case_sensitive: true, regex: true }, rg: ['-e', '\\b(TODO|FIXME)\\b.*deadline'] },
];

/**
 * The process the references run in (reference-runner.mjs), started on first use and stopped at the end of the run.
 * Run in this process, ripgrep's output and the fdir crawl's paths were the MCP client's garbage: with ripgrep run
 * between two warm regex searches, the SDK client took 14 000-20 000 page faults to receive the next answer instead
 * of about 4 200, and 290-450 ms instead of 140-180 ms, with our server and with a process that only sends the answer
 * alike.
 */
let runner;
const reference = (request) => ask((runner ??= startRunner()), request);

function startRunner() {
  return fork(path.join(root, 'test', 'bench', 'reference-runner.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Sends one request to a reference runner and resolves with its result. */
function ask(proc, request) {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error('the reference runner exited'));
    proc.once('exit', onExit);
    proc.once('message', (reply) => {
      proc.off('exit', onExit);
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply.result);
    });
    proc.send(request);
  });
}

/** ripgrep's whole run over `dir` (in the reference runner): its time and the lines it printed. */
const rgTime = (args, dir) => reference({ kind: 'rg', args, dir });

/** Runs `script` in a fresh Node process and returns the number it prints (milliseconds, for the timings); `what` names it in an error. */
function numberFromScript(script, what) {
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} script failed: ${r.stderr}`);
  return Number(r.stdout);
}

/**
 * The fdir crawl of the list section (same call), timed in a reference runner started for it, as the first thing it
 * does after loading fdir: its code has not run before, as the first listing of a fresh server's has not. The runner
 * has exited when this resolves.
 */
async function firstCrawlInProcess(dir) {
  const fresh = startRunner();
  const exited = new Promise((resolve) => fresh.once('exit', resolve));
  try {
    const { ms, files } = await ask(fresh, { kind: 'fdir', dir });
    if (files === 0) throw new Error(`the first crawl of ${dir} found no files`);
    return ms;
  } finally {
    fresh.disconnect();
    await exited;
  }
}

/**
 * What any Node server must do before its first answer from a fresh start: list and watch every folder (one
 * fs.watch each, as the index does) and, with `read`, read every note into a string — one thread, measured inside
 * a separate process after its start-up. A floor for the cold rows: no Node index can answer sooner.
 */
function nodeFloor(dir, read) {
  const script = `
    const fs = require('node:fs');
    const t = performance.now();
    const queue = [${JSON.stringify(dir)}];
    const buf = Buffer.allocUnsafe(256 * 1024);
    const texts = [];
    while (queue.length) {
      const d = queue.pop();
      fs.watch(d, { persistent: false }, () => {});
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = d + '/' + e.name;
        if (e.isDirectory()) queue.push(p);
        else if (${read} && e.name.endsWith('.md')) {
          const fd = fs.openSync(p, 'r');
          const n = fs.readSync(fd, buf, 0, buf.length, 0);
          texts.push(buf.toString('utf8', 0, n));
          fs.closeSync(fd);
        }
      }
    }
    process.stdout.write(String(performance.now() - t));
    process.exit(0);`;
  return numberFromScript(script, 'floor');
}

async function benchSearch() {
  const corpus = ensureCorpus(SIZES.search);
  const haveRg = spawnSync('rg', ['--version']).status === 0;
  const section = { notes: corpus.notes, bytes: corpus.bytes, queries: {} };
  // As a user's server finds it at every start but the first: the early listing kept at the last start (servers
  // told to keep none are timed in turn with them).
  await keepListing(corpus.dir);
  for (const q of QUERIES) {
    const cold = [];
    const coldNothingKept = [];
    /** From spawning the server to the first answer: what a client waits in all (ripgrep's times are its whole run too). */
    const spawnToAnswer = [];
    let count;
    // ripgrep runs in turn with the server: once after each fresh server has exited, and once after each warm call
    // (the server idle), so that both are timed in the same state of this shared machine.
    const rg = [];
    const rgTurn = async () => haveRg && rg.push(await rgTime(q.rg, corpus.dir));
    for (let i = 0; i < FRESH; i++) {
      const spawned = performance.now();
      const { client } = await connect(corpus.dir);
      const t = await timed(() => client.callTool({ name: 'search_files', arguments: q.args }));
      cold.push(t.ms);
      spawnToAnswer.push(performance.now() - spawned);
      count = structured(t.value).results.length;
      await client.close();
      await rgTurn();
      const other = await connect(corpus.dir, { NOTESAPP_LISTING_CACHE: 'off' });
      coldNothingKept.push((await timed(() => other.client.callTool({ name: 'search_files', arguments: q.args }))).ms);
      await other.client.close();
      await rgTurn();
    }
    const { client, indexed } = await connect(corpus.dir);
    await client.callTool({ name: 'search_files', arguments: q.args });
    await indexed();
    await client.callTool({ name: 'search_files', arguments: q.args });
    const warm = [];
    for (let i = 0; i < REPS; i++) {
      warm.push((await timed(() => client.callTool({ name: 'search_files', arguments: q.args }))).ms);
      await rgTurn();
    }
    await client.close();
    // The same, cold and warm, through the line client: what the server and the pipe take, without the SDK client.
    const lineCold = [];
    for (let i = 0; i < FRESH; i++) {
      const lc = await lineClient(corpus.dir);
      lineCold.push((await lc.timedCall('search_files', q.args)).ms);
      lc.close();
    }
    // Cold without ripgrep (NOTESAPP_RIPGREP=off): the text worker lists and reads the workspace itself.
    const walkCold = [];
    for (let i = 0; i < FRESH; i++) {
      const { client: walker } = await connect(corpus.dir, { NOTESAPP_RIPGREP: 'off' });
      walkCold.push((await timed(() => walker.callTool({ name: 'search_files', arguments: q.args }))).ms);
      await walker.close();
    }
    const lc = await lineClient(corpus.dir);
    await lc.timedCall('search_files', q.args);
    await lc.indexed();
    const answer = await lc.timedCall('search_files', q.args);
    const lineWarm = [];
    for (let i = 0; i < REPS; i++) lineWarm.push((await lc.timedCall('search_files', q.args)).ms);
    lc.close();
    const { replyBytes, first: deliverFirst, repeated: deliver } = await deliveryFloor(corpus.dir, answer.result, 'search_files', q.args, answer.line);
    const rgMed = median(rg.map((r) => r.ms));
    // And ripgrep run back to back, as it was timed before: runs right after a server exited read up to a tenth
    // slower than these on this machine, so both are shown.
    const rgBlockSamples = [];
    for (let i = 0; haveRg && i < REPS; i++) rgBlockSamples.push((await rgTime(q.rg, corpus.dir)).ms);
    const rgBlock = haveRg ? median(rgBlockSamples) : undefined;
    if (rg.length && rg[0].lines !== count) throw new Error(`${q.name}: ${count} results but ripgrep found ${rg[0].lines} lines`);
    section.queries[q.name] = {
      coldMs: median(cold),
      spawnToAnswerMs: median(spawnToAnswer),
      coldNothingKeptMs: median(coldNothingKept),
      warmMs: median(warm),
      lineClientColdMs: median(lineCold),
      lineClientWarmMs: median(lineWarm),
      coldWithoutRipgrepMs: median(walkCold),
      replyBytes,
      deliverOnlyMs: median(deliver),
      deliverOnlyFirstMs: median(deliverFirst),
      rgMs: rgMed,
      rgBackToBackMs: rgBlock,
      results: count,
      rgLines: rg[0]?.lines,
    };
    row('search', `${q.name}, cold (${corpus.notes} notes)`, median(cold), rgMed, 'ripgrep', '≤ 2× rg');
    row('search', `${q.name}, warm (${corpus.notes} notes)`, median(warm), rgMed, 'ripgrep', '≤ 1× rg');
    row('search', `${q.name}, cold, nothing kept (NOTESAPP_LISTING_CACHE=off)`, median(coldNothingKept), rgMed, 'ripgrep', '');
    row('search', `${q.name}, cold, line client`, median(lineCold), rgMed, 'ripgrep', '');
    row('search', `${q.name}, cold, without ripgrep (NOTESAPP_RIPGREP=off)`, median(walkCold), rgMed, 'ripgrep', '');
    row('search', `${q.name}, spawn → first answer`, median(spawnToAnswer), rgMed, 'ripgrep', '');
    row('search', `${q.name}, warm, line client`, median(lineWarm), rgMed, 'ripgrep', '');
    if (rgBlock !== undefined) {
      row('search', `${q.name}, cold, against ripgrep run ${REPS} times back to back`, median(cold), rgBlock, 'ripgrep back to back', '');
      row('search', `${q.name}, warm, against ripgrep run ${REPS} times back to back`, median(warm), rgBlock, 'ripgrep back to back', '');
    }
    row('search', `${q.name}, floor: the SDK client receiving the same answer (${(replyBytes / 1e6).toFixed(2)} MB) from a process that only sends it`, median(deliver), rgMed, 'ripgrep', '');
    row('search', `${q.name}, floor, cold: the same answer as the first call of a fresh client and process`, median(deliverFirst), rgMed, 'ripgrep', '');
  }
  const floor = median(Array.from({ length: Math.min(REPS, 5) }, () => nodeFloor(corpus.dir, true)));
  section.nodeFloorMs = floor;
  const rgAll = median(Object.values(section.queries).map((x) => x.rgMs));
  row('search', `floor: one Node thread listing, watching and reading the ${corpus.notes} notes`, floor, rgAll, 'ripgrep (median of the queries)', '');
  results.sections.search = section;
}

// 3. list_files vs an fdir crawl
async function benchList() {
  const corpus = ensureCorpus(SIZES.list);
  // The crawl runs in turn with the server, as ripgrep does in the search section: once after each fresh server has
  // exited and once after each warm call, in the reference runner (see reference). Two crawls first, so that the
  // crawl timed is not the first that process compiles.
  const crawl = [];
  const crawlOnce = () => reference({ kind: 'fdir', dir: corpus.dir });
  for (let i = 0; i < 2; i++) await crawlOnce();
  const crawlTurn = async () => crawl.push((await crawlOnce()).ms);
  // The first call of a freshly started server, several servers; then repeated calls to the last one. A server
  // started before in the same workspace kept its early listing (see README, "The listing kept between starts"):
  // one start keeps it first, then servers that find it and servers told to keep none start in turn.
  const kept = await keepListing(corpus.dir);
  const firsts = [];
  const firstsNothingKept = [];
  // The first call of a fresh server runs code that thread has not run before; so does the first crawl of a fresh
  // process, timed here in turn with the servers as a second reference.
  const firstCrawls = [];
  let listed;
  let listedResult;
  for (let i = 0; i < FRESH; i++) {
    for (const [samples, extraEnv] of [[firsts, {}], [firstsNothingKept, { NOTESAPP_LISTING_CACHE: 'off' }]]) {
      const { client } = await connect(corpus.dir, extraEnv);
      const first = await timed(() => client.callTool({ name: 'list_files', arguments: {} }));
      samples.push(first.ms);
      listedResult = first.value;
      listed = structured(first.value);
      await client.close();
      await crawlTurn();
    }
    firstCrawls.push(await firstCrawlInProcess(corpus.dir));
  }
  if (fs.statSync(kept.file).mtimeMs !== kept.mtimeMs) throw new Error('the kept listing was written again: a server did not take it whole');
  const { client, indexed } = await connect(corpus.dir);
  await client.callTool({ name: 'list_files', arguments: {} });
  await indexed();
  await client.callTool({ name: 'list_files', arguments: {} });
  const warm = [];
  for (let i = 0; i < REPS; i++) {
    warm.push((await timed(() => client.callTool({ name: 'list_files', arguments: {} }))).ms);
    await crawlTurn();
  }
  await client.close();
  const lineFirsts = [];
  for (let i = 0; i < FRESH; i++) {
    const lc = await lineClient(corpus.dir);
    lineFirsts.push((await lc.timedCall('list_files', {})).ms);
    lc.close();
  }
  // And the crawl run back to back, as it was timed before.
  const crawlBlock = [];
  for (let i = 0; i < REPS; i++) crawlBlock.push((await crawlOnce()).ms);
  const delivery = await deliveryFloor(corpus.dir, listedResult, 'list_files', {});
  const files = listed.files?.length ?? listed.length;
  results.sections.list = {
    notes: corpus.notes,
    files,
    firstMs: median(firsts),
    firstSamples: firsts,
    firstNothingKeptMs: median(firstsNothingKept),
    firstNothingKeptSamples: firstsNothingKept,
    warmMs: median(warm),
    lineClientFirstMs: median(lineFirsts),
    fdirMs: median(crawl),
    fdirBackToBackMs: median(crawlBlock),
    fdirFirstInProcessMs: median(firstCrawls),
    fdirFirstInProcessSamples: firstCrawls,
    replyBytes: delivery.replyBytes,
    deliverOnlyFirstMs: median(delivery.first),
    deliverOnlyMs: median(delivery.repeated),
  };
  row('list', `list_files, first call (${corpus.notes} files; listing kept at the last start)`, median(firsts), median(crawl), 'fdir crawl', '≤ 2× fdir');
  row('list', `list_files, first call, nothing kept (a workspace's first start, or NOTESAPP_LISTING_CACHE=off)`, median(firstsNothingKept), median(crawl), 'fdir crawl', '');
  row('list', 'list_files, first call, nothing kept, against the first crawl of a fresh process', median(firstsNothingKept), median(firstCrawls), "fdir crawl, its process's first", '');
  row('list', `list_files, warm (${corpus.notes} files)`, median(warm), median(crawl), 'fdir crawl', '≤ 2× fdir');
  row('list', `list_files, first call, against the crawl run ${REPS} times back to back`, median(firsts), median(crawlBlock), 'fdir crawl back to back', '');
  row('list', 'list_files, first call, line client', median(lineFirsts), median(crawl), 'fdir crawl', '');
  row('list', `list_files, floor, first call: the SDK client receiving the same answer (${(delivery.replyBytes / 1e6).toFixed(2)} MB) as the first call of a fresh client and process that only sends it`, median(delivery.first), median(crawl), 'fdir crawl', '');
  row('list', 'list_files, floor, repeated: the same answer, repeated', median(delivery.repeated), median(crawl), 'fdir crawl', '');
  const floor = median(Array.from({ length: Math.min(REPS, 5) }, () => nodeFloor(corpus.dir, false)));
  results.sections.list.nodeFloorMs = floor;
  row('list', `floor: one Node thread listing and watching the ${corpus.notes} files`, floor, median(crawl), 'fdir crawl', '');
}

/**
 * Waits until every folder of `dir` is older than the server's racy margin (RACY_MS): a start takes the kept entries
 * of a folder changed more recently than that as unknown, reads the folder again and keeps the listing again. A
 * corpus this run has just generated is that new.
 */
async function outOfRacyMargin(dir) {
  const { RACY_MS } = await tsImport('../../src/core/workspace/prelist.ts', import.meta.url);
  let newest = 0;
  for (const folder of new fdir().onlyDirs().withFullPaths().crawl(dir).sync()) {
    const stat = fs.lstatSync(folder);
    newest = Math.max(newest, stat.mtimeMs, stat.ctimeMs);
  }
  const wait = newest + RACY_MS + 500 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * Starts a server in `dir` and waits until its first text worker has kept its early listing in the cache folder;
 * returns that file and its modification time. The corpus's folders are older than the racy margin by then (see
 * outOfRacyMargin), so later starts take it whole (and do not write it again).
 */
async function keepListing(dir) {
  await outOfRacyMargin(dir);
  const cacheDir = process.env.NOTESAPP_CACHE_DIR;
  // This corpus's kept listing, found by the folder its first line names (its file name holds a hash of the path).
  const real = fs.realpathSync(dir);
  const ours = (name) => {
    if (!name.startsWith('listing-') || name.endsWith('.tmp')) return false;
    try {
      const text = fs.readFileSync(path.join(cacheDir, name), 'utf8');
      return JSON.parse(text.slice(0, text.indexOf('\n'))).root === real;
    } catch {
      return false;
    }
  };
  fs.mkdirSync(cacheDir, { recursive: true });
  for (const name of fs.readdirSync(cacheDir).filter(ours)) fs.rmSync(path.join(cacheDir, name));
  const { client } = await connect(dir);
  await client.callTool({ name: 'list_files', arguments: {} });
  let found;
  for (let i = 0; i < 500 && !found; i++) {
    found = fs.readdirSync(cacheDir).find(ours);
    if (!found) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await client.close();
  if (!found) throw new Error(`no listing was kept in ${cacheDir}`);
  const file = path.join(cacheDir, found);
  return { file, mtimeMs: fs.statSync(file).mtimeMs };
}

/**
 * What a server without kept sizes does for each workspace-statistics call, at the least: list the workspace and
 * stat every note, in one Node thread (measured inside a separate process after its start-up).
 */
function statFloor(dir) {
  const script = `
    const fs = require('node:fs');
    const t = performance.now();
    const queue = [${JSON.stringify(dir)}];
    let total = 0;
    while (queue.length) {
      const d = queue.pop();
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = d + '/' + e.name;
        if (e.isDirectory()) queue.push(p);
        else if (e.name.endsWith('.md')) total += fs.statSync(p).size;
      }
    }
    process.stdout.write(String(performance.now() - t));
    process.exit(0);`;
  return numberFromScript(script, 'stat floor');
}

// 3b. the workspace tools on the large corpus: statistics (sizes and times of every note) and note metadata (links
// resolved against every file)
async function benchTools() {
  const corpus = ensureCorpus(SIZES.list);
  const floor = median(Array.from({ length: Math.min(REPS, 5) }, () => statFloor(corpus.dir)));
  const firsts = [];
  let client;
  let indexed;
  for (let i = 0; i < Math.min(REPS, 3); i++) {
    await client?.close();
    ({ client, indexed } = await connect(corpus.dir));
    firsts.push((await timed(() => client.callTool({ name: 'get_workspace_stats', arguments: {} }))).ms);
  }
  await indexed();
  const warm = async (name, args) => {
    await client.callTool({ name, arguments: args });
    const times = [];
    for (let i = 0; i < REPS; i++) times.push((await timed(() => client.callTool({ name, arguments: args }))).ms);
    return median(times);
  };
  const statsWarm = await warm('get_workspace_stats', {});
  const infoWarm = await warm('get_workspace_info', {});
  const stats = structured(await client.callTool({ name: 'get_workspace_stats', arguments: {} }));
  const note = stats.recentFiles[0].path;
  const metadataWarm = await warm('get_note_metadata', { path: note });
  const readWarm = await warm('read_file', { path: note });
  await client.close();
  results.sections.tools = { notes: stats.totalNotes, statFloorMs: floor, statsFirstMs: median(firsts), statsWarmMs: statsWarm, infoWarmMs: infoWarm, metadataWarmMs: metadataWarm, readFileWarmMs: readWarm };
  const ref = `one Node thread listing and stat-ing the ${stats.totalNotes} notes`;
  row('tools', `get_workspace_stats, first call (${stats.totalNotes} notes)`, median(firsts), floor, ref, '');
  row('tools', 'get_workspace_stats, warm', statsWarm, floor, ref, '');
  row('tools', 'get_workspace_info, warm', infoWarm, floor, ref, '');
  row('tools', `get_note_metadata, warm (links resolved against ${corpus.notes} files)`, metadataWarm, readWarm, 'read_file of the same note', '');
}

// 4. tools/call throughput and latency
async function benchThroughput() {
  const corpus = ensureCorpus(1000);
  const { client, indexed } = await connect(corpus.dir);
  await indexed();
  const listed = structured(await client.callTool({ name: 'list_files', arguments: {} }));
  const files = (listed.files ?? listed).slice(0, 200).map((f) => (typeof f === 'string' ? f : f.path));
  const n = quick ? 300 : 2000;
  const lat = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    lat.push((await timed(() => client.callTool({ name: 'read_file', arguments: { path: files[i % files.length] } }))).ms);
  }
  const seqSeconds = (performance.now() - t0) / 1000;
  const concurrency = 16;
  const t1 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        await client.callTool({ name: 'read_file', arguments: { path: files[i % files.length] } });
      }
    }),
  );
  const parSeconds = (performance.now() - t1) / 1000;
  await client.close();
  const s = { calls: n, sequentialPerSecond: n / seqSeconds, concurrentPerSecond: n / parSeconds, concurrency, p50: percentile(lat, 50), p95: percentile(lat, 95), p99: percentile(lat, 99) };
  results.sections.throughput = s;
  rows.push({ section: 'throughput', what: `read_file: ${s.sequentialPerSecond.toFixed(0)} calls/s sequential, ${s.concurrentPerSecond.toFixed(0)} calls/s with ${concurrency} in flight; latency p50 ${ms(s.p50)}, p95 ${ms(s.p95)}, p99 ${ms(s.p99)}` });
}

// 5. peak RSS with the large corpus indexed
async function benchMemory() {
  const corpus = ensureCorpus(SIZES.list);
  const { client, pid, indexed } = await connect(corpus.dir);
  // The peak of a server with every note indexed: the texts it keeps are read before the searches.
  await indexed();
  const peak = () => {
    try {
      return Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)[1]) / 1024;
    } catch {
      return NaN; // not Linux
    }
  };
  await client.callTool({ name: 'search_files', arguments: { query: 'priya tomás', case_sensitive: false } });
  await client.callTool({ name: 'search_files', arguments: { query: '\\b(TODO|FIXME)\\b \\w+ deadline', regex: true } });
  await client.callTool({ name: 'list_files', arguments: {} });
  await client.callTool({ name: 'get_workspace_stats', arguments: {} }).catch(() => undefined);
  const last = structured(await client.callTool({ name: 'search_files', arguments: { query: 'customer feedback' } }));
  if (!last.results.length) throw new Error('the memory run found nothing');
  const peakMiB = peak();
  // Then the search section's regex: on 50k notes its matches would make a 22 MB answer; the search stops at 5 M
  // characters of matches (half the 10 MB limit) and answers those: the largest answer a search can give.
  const largest = structured(await client.callTool({ name: 'search_files', arguments: { query: '\\b(TODO|FIXME)\\b.*deadline', case_sensitive: true, regex: true } }));
  // A quick run's 5 000 notes hold too few matches to reach that limit: its row says so instead.
  if (!largest.truncated && !quick) throw new Error('the largest answer was not cut');
  const largestPeakMiB = peak();
  await client.close();
  results.sections.memory = { notes: corpus.notes, bytes: corpus.bytes, peakRssMiB: peakMiB, largestAnswerPeakRssMiB: largestPeakMiB, largestAnswerResults: largest.count };
  const mb = (mib) => `${mib.toFixed(0)} MiB = ${((mib * 2 ** 20) / 1e6).toFixed(0)} MB`;
  rows.push({ section: 'memory', what: `peak RSS with ${corpus.notes} notes (${(corpus.bytes / 1e6).toFixed(0)} MB) searched and listed: ${mb(peakMiB)} (target < 300 MB)` });
  const what = largest.truncated ? `the largest answer there can be (${largest.count} results: the search stops at 5 M characters of matches)` : `all its ${largest.count} matches (not enough in this corpus to reach the 5 M characters a search stops at)`;
  rows.push({ section: 'memory', what: `peak RSS after that, with a search answering ${what}: ${mb(largestPeakMiB)}` });
}

// 6. extension activation inside a real extension host (browser-hosted VS Code, as the integration tests run)
async function benchActivation() {
  if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run `npm run build` first');
  const { runBrowserHosted } = await import('../host/browser-runner.mjs');
  const testsIndex = path.join(root, 'test', 'bench', 'activation-suite.cjs');
  const samples = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    let found;
    const output = [];
    const code = await runBrowserHosted({
      testsIndex,
      log: (line) => {
        output.push(line);
        const m = /NOTESAPP_BENCH (\{.*\})/.exec(line);
        if (m) found = JSON.parse(m[1]);
      },
    });
    if (code !== 0 || !found) throw new Error(`activation suite failed (exit ${code}): ${output.slice(-5).join(' | ')}`);
    samples.push(found.activationMs);
  }
  results.sections.activation = { runs: samples.length, medianMs: median(samples), samples };
  rows.push({ section: 'activation', what: `extension activate() inside the extension host: ${ms(median(samples))} (median of ${samples.length} host starts)` });
}

const sections = { startup: benchStartup, search: benchSearch, list: benchList, tools: benchTools, throughput: benchThroughput, memory: benchMemory, activation: benchActivation };
try {
  for (const [name, fn] of Object.entries(sections)) {
    if (!want(name)) continue;
    process.stderr.write(`[bench] ${name}...\n`);
    try {
      await fn();
    } catch (err) {
      results.sections[name] = { error: err.message };
      rows.push({ section: name, what: `failed: ${err.message}` });
    } finally {
      await closeLeftovers();
    }
  }
} finally {
  runner?.disconnect();
  fs.rmSync(tmp, { recursive: true, force: true });
}

const table = renderTable();
console.log(table);
fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
fs.writeFileSync(path.join(root, 'bench-results', 'latest.json'), JSON.stringify({ ...results, rows }, null, 2));
if (argv.includes('--readme')) writeReadme(table);

function renderTable() {
  const m = results.machine;
  const fault = Number.isFinite(m.pageFaultUs) ? ` (a page of memory touched the first time: ${m.pageFaultUs.toFixed(2)} µs)` : '';
  const head = `Measured ${results.date.slice(0, 10)} on ${m.cpus} × ${m.cpuModel}, ${m.memGiB} GiB, Node ${m.node}, ${m.platform}${fault}${quick ? ' (quick run)' : ''}; medians of ${REPS} runs.`;
  const lines = [head, '', '| Benchmark | notesapp | Reference | Ratio | Target |', '|---|---|---|---|---|'];
  for (const r of rows) {
    if (r.ours === undefined) lines.push(`| ${r.what} | | | | |`);
    else lines.push(`| ${r.what} | ${ms(r.ours)} | ${r.refName}: ${ms(r.reference)} | ${Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×` : 'n/a'} | ${r.target ?? ''} |`);
  }
  return lines.join('\n');
}

function writeReadme(tableText) {
  const readme = path.join(root, 'README.md');
  const text = fs.readFileSync(readme, 'utf8');
  const start = '<!-- bench:table -->';
  const end = '<!-- /bench:table -->';
  if (!text.includes(start)) {
    console.error('README.md has no <!-- bench:table --> marker; table not written.');
    return;
  }
  const next = text.slice(0, text.indexOf(start) + start.length) + `\n${tableText}\n` + text.slice(text.indexOf(end));
  fs.writeFileSync(readme, next);
  console.error('[bench] README.md table updated');
}
