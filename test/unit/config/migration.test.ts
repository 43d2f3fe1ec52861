// Migration of older config files (spec 9): flat keys into sections, version raised, original kept.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { loadConfigFile } from '../../../src/core/config/load';
import { MIGRATIONS, legacyFlatKeys, migrateConfig, type Migration } from '../../../src/core/config/migrations';
import { CONFIG_VERSION, defaultConfig } from '../../../src/core/config/schema';
import { ConfigStore } from '../../../src/core/config/store';
import { backupsIn, readJson, recordingLogger, tempConfigDir } from './helpers';

const legacy = {
  version: '0.9.0',
  theme: 'dark',
  fontSize: 18,
  lineHeight: 1.8,
  autoSave: false,
  sidebarWidth: 300,
  excludePatterns: ['drafts/**'],
  maxFileSize: 2048,
  mcp: { port: 4567 },
};

describe('config migration', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  beforeEach(() => (tmp = tempConfigDir()));
  afterEach(() => tmp.cleanup());

  it('moves flat keys into their sections and raises the version, in memory', () => {
    const { value, migrated, notes } = migrateConfig(legacy);
    assert.equal(migrated, true);
    assert.deepEqual(value, {
      version: CONFIG_VERSION,
      theme: 'dark',
      editor: { fontSize: 18, lineHeight: 1.8, autoSave: false },
      ui: { sidebarWidth: 300 },
      files: { excludePatterns: ['drafts/**'] },
      security: { maxFileSize: 2048 },
      integrations: { mcp: { port: 4567 } },
    });
    assert.ok(notes.includes('  fontSize -> editor.fontSize'));
    assert.equal(legacy.fontSize, 18, 'the input is not modified');
  });

  it('a file without a version counts as the oldest', () => {
    const { value, migrated } = migrateConfig({ fontSize: 12 });
    assert.equal(migrated, true);
    assert.deepEqual(value, { version: CONFIG_VERSION, editor: { fontSize: 12 } });
  });

  it('a version that is not major.minor.patch counts as the oldest, and the notes say so', () => {
    const { value, migrated, notes } = migrateConfig({ version: 'abc', fontSize: 12 });
    assert.equal(migrated, true);
    assert.deepEqual(value, { version: CONFIG_VERSION, editor: { fontSize: 12 } });
    assert.equal(notes[0], 'version "abc" is not of the form major.minor.patch: read as older than every version');
    assert.equal(migrateConfig({ version: 2 }).notes[0], 'version 2 is not of the form major.minor.patch: read as older than every version');
    assert.ok(!migrateConfig({ fontSize: 12 }).notes.some((n) => n.includes('not of the form')), 'a missing version is simply the oldest');
  });

  it('the sectioned value wins over a flat one', () => {
    const { value, notes } = migrateConfig({ version: '0.1.0', fontSize: 12, editor: { fontSize: 14 } });
    assert.deepEqual(value, { version: CONFIG_VERSION, editor: { fontSize: 14 } });
    assert.ok(notes.some((n) => n.includes('fontSize: dropped')));
  });

  it('a current or newer file is left alone', () => {
    for (const version of [CONFIG_VERSION, '9.0.0']) {
      const input = { version, editor: { fontSize: 12 } };
      const { value, migrated } = migrateConfig(input);
      assert.equal(migrated, false);
      assert.deepEqual(value, input);
    }
  });

  it('only the migrations newer than the file run (1.0.0 -> 1.1.0 moves mcp, not flat keys)', () => {
    const { value } = migrateConfig({ version: '1.0.0', mail: { enabled: true } });
    assert.deepEqual(value, { version: '1.1.0', integrations: { mail: { enabled: true } } });
  });

  it('the table ends at CONFIG_VERSION, is in order, and covers every field of the flat sections', () => {
    assert.equal(MIGRATIONS[MIGRATIONS.length - 1].to, CONFIG_VERSION);
    const versions = MIGRATIONS.map((m) => m.to);
    assert.deepEqual([...versions].sort(), versions);
    const flat = legacyFlatKeys();
    for (const [section, key] of [['editor', 'fontSize'], ['editor', 'enableMath'], ['ui', 'notificationPosition'], ['performance', 'cacheSize'], ['development', 'devTools'], ['files', 'excludePatterns']]) {
      assert.equal(flat[key], section, key);
    }
  });

  it('is easy to extend: a new table entry runs after the existing ones', () => {
    const extra: Migration = {
      to: '2.0.0',
      description: 'rename theme "auto" to "system"',
      migrate: (raw) => {
        if (raw.theme === 'auto') raw.theme = 'system';
        return [];
      },
    };
    const { value } = migrateConfig({ fontSize: 11, theme: 'auto' }, [...MIGRATIONS, extra]);
    assert.deepEqual(value, { version: '2.0.0', theme: 'system', editor: { fontSize: 11 } });
  });

  it('loadConfigFile (what the server uses) reads an old file migrated, without writing', () => {
    const text = JSON.stringify(legacy);
    fs.writeFileSync(tmp.file, text);
    const { config, migrated, problems } = loadConfigFile(tmp.file);
    assert.equal(migrated, true);
    assert.deepEqual(problems, []);
    assert.equal(config.editor.fontSize, 18);
    assert.equal(config.integrations.mcp.port, 4567);
    assert.equal(config.editor.fontFamily, defaultConfig().editor.fontFamily);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), text);
  });

  it('the store writes the migrated file once and keeps the original as a backup', async () => {
    const original = Buffer.from(JSON.stringify(legacy, null, 4));
    fs.writeFileSync(tmp.file, original);
    const logger = recordingLogger();
    const store = new ConfigStore({ file: tmp.file, logger });
    const config = await store.readConfig({ migrate: true });
    assert.equal(config.security.maxFileSize, 2048);
    const onDisk = readJson(tmp.file);
    assert.equal(onDisk.version, CONFIG_VERSION);
    assert.equal(onDisk.fontSize, undefined);
    assert.deepEqual(onDisk.editor, { fontSize: 18, lineHeight: 1.8, autoSave: false });
    const backups = backupsIn(tmp.dir);
    assert.equal(backups.length, 1);
    assert.match(backups[0], /^config\.json\.pre-migration-/);
    assert.ok(fs.readFileSync(`${tmp.dir}/${backups[0]}`).equals(original));
    assert.ok(logger.lines.some((l) => l.startsWith('info') && l.includes('migrated')));
    await store.readConfig({ migrate: true });
    assert.equal(backupsIn(tmp.dir).length, 1, 'a migrated file is not migrated again');
  });

  it('a file written by hand without a version gets the version, first, and keeps its comments, order and line ends', async () => {
    const text = '\uFEFF{\r\n  // my font\r\n  "editor": { "fontSize": 18 }, // larger\r\n  "theme": "dark"\r\n}\r\n';
    fs.writeFileSync(tmp.file, text);
    const logger = recordingLogger();
    const store = new ConfigStore({ file: tmp.file, logger });
    const config = await store.readConfig({ migrate: true });
    assert.deepEqual([config.editor.fontSize, config.theme], [18, 'dark']);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), text.replace('{\r\n', `{\r\n  "version": "${CONFIG_VERSION}",\r\n`));
    assert.deepEqual(backupsIn(tmp.dir), [], 'nothing but the version changed: no backup');
    assert.ok(logger.lines.some((l) => l.startsWith('info') && l.includes('marked with the current version')));
  });

  it('an update to a file without a version keeps its comments, and adds the version', async () => {
    const text = '{\n  // my font\n  "editor": { "fontSize": 18 },\n  /* mine */ "plugins": { "settings": { "x": { "a": 1 } } }\n}\n';
    fs.writeFileSync(tmp.file, text);
    const store = new ConfigStore({ file: tmp.file });
    await store.updateConfig({ editor: { fontSize: 20 } });
    const after = fs.readFileSync(tmp.file, 'utf8');
    assert.equal(after, `{\n  "version": "${CONFIG_VERSION}",\n  // my font\n  "editor": { "fontSize": 20 },\n  /* mine */ "plugins": { "settings": { "x": { "a": 1 } } }\n}\n`);
    assert.deepEqual(backupsIn(tmp.dir), []);
  });

  it('a watcher never rewrites the file: an old file saved in an editor stays as it is, its values migrated in memory', async () => {
    const store = new ConfigStore({ file: tmp.file, debounceMs: 20 });
    const seen: number[] = [];
    let heard!: () => void;
    const changed = new Promise<void>((resolve) => (heard = resolve));
    const stop = store.watchConfig((config) => {
      seen.push(config.editor.fontSize);
      heard();
    });
    try {
      // As saved by someone typing in the file: no version, a flat legacy key, a comment.
      const text = '{\n  // bigger letters\n  "fontSize": 21\n}\n';
      fs.writeFileSync(tmp.file, text);
      await changed;
      assert.deepEqual(seen, [21], 'the migrated value reaches the listener');
      assert.equal(await store.readConfig().then((c) => c.editor.fontSize), 21);
      assert.equal(fs.readFileSync(tmp.file, 'utf8'), text, 'the file is left exactly as saved');
      assert.deepEqual(backupsIn(tmp.dir), []);
    } finally {
      stop();
    }
  });
});
