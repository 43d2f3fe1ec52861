// What reading the config file gave, kept between starts of one build (server/config-load-cache.ts): the same as
// reading the file, for every kind of file, and never used for other bytes or by another build.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFile, useConfigLoadMemo, type ConfigLoadMemo } from '../../../src/core/config/load';
import { configLoadCache, configLoadCacheFile, MAX_KEPT_BYTES } from '../../../server/config-load-cache';

/** Files of every kind a config file can be, by what they show. */
const FILES: Record<string, string | Buffer> = {
  valid: JSON.stringify({ version: '1.1.0', editor: { fontSize: 20 }, search: { maxResults: 42 } }),
  'with invalid values': JSON.stringify({ version: '1.1.0', editor: { fontSize: 500, tabSize: 'wide' }, theme: 'neon' }),
  'of an older version (migrated)': JSON.stringify({ version: '1.0.0', fontSize: 18, mcp: { enabled: true } }),
  'with comments and a trailing comma': '// mine\n{ "editor": { "fontSize": 14, }, }\n',
  'with a syntax error': '{ "editor": { "fontSize": 14 ',
  'empty': '',
  'of comments only': '// nothing yet\n',
  'not UTF-8': Buffer.concat([Buffer.from('{ "editor": { "fontFamily": "'), Buffer.from([0xe9, 0xff]), Buffer.from('" } }')]),
  'not an object': '[1, 2]',
};

