// The benchmark's references, run in a process of their own (forked by run.mjs) rather than in the process that
// is the servers' MCP client: ripgrep's output (up to 4 MB a run, collected as a string) and the fdir crawl's
// 50 000 paths would otherwise be that client's garbage, and its next answer would be received into memory the
// allocator had just handed back to the system. This process stays up for the whole run, as the benchmark's own
// did, so each reference is timed in a process that has run it before. One request at a time:
//   { kind: 'rg', args, dir }  ->  { ms, lines }   ripgrep's whole run, spawned as before, and the lines it printed
//   { kind: 'fdir', dir }      ->  { ms, files }   the fdir crawl the list section compares list_files with
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fdir } from 'fdir';

async function handle(request) {
  if (request.kind === 'rg') {
    const t = performance.now();
    const r = spawnSync('rg', ['--no-config', '-n', '--no-heading', '--color', 'never', ...request.args, request.dir], { maxBuffer: 1 << 30, encoding: 'utf8' });
    const ms = performance.now() - t;
    if (r.error) throw r.error;
    return { ms, lines: r.stdout ? r.stdout.split('\n').filter(Boolean).length : 0 };
  }
  if (request.kind === 'fdir') {
    const t = performance.now();
    const files = await new fdir().withRelativePaths().crawl(request.dir).withPromise();
    return { ms: performance.now() - t, files: files.length };
  }
  throw new Error(`unknown reference ${request.kind}`);
}

process.on('message', (request) => {
  handle(request).then(
    (result) => process.send({ result }),
    (err) => process.send({ error: err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
