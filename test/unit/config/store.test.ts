// readConfig / updateConfig / watchConfig / resetConfig on a real file in a temp folder (spec 4.4).
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { isNotesError } from '../../../src/core/errors';
import { defaultConfig, type NotesConfig } from '../../../src/core/config/schema';
import { withFileLock } from '../../../src/core/config/lock';
import { ConfigStore } from '../../../src/core/config/store';
import { backupsIn, readJson, recordingLogger, tempConfigDir } from './helpers';

describe('config store', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  let store: ConfigStore;
  const stops: (() => void)[] = [];
  beforeEach(() => {
    tmp = tempConfigDir();
    store = new ConfigStore({ file: tmp.file, debounceMs: 20 });
  });
  afterEach(() => {
    stops.splice(0).forEach((stop) => stop());
    tmp.cleanup();
  });

  describe('readConfig', () => {
    it('gives the defaults for a missing file and does not create it', async () => {
      assert.deepEqual(await store.readConfig(), defaultConfig());
      assert.equal(fs.existsSync(tmp.file), false);
    });

    it('fills fields the file leaves out with their defaults', async () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', editor: { fontSize: 20 } }));
      const config = await store.readConfig();
      assert.equal(config.editor.fontSize, 20);
      assert.equal(config.editor.lineHeight, defaultConfig().editor.lineHeight);
      assert.equal(config.integrations.mcp.port, 3456);
    });
  });

  describe('JSON with comments, like VS Code settings files', () => {
    const commented = [
      '{',
      '  "$schema": "./config.schema.json",',
      '  // Notes look better in a serif.',
      '  "version": "1.1.0",',
      '  "editor": {',
      '    "fontFamily": "Georgia", /* block comment */',
      '    "fontSize": 18,',
      '  },',
      '}',
      '',
    ].join('\n');

    it('reads comments, trailing commas and a "$schema" key without a problem', async () => {
      fs.writeFileSync(tmp.file, commented);
      const reports: unknown[] = [];
      const s = new ConfigStore({ file: tmp.file, onInvalid: (r) => reports.push(r) });
      const result = await s.inspect();
      assert.deepEqual(result.problems, []);
      assert.equal(result.config.editor.fontFamily, 'Georgia');
      assert.equal(result.config.editor.fontSize, 18);
      assert.deepEqual(reports, []);
      assert.deepEqual(backupsIn(tmp.dir), []);
    });

    it('an update edits the file in place: comments, "$schema", order and unknown keys stay', async () => {
      fs.writeFileSync(tmp.file, commented.replace('"version"', '"myOwnNote": "hi",\n  "version"'));
      await store.updateConfig({ editor: { fontSize: 20 }, ui: { showStatusBar: false } });
      const text = fs.readFileSync(tmp.file, 'utf8');
      assert.match(text, /\/\/ Notes look better in a serif\./);
      assert.match(text, /\/\* block comment \*\//);
      assert.match(text, /"\$schema": "\.\/config\.schema\.json"/);
      assert.match(text, /"myOwnNote": "hi"/);
      assert.match(text, /"fontSize": 20/);
      const config = await store.readConfig();
      assert.equal(config.editor.fontSize, 20);
      assert.equal(config.ui.showStatusBar, false);
      assert.equal(config.editor.fontFamily, 'Georgia');
      assert.ok(text.indexOf('"$schema"') < text.indexOf('"version"') && text.indexOf('"version"') < text.indexOf('"editor"'), 'order kept');
    });
  });

  describe('updateConfig', () => {
    it('deep-merges into the file: siblings and other sections survive', async () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', editor: { fontSize: 20, fontFamily: 'Georgia' }, theme: 'dark' }));
      const result = await store.updateConfig({ editor: { lineHeight: 2 } });
      const onDisk = readJson(tmp.file) as unknown as NotesConfig;
      assert.equal(onDisk.editor.fontSize, 20);
      assert.equal(onDisk.editor.fontFamily, 'Georgia');
      assert.equal(onDisk.editor.lineHeight, 2);
      assert.equal(onDisk.theme, 'dark');
      assert.deepEqual(result, await store.readConfig());
    });

    it('replaces arrays', async () => {
      await store.updateConfig({ files: { excludePatterns: ['a/**', 'b/**'] } });
      await store.updateConfig({ files: { excludePatterns: ['c/**'] } });
      assert.deepEqual((await store.readConfig()).files.excludePatterns, ['c/**']);
    });

    it('merges plugin settings per plugin and per key', async () => {
      await store.updateConfig({ plugins: { settings: { ai: { apiKey: 'k1', option: 1 } } } });
      await store.updateConfig({ plugins: { settings: { ai: { option: 2 }, other: { x: true } } } });
      assert.deepEqual((await store.readConfig()).plugins.settings, { ai: { apiKey: 'k1', option: 2 }, other: { x: true } });
    });

    it('creates the file and its folder when missing', async () => {
      const nested = new ConfigStore({ file: `${tmp.dir}/a/b/config.json` });
      await nested.updateConfig({ theme: 'light' });
      assert.equal(readJson(`${tmp.dir}/a/b/config.json`).theme, 'light');
    });

    it('rejects an invalid update with CONFIG_INVALID naming the field, and leaves the file byte for byte', async () => {
      await store.updateConfig({ editor: { fontSize: 18 } });
      const before = fs.readFileSync(tmp.file);
      await assert.rejects(store.updateConfig({ editor: { fontSize: 40 } }), (err: unknown) => {
        assert.ok(isNotesError(err, 'CONFIG_INVALID'));
        assert.match(err.message, /editor\.fontSize/);
        return true;
      });
      assert.ok(fs.readFileSync(tmp.file).equals(before));
      await store.updateConfig({ editor: { fontSize: 19 } });
      assert.equal((await store.readConfig()).editor.fontSize, 19, 'the store keeps working after a rejected update');
    });

    it('loses none of many concurrent updates from one store', async () => {
      await Promise.all(Array.from({ length: 25 }, (_, i) => store.updateConfig({ plugins: { settings: { [`p${i}`]: { n: i } } } })));
      const settings = (await store.readConfig()).plugins.settings;
      assert.equal(Object.keys(settings).length, 25);
      for (let i = 0; i < 25; i++) assert.deepEqual(settings[`p${i}`], { n: i });
    });

    it('loses none of concurrent updates from separate stores on the same file (lock file)', async () => {
      const stores = Array.from({ length: 5 }, () => new ConfigStore({ file: tmp.file }));
      await Promise.all(
        stores.flatMap((s, i) => Array.from({ length: 5 }, (_, j) => s.updateConfig({ plugins: { settings: { [`s${i}-${j}`]: { ok: true } } } }))),
      );
      assert.equal(Object.keys((await store.readConfig()).plugins.settings).length, 25);
      assert.equal(fs.existsSync(`${tmp.file}.lock`), false, 'the lock is released');
    });

    it('takes over a lock left behind by a crashed process', async () => {
      fs.writeFileSync(`${tmp.file}.lock`, '99999');
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(`${tmp.file}.lock`, old, old);
      await store.updateConfig({ theme: 'dark' });
      assert.equal((await store.readConfig()).theme, 'dark');
    });
  });

  describe('lock file', () => {
    it('when many writers find the same stale lock, exactly one takes it over at a time', async () => {
      for (let round = 0; round < 5; round++) {
        fs.writeFileSync(`${tmp.file}.lock`, '99999');
        const old = new Date(Date.now() - 60_000);
        fs.utimesSync(`${tmp.file}.lock`, old, old);
        let inside = 0;
        let most = 0;
        await Promise.all(
          Array.from({ length: 8 }, () =>
            withFileLock(tmp.file, async () => {
              most = Math.max(most, ++inside);
              for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
              inside--;
            }),
          ),
        );
        assert.equal(most, 1, `round ${round}: two writers held the lock together`);
        assert.equal(fs.existsSync(`${tmp.file}.lock`), false);
      }
    });
  });

  describe('resetConfig', () => {
    it('writes the defaults and keeps the previous file as a backup', async () => {
      await store.updateConfig({ editor: { fontSize: 30 }, theme: 'dark' });
      const before = fs.readFileSync(tmp.file);
      const result = await store.resetConfig();
      assert.deepEqual(result, defaultConfig());
      assert.deepEqual(readJson(tmp.file), defaultConfig());
      const backups = backupsIn(tmp.dir);
      assert.equal(backups.length, 1);
      assert.match(backups[0], /^config\.json\.pre-reset-.*\.bak$/);
      assert.ok(fs.readFileSync(`${tmp.dir}/${backups[0]}`).equals(before));
    });

    it('works on an invalid file and on a missing one', async () => {
      fs.writeFileSync(tmp.file, '{ not json');
      assert.deepEqual(await store.resetConfig(), defaultConfig());
      fs.rmSync(tmp.file);
      assert.deepEqual(await store.resetConfig(), defaultConfig());
      assert.deepEqual(readJson(tmp.file), defaultConfig());
    });
  });

  describe('watchConfig', () => {
    function nextChange(): Promise<[NotesConfig, NotesConfig]> {
      return new Promise((resolve) => {
        const stop = store.watchConfig((n, o) => {
          stop();
          resolve([n, o]);
        });
        stops.push(stop);
      });
    }

    it('reports an update through the store with the new and the old configuration', async () => {
      const change = nextChange();
      await store.updateConfig({ editor: { fontSize: 22 } });
      const [next, old] = await change;
      assert.equal(next.editor.fontSize, 22);
      assert.equal(old.editor.fontSize, 16);
    });

    it('reports an external edit of the file (another program writing it)', async () => {
      await store.updateConfig({ editor: { fontSize: 18 } });
      const change = nextChange();
      const text = fs.readFileSync(tmp.file, 'utf8').replace('"fontSize": 18', '"fontSize": 24');
      fs.writeFileSync(tmp.file, text);
      const [next, old] = await change;
      assert.equal(next.editor.fontSize, 24);
      assert.equal(old.editor.fontSize, 18);
    });

    it('reports an external atomic replace (rename over the file), as editors save', async () => {
      await store.updateConfig({ theme: 'light' });
      const change = nextChange();
      fs.writeFileSync(`${tmp.dir}/tmp.json`, JSON.stringify({ ...defaultConfig(), theme: 'dark' }));
      fs.renameSync(`${tmp.dir}/tmp.json`, tmp.file);
      const [next, old] = await change;
      assert.equal(next.theme, 'dark');
      assert.equal(old.theme, 'light');
    });

    it('calls the callback once for a burst of writes (debounced), and never after stop', async () => {
      const seen: number[] = [];
      let resolveFirst!: () => void;
      const first = new Promise<void>((r) => (resolveFirst = r));
      const stop = store.watchConfig((n) => {
        seen.push(n.editor.fontSize);
        resolveFirst();
      });
      stops.push(stop);
      for (const size of [11, 12, 13, 14]) fs.writeFileSync(tmp.file, JSON.stringify({ editor: { fontSize: size } }));
      await first;
      assert.deepEqual(seen, [14]);
      stop();
      await store.updateConfig({ editor: { fontSize: 15 } });
      assert.deepEqual(seen, [14], 'no call after stop');
    });

    it('a folder that cannot be watched is logged, not thrown', () => {
      fs.writeFileSync(`${tmp.dir}/plain-file`, '');
      const logger = recordingLogger();
      const blocked = new ConfigStore({ file: `${tmp.dir}/plain-file/config.json`, logger });
      const stop = blocked.watchConfig(() => undefined);
      assert.equal(typeof stop, 'function');
      stop();
      assert.equal(logger.lines.length, 1);
      assert.match(logger.lines[0], /^warn Cannot watch/);
    });

    it('does not call back when a write leaves the configuration equal', async () => {
      await store.updateConfig({ theme: 'dark' });
      const calls: string[] = [];
      stops.push(store.watchConfig((n) => calls.push(n.theme)));
      await store.updateConfig({ theme: 'dark' });
      const change = nextChange();
      await store.updateConfig({ theme: 'light' });
      await change;
      assert.deepEqual(calls, ['light']);
    });
  });
});
