// The loader (dist/server.js) runs the server bundle through a V8 code cache, which it makes on a start that has
// none it can use: once the first tools/list is answered, so that the functions the start-up path compiled are in
// it (see server/code-cache-point.ts), else 3 s after the first initialize answer, else at the process's exit once
// it has answered one; a process that answers no initialize makes none. The next start uses it as it is.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { RawServer } from '../hardening/raw-server';

/** The code cache files in `dir` (none when it is not there). */
function cacheFiles(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith('server-core-')) : [];
}

async function waitUntil(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("the server's code cache (Node without a compile cache of its own)", function () {
  this.timeout(30_000);
  let dir: string;
  before(function () {
    // Node 22.1 and later (VS Code's runtime) keep their own compile cache (module.enableCompileCache), which the
    // loader uses instead: what is tested here is then not in use.
    if (typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function') this.skip();
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-code-cache-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = (cache: string): RawServer => new RawServer({ env: { NOTESAPP_CACHE_DIR: cache, NOTESAPP_NO_CODE_CACHE: '' } });

  it('is made once the first tools/list is answered, not before, and the next start uses it as it is', async () => {
    const cache = path.join(dir, 'cache');
    const first = start(cache);
    try {
      await first.initialize(0);
      // The handshake is done, the 3 s fallback is far: nothing yet.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(cacheFiles(cache), [], 'not made before tools/list');
      assert.ok((await first.request(1, 'tools/list')).result);
      assert.ok(await waitUntil(() => cacheFiles(cache).length === 1, 2000), 'made once tools/list is answered');
      assert.ok(await waitUntil(() => !fs.readdirSync(cache).some((name) => name.endsWith('.tmp')), 2000), 'written aside, then renamed');
    } finally {
      await first.stop();
    }
    const [file] = cacheFiles(cache);
    const made = fs.statSync(path.join(cache, file));
    assert.ok(made.size > 100_000, `${made.size} bytes`);
    const second = start(cache);
    try {
      await second.initialize(0);
      assert.ok((await second.request(1, 'tools/list')).result);
      const called = await second.request(2, 'tools/call', { name: 'list_files', arguments: {} });
      assert.equal(called.result?.isError, undefined, JSON.stringify(called));
      // A cache the runtime rejected would be made again now.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await second.stop();
    }
    assert.deepEqual(cacheFiles(cache), [file], 'the same file');
    assert.equal(fs.statSync(path.join(cache, file)).mtimeMs, made.mtimeMs, 'not made again: it was used');
  });

  it('is made 3 s after the handshake for a client that lists no tools, and at exit for a server that stops before', async () => {
    const late = path.join(dir, 'late');
    const server = start(late);
    try {
      await server.initialize(0);
      assert.deepEqual(cacheFiles(late), []);
      assert.ok(await waitUntil(() => cacheFiles(late).length === 1, 8000), 'made by the fallback');
    } finally {
      await server.stop();
    }
    const early = path.join(dir, 'early');
    const brief = start(early);
    await brief.initialize(0);
    // The client goes away: the server exits at the end of its input.
    brief.child.stdin.end();
    await brief.exited;
    assert.equal(cacheFiles(early).length, 1, 'made as the process exited');
    await brief.stop();
  });

  it('is not made by a process that answers no initialize: --version, or a client that leaves before its handshake', async () => {
    const cache = path.join(dir, 'cache');
    const version = new RawServer({ args: ['--version'], env: { NOTESAPP_CACHE_DIR: cache, NOTESAPP_NO_CODE_CACHE: '' } });
    assert.equal(await version.exited, 0);
    assert.match(version.stderr, /^notesapp/);
    await version.stop();
    const gone = start(cache);
    // Up and waiting for a client that goes away without a word.
    await gone.waitForStderr(/serving .* over stdio/);
    gone.child.stdin.end();
    await gone.exited;
    await gone.stop();
    assert.deepEqual(cacheFiles(cache), []);
    // The next start that gets through its handshake and tools/list makes it.
    const next = start(cache);
    try {
      await next.initialize(0);
      assert.ok((await next.request(1, 'tools/list')).result);
      assert.ok(await waitUntil(() => cacheFiles(cache).length === 1, 2000));
    } finally {
      await next.stop();
    }
  });
});

// The bundle is its own CommonJS wrapper (see esbuild.mjs): the loader runs it as a script with the arguments it puts
// on globalThis, and every other way (Node's own compile cache, no cache at all, the snapshot builder) calls it as a
// module with the wrapper's own. Either way its require must load the packages it runs on first use.
describe('the server bundle, run by either of its loaders', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-loaders-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [how, off] of [
    ['as a plain module, with the caches off', '1'],
    ['through its code cache', ''],
  ] as const) {
    it(`answers ${how}, with the packages it loads on first use`, async () => {
      const cache = path.join(dir, 'cache');
      const workspace = path.join(dir, 'notes');
      fs.mkdirSync(workspace);
      fs.writeFileSync(path.join(workspace, 'small.md'), '---\ntitle: Small note\ntags: [one]\n---\n# Small\n\n- [ ] call [[big]]\n- [x] done\n');
      // Twice: the second start of the code-cache way runs from the cache the first made.
      for (const round of [1, 2]) {
        const server = new RawServer({ workspace, env: { NOTESAPP_CACHE_DIR: cache, NOTESAPP_NO_CODE_CACHE: off } });
        try {
          await server.initialize(0);
          const tools = await server.request(1, 'tools/list');
          assert.ok(Array.isArray(tools.result?.tools), JSON.stringify(tools));
          // Frontmatter (gray-matter, js-yaml) and markdown (markdown-it), loaded on first use.
          const meta = await server.request(2, 'tools/call', { name: 'get_note_metadata', arguments: { path: 'small.md' } });
          const metaText = JSON.stringify(meta.result?.structuredContent);
          assert.equal(meta.result?.isError, undefined, JSON.stringify(meta));
          assert.match(metaText, /"title":"Small note"/);
          assert.match(metaText, /"one"/);
          const tasks = await server.request(3, 'tools/call', { name: 'extract_tasks', arguments: { path: 'small.md' } });
          assert.deepEqual(
            (tasks.result?.structuredContent as { tasks?: Array<{ status: string }> } | undefined)?.tasks?.map((t) => t.status),
            ['todo', 'done'],
            JSON.stringify(tasks),
          );
        } finally {
          await server.stop({ keepWorkspace: true });
        }
        if (round === 1 && off === '') assert.ok(await waitUntil(() => cacheFiles(cache).length === 1, 5000), 'the first start made its code cache');
      }
      if (off === '1') assert.deepEqual(cacheFiles(cache), [], 'with the caches off, none is made');
    });
  }
});
