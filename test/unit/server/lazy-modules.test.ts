// Packages the handshake does not need are bundled behind a stand-in (server/lazy-modules.mjs): their module code
// runs on first use, not at start. Built here with esbuild around a package that counts its loads, imported the
// ways the server's code and its dependencies import such packages.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { LazySchemaValidator } from '../../../server/server';
import { RawServer } from '../hardening/raw-server';
// @ts-expect-error: a plain ES module without types (the build script's plugin)
import { LAZY_PACKAGES, lazyModules } from '../../../server/lazy-modules.mjs';

const FIXTURE = `
globalThis.lazyFixtureLoads = (globalThis.lazyFixtureLoads ?? 0) + 1;
class Thing {
  constructor(value) { this.value = value; }
}
// As Ajv and ajv-formats export themselves: the module is the class, and its default too.
module.exports = exports = Thing;
Object.defineProperty(exports, '__esModule', { value: true });
exports.default = Thing;
exports.helper = (x) => x * 2;
`;

const ENTRY = `
import Thing, { helper } from 'lazy-fixture';
import * as whole from 'lazy-fixture';
export const make = (value) => new Thing(value);
export const twice = (x) => helper(x);
export const viaNamespace = (value) => new whole.default(value);
`;

describe('lazily loaded packages in the server bundle', () => {
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-lazy-'));
    fs.mkdirSync(path.join(dir, 'node_modules', 'lazy-fixture'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'lazy-fixture', 'index.js'), FIXTURE);
    fs.writeFileSync(path.join(dir, 'entry.mjs'), ENTRY);
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("runs a package's module code on first use, once, and gives its exports", async () => {
    const out = path.join(dir, 'out.cjs');
    await build({ entryPoints: [path.join(dir, 'entry.mjs')], bundle: true, platform: 'node', format: 'cjs', outfile: out, absWorkingDir: dir, logLevel: 'silent', plugins: [lazyModules(['lazy-fixture'])] });
    const g = globalThis as { lazyFixtureLoads?: number };
    delete g.lazyFixtureLoads;
    const bundle = createRequire(out)(out) as { make: (v: number) => { value: number }; twice: (x: number) => number; viaNamespace: (v: number) => { value: number } };
    assert.equal(g.lazyFixtureLoads, undefined, 'not run when the bundle loads');
    assert.equal(bundle.make(3).value, 3);
    assert.equal(g.lazyFixtureLoads, 1);
    assert.equal(bundle.twice(21), 42);
    assert.equal(bundle.viaNamespace(5).value, 5);
    assert.equal(g.lazyFixtureLoads, 1, 'run once');
  });

  it("keeps a dependency's own copy of a package its own: each copy gets a stand-in", async () => {
    // As gray-matter keeps js-yaml 3 under its own node_modules while the server imports js-yaml 4.
    const dep = path.join(dir, 'node_modules', 'uses-fixture');
    fs.mkdirSync(path.join(dep, 'node_modules', 'lazy-fixture'), { recursive: true });
    fs.writeFileSync(path.join(dep, 'node_modules', 'lazy-fixture', 'index.js'), 'exports.version = 3;');
    fs.writeFileSync(path.join(dep, 'index.js'), "exports.version = () => require('lazy-fixture').version;");
    const entry = path.join(dir, 'copies.mjs');
    fs.writeFileSync(entry, "import Thing from 'lazy-fixture';\nimport dep from 'uses-fixture';\nexport const ours = () => new Thing(4).value;\nexport const theirs = () => dep.version();\n");
    const out = path.join(dir, 'copies.cjs');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: out, absWorkingDir: dir, logLevel: 'silent', plugins: [lazyModules(['lazy-fixture'])] });
    const bundle = createRequire(out)(out) as { ours: () => number; theirs: () => number };
    assert.equal(bundle.theirs(), 3, "the dependency's own copy");
    assert.equal(bundle.ours(), 4, 'the top-level copy');
  });

  it('is how the bundle carries Ajv, whose validator the server makes on first use', async () => {
    const lazy = new LazySchemaValidator();
    assert.equal((lazy as unknown as { real?: unknown }).real, undefined, 'no Ajv before the first validator is asked for');
    const validate = lazy.getValidator<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    assert.ok((lazy as unknown as { real?: unknown }).real, 'Ajv made on first use');
    assert.deepEqual(validate({ n: 1 }), { valid: true, data: { n: 1 }, errorMessage: undefined });
    const bad = validate({ n: 'one' });
    assert.equal(bad.valid, false);
    assert.match(bad.errorMessage ?? '', /must be number/);
    const bundle = fs.readFileSync(path.join(__dirname, '../../../dist/server-core.js'), 'utf8');
    // One stand-in for each lazy package, and one more for gray-matter's own js-yaml 3 (the server uses js-yaml 4); the
    // built-in's stand-in requires the runtime's module.
    const builtins = LAZY_PACKAGES.filter((name: string) => name.startsWith('node:'));
    assert.deepEqual(builtins, ['node:crypto', 'node:fs/promises']);
    assert.equal(bundle.match(/\.push\("[^"]+"\);\s*real = require_/g)?.length, LAZY_PACKAGES.length - builtins.length + 1, 'one stand-in for each copy of a lazy package');
    assert.match(bundle, /\.push\("ajv"\);\s*real = require_ajv\(\);/);
    for (const id of builtins) {
      const required = `require(${JSON.stringify(id)})`;
      const standIn = new RegExp(`\\.push\\(${JSON.stringify(id).replace(/[/]/g, '\\/')}\\);\\s*real = require\\(${JSON.stringify(id).replace(/[/]/g, '\\/')}\\);`, 'g');
      assert.equal(bundle.match(standIn)?.length, 1, `one stand-in for ${id}`);
      assert.equal(bundle.split(required).length - 1, 1, `${id} is required by its stand-in only`);
    }
  });
});

