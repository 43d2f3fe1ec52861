// readConfig / updateConfig / watchConfig / resetConfig on a real file in a temp folder (spec 4.4).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { isNotesError } from '../../../src/core/errors';
import { withFileLock } from '../../../src/core/config/lock';
import { loadConfigFile, MAX_CONFIG_BYTES } from '../../../src/core/config/load';
import { CONFIG_VERSION, defaultConfig, type NotesConfig } from '../../../src/core/config/schema';
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

    it('a file of only comments holds no settings, like an empty one: the defaults, no problem, and an update keeps the comments', async () => {
      const onlyComments = '// Settings go here once I need some.\n/* "editor": { "fontSize": 18 } */\n';
      fs.writeFileSync(tmp.file, onlyComments);
      const reports: unknown[] = [];
      const s = new ConfigStore({ file: tmp.file, onInvalid: (r) => reports.push(r) });
      const result = await s.inspect();
      assert.deepEqual(result.problems, []);
      assert.equal(result.unusable, undefined);
      assert.deepEqual(result.config, defaultConfig());
      assert.deepEqual(reports, [], 'no notice');
      assert.deepEqual(backupsIn(tmp.dir), [], 'no backup');
      const updated = await s.setConfigValue(['plugins', 'settings', 'sync', 'interval'], 5);
      assert.deepEqual(updated.plugins.settings, { sync: { interval: 5 } });
      const text = fs.readFileSync(tmp.file, 'utf8');
      assert.ok(text.startsWith(onlyComments), text);
      assert.deepEqual((await s.readConfig()).plugins.settings, { sync: { interval: 5 } });
    });

    it('a comment left open is still a syntax error', async () => {
      fs.writeFileSync(tmp.file, '/* "editor": { "fontSize": 18 }\n');
      assert.match((await store.inspect()).unusable ?? '', /UnexpectedEndOfComment/);
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

    it('gives a customTheme without its name the name, keeping the colors the file holds', async () => {
      fs.writeFileSync(tmp.file, '{\n  "version": "1.1.0",\n  "customTheme": { "colors": { "background": "#101010" } }\n}\n');
      assert.equal((await store.readConfig()).customTheme, null, 'without a name the theme takes its default');
      const result = await store.updateConfig({ theme: 'custom', customTheme: { name: 'Night' } });
      const expected = { name: 'Night', colors: { background: '#101010' }, syntax: {} };
      assert.deepEqual(result.customTheme, expected);
      assert.deepEqual((await store.readConfig()).customTheme, expected);
      assert.deepEqual((readJson(tmp.file) as unknown as NotesConfig).customTheme, { colors: { background: '#101010' }, name: 'Night' });
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

    it('from a read the caller already acts on (`since`), reports a save made after it and before the watch started', async () => {
      fs.writeFileSync(tmp.file, '{ "version": "1.1.0", "editor": { "fontSize": 18 } }');
      const start = loadConfigFile(tmp.file);
      // Saved while the caller (the MCP server at start) was still setting up.
      fs.writeFileSync(tmp.file, '{ "version": "1.1.0", "editor": { "fontSize": 24 } }');
      const [next, old] = await new Promise<[NotesConfig, NotesConfig]>((resolve) => {
        stops.push(store.watchConfig((n, o) => resolve([n, o]), { since: { config: start.config, unusable: false } }));
      });
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

    it('reports a file fixed back to the values its unusable read gave, as usable again', async () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: CONFIG_VERSION, theme: 'dark' }));
      const calls: Array<{ theme: string; unusable: string | undefined }> = [];
      let wake = () => {};
      const stop = store.watchConfig((n, _o, { unusable }) => {
        calls.push({ theme: n.theme, unusable });
        wake();
      });
      stops.push(stop);
      const next = () => new Promise<void>((r) => (wake = r));
      let told = next();
      fs.writeFileSync(tmp.file, '{ "version": "1.1.0", "theme": "dark" '); // saved half-typed: not JSON
      await told;
      assert.equal(calls.length, 1);
      assert.equal(calls[0].theme, defaultConfig().theme, 'an unusable file reads as the defaults');
      assert.match(String(calls[0].unusable), /./);
      told = next();
      fs.writeFileSync(tmp.file, '{}'); // fixed, to exactly the defaults
      await told;
      assert.deepEqual(calls[1], { theme: defaultConfig().theme, unusable: undefined }, 'the fixed file is news though its values are the same');
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
      const logger = recordingLogger();
      const blocked = new ConfigStore({ file: `${tmp.dir}/missing/config.json`, logger });
      const stop = blocked.watchConfig(() => undefined);
      assert.equal(typeof stop, 'function');
      stop();
      assert.equal(logger.lines.length, 1);
      assert.match(logger.lines[0], /^warn Cannot watch .*missing for changes at once \(ENOENT.*\); .*config\.json is checked every 1 s instead$/);
    });

    it('creates no folder for a file whose folder does not exist, and reports the file once it is written there', async () => {
      const file = `${tmp.dir}/nodir/deeper/config.json`;
      const watching = new ConfigStore({ file, debounceMs: 20, logger: recordingLogger() });
      const change = new Promise<NotesConfig>((resolve) => stops.push(watching.watchConfig((n) => resolve(n))));
      assert.equal(fs.existsSync(`${tmp.dir}/nodir`), false, 'watching created nothing');
      // Past the read the watch makes when it starts: only the polled status can see this file arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      fs.mkdirSync(`${tmp.dir}/nodir/deeper`, { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ editor: { fontSize: 21 } }));
      assert.equal((await change).editor.fontSize, 21);
    });

    it('reports a file written, folder and all, the moment the watch starts', async () => {
      // No folder to watch: the polled status alone could miss it (its first look may come after the write).
      const file = `${tmp.dir}/later/config.json`;
      const watching = new ConfigStore({ file, debounceMs: 20, logger: recordingLogger() });
      const change = new Promise<NotesConfig>((resolve) => stops.push(watching.watchConfig((n) => resolve(n))));
      fs.mkdirSync(`${tmp.dir}/later`);
      fs.writeFileSync(file, JSON.stringify({ editor: { fontSize: 23 } }));
      assert.equal((await change).editor.fontSize, 23);
    });

    it('follows a config file reached through a symbolic link, when its target is replaced in the target folder', async () => {
      fs.mkdirSync(`${tmp.dir}/real`);
      fs.writeFileSync(`${tmp.dir}/real/config.json`, JSON.stringify({ theme: 'light' }));
      fs.mkdirSync(`${tmp.dir}/link`);
      fs.symlinkSync(`${tmp.dir}/real/config.json`, `${tmp.dir}/link/config.json`);
      const linked = new ConfigStore({ file: `${tmp.dir}/link/config.json`, debounceMs: 20 });
      const themes: string[] = [];
      let seen!: () => void;
      const first = new Promise<void>((resolve) => (seen = resolve));
      stops.push(linked.watchConfig((n) => (themes.push(n.theme), seen())));
      fs.writeFileSync(`${tmp.dir}/real/new.json`, JSON.stringify({ theme: 'dark' }));
      fs.renameSync(`${tmp.dir}/real/new.json`, `${tmp.dir}/real/config.json`);
      await first;
      assert.deepEqual(themes, ['dark']);
    });

    /** Watches `watched`, recording each theme it reports; `next()` resolves at the report after it is called. */
    const watchThemes = (watched: ConfigStore) => {
      const themes: string[] = [];
      let wake: (() => void) | undefined;
      stops.push(watched.watchConfig((n) => (themes.push(n.theme), wake?.())));
      return { themes, next: () => new Promise<void>((resolve) => (wake = resolve)) };
    };

    it('goes on reporting changes after its folder is deleted and made again', async () => {
      await store.updateConfig({ theme: 'light' });
      const { themes, next } = watchThemes(store);
      let change = next();
      fs.rmSync(tmp.dir, { recursive: true, force: true });
      await change; // back to the defaults: the file is gone
      fs.mkdirSync(tmp.dir);
      change = next();
      fs.writeFileSync(tmp.file, JSON.stringify({ theme: 'dark' }));
      await change;
      change = next();
      fs.writeFileSync(tmp.file, JSON.stringify({ theme: 'light' }));
      await change;
      assert.deepEqual(themes, ['system', 'dark', 'light']);
    });

    it('reads the file again when its folder is moved away and back, unchanged', async function () {
      this.timeout(20_000);
      await store.updateConfig({ theme: 'dark' });
      const { themes, next } = watchThemes(store);
      let change = next();
      const away = `${tmp.dir}.away`;
      fs.renameSync(tmp.dir, away);
      await change; // the file is gone: the defaults
      change = next();
      fs.renameSync(away, tmp.dir); // the same file, inode and time: only its return tells
      await change;
      assert.deepEqual(themes, ['system', 'dark']);
    });

    it('reads a file reached through a symbolic link again when the target folder is moved away and back', async function () {
      this.timeout(20_000);
      fs.mkdirSync(`${tmp.dir}/real`);
      fs.writeFileSync(`${tmp.dir}/real/config.json`, JSON.stringify({ theme: 'light' }));
      fs.mkdirSync(`${tmp.dir}/link`);
      fs.symlinkSync(`${tmp.dir}/real/config.json`, `${tmp.dir}/link/config.json`);
      const linked = new ConfigStore({ file: `${tmp.dir}/link/config.json`, debounceMs: 20 });
      const { themes, next } = watchThemes(linked);
      let change = next();
      fs.renameSync(`${tmp.dir}/real`, `${tmp.dir}/away`);
      await change; // the link leads nowhere: the defaults
      change = next();
      fs.renameSync(`${tmp.dir}/away`, `${tmp.dir}/real`);
      await change;
      assert.deepEqual(themes, ['system', 'light']);
    });

    it('logs a file that turns unreadable, once, and keeps running on the defaults', async () => {
      const logger = recordingLogger();
      const watched = new ConfigStore({ file: tmp.file, debounceMs: 20, logger });
      await watched.updateConfig({ theme: 'dark' });
      const change = new Promise<NotesConfig>((resolve) => stops.push(watched.watchConfig((n) => resolve(n))));
      fs.rmSync(tmp.file);
      fs.mkdirSync(tmp.file); // a folder where the file was
      assert.equal((await change).theme, defaultConfig().theme);
      await watched.readConfig();
      const errors = logger.lines.filter((l) => l.startsWith('error'));
      assert.equal(errors.length, 1, logger.lines.join('\n'));
      assert.match(errors[0], /cannot be read; the defaults are used in memory and nothing is written to it: cannot read .*EISDIR/);
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

  describe('files it must not write over', () => {
    it('refuses to update or reset a file it cannot read (a folder in its place), and writes nothing', async () => {
      fs.mkdirSync(tmp.file);
      fs.writeFileSync(`${tmp.file}/inside`, 'kept');
      for (const attempt of [() => store.updateConfig({ theme: 'dark' }), () => store.resetConfig()]) {
        await assert.rejects(attempt(), (err: unknown) => {
          assert.ok(isNotesError(err, 'CONFIG_INVALID'));
          assert.match((err as Error).message, /cannot be read \(cannot read .*EISDIR.*\), so its settings cannot be kept or backed up: .* Nothing was written\.$/);
          return true;
        });
      }
      assert.deepEqual(fs.readdirSync(tmp.dir), ['config.json']);
      assert.equal(fs.readFileSync(`${tmp.file}/inside`, 'utf8'), 'kept');
    });

    it('reads a named pipe in its place as unreadable at once (no waiting for a writer), and writes nothing', async function () {
      if (process.platform === 'win32') this.skip(); // no named pipes among files on Windows
      execFileSync('mkfifo', [tmp.file]);
      const load = loadConfigFile(tmp.file);
      assert.deepEqual(load.config, defaultConfig());
      assert.match(load.readError ?? '', /is not a regular file \(a named pipe, socket or device\)/);
      await assert.rejects(store.updateConfig({ theme: 'dark' }), /cannot be read .* Nothing was written\./);
      assert.ok(fs.statSync(tmp.file).isFIFO());
    });

    it('refuses a file over the size limit without reading it, and writes nothing over it', async () => {
      fs.writeFileSync(tmp.file, '{}');
      fs.truncateSync(tmp.file, MAX_CONFIG_BYTES + 1);
      const load = loadConfigFile(tmp.file);
      assert.deepEqual(load.config, defaultConfig());
      assert.match(load.problems[0], new RegExp(`is ${MAX_CONFIG_BYTES + 1} bytes, over the ${MAX_CONFIG_BYTES}-byte limit for a configuration file \\(defaults used\\)$`));
      await assert.rejects(store.updateConfig({ theme: 'dark' }), /over the \d+-byte limit .* Nothing was written\./);
      assert.equal(fs.statSync(tmp.file).size, MAX_CONFIG_BYTES + 1);
      assert.deepEqual(backupsIn(tmp.dir), []);
    });

    it('refuses an update that would make the file too large to be read back, naming the limit, and changes nothing', async () => {
      const text = `{\n  "version": "${CONFIG_VERSION}",\n  "integrations": { "mcp": { "port": 4000, "tools": { "fileOperations": false } } }\n}\n`;
      fs.writeFileSync(tmp.file, text);
      const huge = 'x'.repeat(MAX_CONFIG_BYTES + 1024);
      for (const attempt of [
        () => store.updateConfig({ workspace: { recentWorkspaces: [huge] } }),
        () => store.setConfigValue(['plugins', 'settings', 'p', 'notes'], huge),
      ]) {
        await assert.rejects(attempt(), (err: unknown) => {
          assert.ok(isNotesError(err, 'CONFIG_INVALID'));
          assert.match((err as Error).message, new RegExp(`over the ${MAX_CONFIG_BYTES}-byte \\(16 MiB\\) limit for a configuration file, so it could not be read back\\. Nothing was written\\.$`));
          return true;
        });
      }
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), text);
      assert.deepEqual(backupsIn(tmp.dir), []);
      const config = await store.readConfig();
      assert.equal(config.integrations.mcp.tools.fileOperations, false, 'a tool category switched off stays off');
      assert.equal(config.integrations.mcp.port, 4000);
      await store.updateConfig({ theme: 'dark' });
      assert.equal((await store.readConfig()).theme, 'dark', 'later updates are written as before');
    });

    it('does not migrate a file on disk when the migrated file would be too large to be read back', async () => {
      // Compact, the file is under the limit; migrated, it is written indented, one item a line: over it.
      const list = new Array(1_400_000).fill(0);
      const text = JSON.stringify({ mcp: { port: 4000 }, plugins: { settings: { p: { list } } } });
      assert.ok(text.length < MAX_CONFIG_BYTES);
      fs.writeFileSync(tmp.file, text);
      const logger = recordingLogger();
      const s = new ConfigStore({ file: tmp.file, logger });
      const config = await s.readConfig({ migrate: true });
      assert.equal(config.integrations.mcp.port, 4000, 'its values are used migrated');
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), text);
      assert.deepEqual(backupsIn(tmp.dir), []);
      assert.ok(
        logger.lines.some((l) => l.startsWith(`warn Configuration ${tmp.file} is not migrated on disk: it would be `) && l.includes(`over the ${MAX_CONFIG_BYTES}-byte (16 MiB) limit`)),
        logger.lines.join('\n'),
      );
    });

    it('refuses an update that would land in the first copy of a key written twice, naming the key', async () => {
      const text = `{\n  "version": "${CONFIG_VERSION}",\n  "editor": { "fontSize": 16, "fontSize": 18 },\n  "theme": "dark"\n}\n`;
      fs.writeFileSync(tmp.file, text);
      assert.equal((await store.readConfig()).editor.fontSize, 18, 'the last copy counts');
      await assert.rejects(store.updateConfig({ editor: { fontSize: 20 } }), (err: unknown) => {
        assert.ok(isNotesError(err, 'CONFIG_INVALID'));
        assert.match((err as Error).message, /holds "editor\.fontSize" more than once \(the last copy counts\).* Nothing was written\.$/);
        return true;
      });
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), text);
      // A key that is not written twice is still updated in place.
      await store.updateConfig({ theme: 'light' });
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), text.replace('"dark"', '"light"'));
    });

    it('does not migrate over an update another writer made after the file was first read', async () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ editor: { fontSize: 20 } })); // no version: to be migrated
      const other = { version: CONFIG_VERSION, editor: { fontSize: 30 } };
      let migrated!: Promise<NotesConfig>;
      await withFileLock(tmp.file, async () => {
        // The migration reads the old file now and then waits for the lock this writer holds.
        migrated = store.readConfig({ migrate: true });
        await new Promise((resolve) => setTimeout(resolve, 100));
        fs.writeFileSync(tmp.file, JSON.stringify(other));
      });
      assert.equal((await migrated).editor.fontSize, 30);
      assert.deepEqual(readJson(tmp.file), other, "the other writer's file stays");
      assert.deepEqual(backupsIn(tmp.dir), []);
    });
  });
});