describe('config reads kept between starts', () => {
  let dir: string;
  let cache: string;
  let configFile: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-config-cache-'));
    cache = path.join(dir, 'cache');
    configFile = path.join(dir, 'config.json');
  });
  afterEach(() => {
    useConfigLoadMemo(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A memo as a new process of build `build` has it, counting the reads it answered. */
  function fresh(build = 'b1', onError?: (message: string) => void): { memo: ConfigLoadMemo & { flush(): void }; hits: () => number } {
    const memo = configLoadCache(cache, build, onError);
    let hits = 0;
    const counted = {
      get: (bytes: Buffer | null) => {
        const load = memo.get(bytes);
        if (load) hits++;
        return load;
      },
      set: memo.set.bind(memo),
      flush: memo.flush.bind(memo),
    };
    useConfigLoadMemo(counted);
    return { memo: counted, hits: () => hits };
  }

  function plainRead() {
    useConfigLoadMemo(undefined);
    return loadConfigFile(configFile);
  }

  for (const [kind, contents] of [...Object.entries(FILES), ['missing', undefined] as const]) {
    it(`gives, for a file ${kind}, what reading the file gives`, () => {
      if (contents !== undefined) fs.writeFileSync(configFile, contents);
      const first = fresh();
      const read = loadConfigFile(configFile);
      assert.equal(first.hits(), 0, 'nothing kept yet');
      first.memo.flush();
      assert.ok(fs.existsSync(configLoadCacheFile(cache, 'b1')), 'kept on disk');
      const second = fresh();
      const kept = loadConfigFile(configFile);
      assert.equal(second.hits(), 1, 'the second start takes the kept read');
      const expected = plainRead();
      assert.deepEqual(kept, expected);
      assert.deepEqual(read, expected);
    });
  }

  it('keeps them readable by the user only: a configuration may hold secrets', function () {
    if (process.platform === 'win32') this.skip(); // no POSIX modes: the user's profile folder is private
    fs.writeFileSync(configFile, JSON.stringify({ plugins: { settings: { mail: { apiKey: 'secret' } } } }));
    const memo = fresh();
    loadConfigFile(configFile);
    memo.memo.flush();
    assert.equal(fs.statSync(configLoadCacheFile(cache, 'b1')).mode & 0o777, 0o600);
  });

  it('reads the file again once its bytes change, however little', () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    const first = fresh();
    loadConfigFile(configFile);
    first.memo.flush();
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 21 } }));
    const second = fresh();
    assert.equal(loadConfigFile(configFile).config.editor.fontSize, 21);
    assert.equal(second.hits(), 0);
  });

  it('keeps the four newest reads, of whichever files', () => {
    const other = path.join(dir, 'other.json');
    const sizes = [11, 12, 13, 14, 15];
    const first = fresh();
    for (const size of sizes) {
      fs.writeFileSync(other, JSON.stringify({ editor: { fontSize: size } }));
      assert.equal(loadConfigFile(other).config.editor.fontSize, size);
    }
    first.memo.flush();
    const second = fresh();
    for (const size of [...sizes].reverse()) {
      fs.writeFileSync(other, JSON.stringify({ editor: { fontSize: size } }));
      assert.equal(loadConfigFile(other).config.editor.fontSize, size);
    }
    assert.equal(second.hits(), 4, 'all but the oldest');
  });

  it('gives each caller a copy of its own', () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    const first = fresh();
    loadConfigFile(configFile);
    first.memo.flush();
    fresh();
    const a = loadConfigFile(configFile);
    a.config.editor.fontSize = 30;
    a.problems.push('changed by a caller');
    const b = loadConfigFile(configFile);
    assert.equal(b.config.editor.fontSize, 20);
    assert.deepEqual(b.problems, []);
  });

  it('keeps the reads of one build only: another build reads the file, and its writes remove the older ones', () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    const old = fresh('b1');
    loadConfigFile(configFile);
    old.memo.flush();
    const next = fresh('b2');
    loadConfigFile(configFile);
    assert.equal(next.hits(), 0, "another build's read is not used");
    next.memo.flush();
    assert.deepEqual(fs.readdirSync(cache), [path.basename(configLoadCacheFile(cache, 'b2'))]);
  });

  it('takes a damaged cache file for an empty one and writes it anew', () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    const kept = configLoadCacheFile(cache, 'b1');
    fs.mkdirSync(cache, { recursive: true });
    const key = fs.readFileSync(configFile).toString('base64');
    for (const damaged of [
      'not json',
      '{"entries": 3}',
      JSON.stringify({ entries: [{ key, load: 'not json' }] }),
      JSON.stringify({ entries: [{ key, load: JSON.stringify({ problems: [] }) }] }),
      JSON.stringify({ entries: [{ key, load: JSON.stringify({ config: null, problems: [], migrated: false, migrationNotes: [] }) }] }),
    ]) {
      fs.writeFileSync(kept, damaged);
      const memo = fresh();
      const read = loadConfigFile(configFile);
      assert.equal(memo.hits(), 0, damaged);
      assert.deepEqual(read, plainRead(), damaged);
      useConfigLoadMemo(memo.memo);
      memo.memo.flush();
      const again = fresh();
      loadConfigFile(configFile);
      assert.equal(again.hits(), 1, `rewritten after ${damaged}`);
    }
  });

  it('costs only speed when the cache folder cannot be written', () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    fs.writeFileSync(cache, 'a file where the folder would be');
    const errors: string[] = [];
    const memo = fresh('b1', (message) => errors.push(message));
    assert.equal(loadConfigFile(configFile).config.editor.fontSize, 20);
    memo.memo.flush();
    assert.equal(errors.length, 1);
    assert.match(errors[0], /could not be kept/);
    assert.equal(loadConfigFile(configFile).config.editor.fontSize, 20, 'still read from memory');
  });

  it('keeps no file over the size limit, nor a read JSON does not give back exactly', () => {
    const big = JSON.stringify({ editor: { fontFamily: 'x'.repeat(MAX_KEPT_BYTES) } });
    for (const contents of [big, '{ "editor": { "letterSpacing": -0 } }']) {
      fs.writeFileSync(configFile, contents);
      const first = fresh();
      loadConfigFile(configFile);
      first.memo.flush();
      const second = fresh();
      assert.deepEqual(loadConfigFile(configFile), plainRead());
      assert.equal(second.hits(), 0, contents.slice(0, 40));
    }
    assert.ok(Object.is(plainRead().config.editor.letterSpacing, -0), 'the read the cache would have changed');
  });

  it('writes what it learnt when the process ends sooner than the write was due', async () => {
    fs.writeFileSync(configFile, JSON.stringify({ editor: { fontSize: 20 } }));
    const script = `
      const { configLoadCache } = require(${JSON.stringify(path.resolve(__dirname, '../../../server/config-load-cache.ts'))});
      const { loadConfigFile, useConfigLoadMemo } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/core/config/load.ts'))});
      useConfigLoadMemo(configLoadCache(${JSON.stringify(cache)}, 'b1'));
      loadConfigFile(${JSON.stringify(configFile)});
      process.exit(0);
    `;
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const again = fresh();
    loadConfigFile(configFile);
    assert.equal(again.hits(), 1);
  });
});