/** What a server had loaded (and how many worker threads it had created) as it wrote its initialize reply. */
interface AtReply {
  loads: string[];
  builtins: string[];
  workers: number;
  schemas: { total: number; built: number };
}

/** Resolves once `done()` holds (checked every 20 ms); fails after 10 s. */
async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'waited 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('lazily loaded packages in the built server (dist/server.js)', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-lazy-loads-'));
    // Given to the server with --require: a list that the bundle's stand-ins put each first load on.
    fs.writeFileSync(
      path.join(dir, 'preload.cjs'),
      `const threads = require('node:worker_threads');
      if (threads.isMainThread) {
        const loads = (globalThis[Symbol.for('notesapp.lazyLoads')] = []);
        // Worker threads created (node:worker_threads is loaded here, so its being loaded tells nothing).
        let workers = 0;
        const Worker = threads.Worker;
        threads.Worker = class extends Worker {
          constructor(...args) {
            workers++;
            super(...args);
          }
        };
        // As the initialize reply is written (the first line on stdout): what the handshake itself loaded.
        const write = process.stdout.write.bind(process.stdout);
        let replied = false;
        process.stdout.write = (...args) => {
          if (!replied) {
            replied = true;
            const schemas = globalThis[Symbol.for('notesapp.lazySdkSchemas')];
            require('node:fs').writeFileSync(process.env.LAZY_LOADS_OUT + '.initialize', JSON.stringify({ loads, builtins: process.moduleLoadList, workers, schemas: schemas ? { total: schemas.total(), built: schemas.built() } : null }));
          }
          return write(...args);
        };
        process.on('exit', () => {
          const fs = require('node:fs');
          fs.writeFileSync(process.env.LAZY_LOADS_OUT, JSON.stringify(loads));
          fs.writeFileSync(process.env.LAZY_LOADS_OUT + '.builtins', JSON.stringify(process.moduleLoadList));
          const schemas = globalThis[Symbol.for('notesapp.lazySdkSchemas')];
          fs.writeFileSync(process.env.LAZY_LOADS_OUT + '.schemas', JSON.stringify(schemas ? { total: schemas.total(), built: schemas.built() } : null));
        });
      }`,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The start before every start the tests look at: it keeps its read of the config file for them.
  before(async () => {
    await loadsDuring([]);
  });

  /** A workspace of two notes (a server's stop() removes it). */
  function notesFolder(): string {
    const notes = fs.mkdtempSync(path.join(dir, 'notes-'));
    fs.mkdirSync(path.join(notes, 'sub'));
    fs.writeFileSync(path.join(notes, 'a.md'), '---\ntitle: A\ntags: [x]\n---\n# A\n\nSee [[b]]. TODO before the deadline\n');
    fs.writeFileSync(path.join(notes, 'sub', 'b.md'), '# B\n');
    return notes;
  }

  /** A server of `notes` started with the preload, which writes what it loaded to `out` (and `out`.initialize, ...). */
  function serverWithPreload(notes: string, out: string, cache: string): RawServer {
    const preload = `--require ${JSON.stringify(path.join(dir, 'preload.cjs'))}`;
    return new RawServer({
      workspace: notes,
      env: { NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '), LAZY_LOADS_OUT: out, NOTESAPP_CACHE_DIR: cache, NOTESAPP_NO_CODE_CACHE: '' },
    });
  }

  /** What the preload wrote as the initialize reply was written. */
  function loadedAtReply(out: string): AtReply {
    return JSON.parse(fs.readFileSync(`${out}.initialize`, 'utf8')) as AtReply;
  }

  /**
   * The lazy packages a fresh server ran during its handshake, tools/list and `calls`, in order. Its caches are in
   * `cache` (by default one that an earlier start of this build filled, as for every start but the first);
   * `initializeId`: the id of its initialize request.
   */
  async function loadsDuring(calls: Array<[string, Record<string, unknown>]>, cache = path.join(dir, 'cache'), settleMs = 0, initializeId: string | number = 'init'): Promise<string[]> {
    const out = path.join(dir, `loads-${calls.length}.json`);
    const server = serverWithPreload(notesFolder(), out, cache);
    try {
      await server.initialize(initializeId);
      assert.ok((await server.request('list', 'tools/list')).result);
      for (const [i, [name, args]] of calls.entries()) {
        const reply = await server.request(i, 'tools/call', { name, arguments: args });
        assert.equal(reply.result?.isError, undefined, `${name}: ${JSON.stringify(reply)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, settleMs));
    } finally {
      await server.stop();
    }
    return JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
  }

  it("loads the configuration's schema on a start only when this build has not read the same config file before", async () => {
    const cache = path.join(dir, 'first-start');
    assert.ok((await loadsDuring([], cache)).includes('src/core/config/schema.ts'), 'the first start reads the file with it');
    assert.ok(!(await loadsDuring([], cache)).includes('src/core/config/schema.ts'), 'the next takes the read it kept');
    assert.ok(fs.readdirSync(cache).some((name) => name.startsWith('config-load-')), 'the read is kept in the cache folder');
  });

  it('runs none of them, nor node:crypto and node:fs/promises, for the handshake; tools/list and the turns after it run these two and picomatch only', async () => {
    // Given the time for the warm-up's turns after the handshake (see idle-warm-up.ts) and the workspace's first
    // listing, which compiles the exclude globs with picomatch.
    assert.deepEqual([...(await loadsDuring([], undefined, 300))].sort(), ['node:crypto', 'node:fs/promises', 'picomatch'], 'loaded after the handshake, by its warm-up and listing');
    const atReply = loadedAtReply(path.join(dir, 'loads-0.json'));
    assert.deepEqual(atReply.loads, [], 'none for the handshake');
    assert.ok(atReply.builtins.includes('NativeModule fs'), 'the list of built-in modules loaded is read');
    assert.ok(!atReply.builtins.includes('NativeModule crypto'), 'node:crypto is not loaded for the handshake');
    assert.ok(!atReply.builtins.includes('NativeModule fs/promises'), 'node:fs/promises is not loaded for the handshake');
    // The MCP SDK's schemas are built on first use (see lazy-sdk-schemas.mjs): a third of them for the handshake.
    assert.ok(atReply.schemas.total > 100, `${atReply.schemas.total} schemas`);
    assert.ok(atReply.schemas.built > 0 && atReply.schemas.built < atReply.schemas.total / 2, `${atReply.schemas.built} of ${atReply.schemas.total} built`);
    const builtins = JSON.parse(fs.readFileSync(path.join(dir, 'loads-0.json.builtins'), 'utf8')) as string[];
    assert.ok(builtins.includes('NativeModule crypto') && builtins.includes('NativeModule fs/promises'), 'both loaded once the handshake is over');
    const schemas = JSON.parse(fs.readFileSync(path.join(dir, 'loads-0.json.schemas'), 'utf8')) as { total: number; built: number };
    assert.ok(schemas.built > atReply.schemas.built && schemas.built < schemas.total / 2, `${schemas.built} of ${schemas.total} built in the end`);
  });

  it("loads no node:crypto for a handshake whose initialize has id 0, as the MCP SDK's clients number it", async () => {
    // The transport tells the SDK such a request by another id (see ZERO_ID_ALIAS in transport.ts), made without it.
    await loadsDuring([], undefined, 0, 0);
    const atReply = loadedAtReply(path.join(dir, 'loads-0.json'));
    assert.ok(atReply.builtins.includes('NativeModule fs'), 'the list of built-in modules loaded is read');
    assert.ok(!atReply.builtins.includes('NativeModule crypto'), 'node:crypto is not loaded for the handshake');
  });

  it('boots a text worker before the handshake only for a workspace to list early: not for one known to be small', async () => {
    const cache = path.join(dir, 'small-workspace');
    const notes = notesFolder();
    const first = serverWithPreload(notes, path.join(dir, 'small-1.json'), cache);
    try {
      await first.initialize();
      // Its size is not known yet: the worker lists it early, and the index then keeps its size (2 files).
      await waitUntil(() => fs.existsSync(cache) && fs.readdirSync(cache).some((name) => name.startsWith('listed-') && !name.endsWith('.tmp')));
    } finally {
      await first.stop({ keepWorkspace: true });
    }
    const atFirst = loadedAtReply(path.join(dir, 'small-1.json'));
    assert.ok(atFirst.workers >= 1, 'a workspace of unknown size: a worker booted before the handshake, to list it');
    const second = serverWithPreload(notes, path.join(dir, 'small-2.json'), cache);
    try {
      // A client slow to send its initialize: the server has long been ready and waiting for it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await second.initialize();
      const atSecond = loadedAtReply(path.join(dir, 'small-2.json'));
      assert.equal(atSecond.workers, 0, 'a workspace known to be small: no worker thread before the handshake');
      // The index starts its own worker after the handshake, and searches as before.
      const found = await second.request(1, 'tools/call', { name: 'search_files', arguments: { query: 'deadline' } });
      assert.match(JSON.stringify(found.result), /a\.md/);
    } finally {
      await second.stop();
    }
  });

  it('runs none of them for list_files, read_file and a plain search, but the built-ins they use and picomatch: node:fs/promises, node:crypto for the stand-in of their structured replies, picomatch for the exclude globs', async () => {
    const loads = await loadsDuring([
      ['list_files', {}],
      ['read_file', { path: 'a.md' }],
      ['search_files', { query: 'deadline' }],
    ]);
    assert.deepEqual([...loads].sort(), ['node:crypto', 'node:fs/promises', 'picomatch']);
    // Nor node:v8 (about 2 ms), which only a start-up snapshot's build needs (see per-process.ts).
    const builtins = JSON.parse(fs.readFileSync(path.join(dir, 'loads-3.json.builtins'), 'utf8')) as string[];
    assert.ok(builtins.includes('NativeModule fs'), 'the list of built-in modules loaded is read');
    assert.ok(!builtins.includes('NativeModule v8'), 'node:v8 is not loaded');
  });

  it('leaves node:child_process to the first search that runs ripgrep', async () => {
    await loadsDuring([
      ['list_files', {}],
      ['read_file', { path: 'a.md' }],
    ]);
    const builtins = JSON.parse(fs.readFileSync(path.join(dir, 'loads-2.json.builtins'), 'utf8')) as string[];
    assert.ok(builtins.includes('NativeModule fs'), 'the list of built-in modules loaded is read');
    assert.ok(!builtins.includes('NativeModule child_process'), 'node:child_process is not loaded');
  });

  it('runs the note parsers when a note is first parsed (the list above is really kept)', async () => {
    const loads = await loadsDuring([['get_note_metadata', { path: 'a.md' }]]);
    assert.ok(loads.includes('gray-matter') && loads.includes('markdown-it'), JSON.stringify(loads));
    assert.ok(!loads.includes('vscode-jsonrpc'), 'the editor bridge is not used');
    assert.ok(!loads.includes('server/editor-bridge-client.ts'), "nor the bridge's client");
  });

  it("runs the editor bridge's client when an editor tool is first called, and answers as before without an editor", async () => {
    const out = path.join(dir, 'loads-editor.json');
    // No VS Code window to find: the server's own home (see RawServer) has no discovery files, nor its environment a bridge.
    const server = new RawServer({
      workspace: notesFolder(),
      env: {
        NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${JSON.stringify(path.join(dir, 'preload.cjs'))}`].filter(Boolean).join(' '),
        LAZY_LOADS_OUT: out,
        NOTESAPP_CACHE_DIR: path.join(dir, 'cache'),
        NOTESAPP_NO_CODE_CACHE: '',
        NOTESAPP_BRIDGE_ADDRESS: '',
        NOTESAPP_BRIDGE_TOKEN: '',
      },
    });
    try {
      await server.initialize();
      assert.deepEqual(loadedAtReply(out).loads, [], 'not for the handshake');
      const reply = await server.request(1, 'tools/call', { name: 'get_editor_content', arguments: {} });
      assert.equal(reply.result?.isError, true, JSON.stringify(reply));
      assert.match(JSON.stringify(reply.result), /No VS Code editor is attached/);
    } finally {
      await server.stop();
    }
    const loads = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
    assert.ok(loads.includes('server/editor-bridge-client.ts'), JSON.stringify(loads));
  });
});
