// Invalid config files: reasons logged, byte-for-byte backup beside the file, defaults in memory (spec 3).
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { MAX_BACKUPS_PER_KIND, writeBackup } from '../../../src/core/config/backup';
import { NotesError } from '../../../src/core/errors';
import { loadConfigFile } from '../../../src/core/config/load';
import { defaultConfig } from '../../../src/core/config/schema';
import { ConfigStore, type ConfigReport } from '../../../src/core/config/store';
import { backupsIn, recordingLogger, tempConfigDir } from './helpers';

describe('config recovery from an invalid file', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  beforeEach(() => (tmp = tempConfigDir()));
  afterEach(() => tmp.cleanup());

  it('bad JSON: logs why, backs it up byte for byte, uses the defaults and leaves the file for the user to fix', async () => {
    // A BOM-less file with odd bytes (CRLF, non-ASCII, a missing comma) must come back exactly.
    const original = Buffer.from('{\r\n  "theme": "dark"\r\n  "editor": { "fontFamily": "Noto Sans – ünïcode" },\r\n}\r\n', 'utf8');
    fs.writeFileSync(tmp.file, original);
    const logger = recordingLogger();
    const reports: ConfigReport[] = [];
    const store = new ConfigStore({ file: tmp.file, logger, onInvalid: (r) => reports.push(r) });

    assert.deepEqual(await store.readConfig(), defaultConfig());
    const backups = backupsIn(tmp.dir);
    assert.equal(backups.length, 1);
    assert.match(backups[0], /^config\.json\.invalid-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.bak$/);
    assert.ok(fs.readFileSync(`${tmp.dir}/${backups[0]}`).equals(original), 'the backup has the original bytes');
    assert.ok(fs.readFileSync(tmp.file).equals(original), 'the invalid file itself is not touched');
    assert.equal(logger.lines.length, 1);
    assert.match(logger.lines[0], /^error Configuration .* is invalid/);
    assert.match(logger.lines[0], /not valid JSON: CommaExpected at line 3, column 3/);
    assert.equal(reports.length, 1);
    assert.equal(reports[0].backupPath, `${tmp.dir}/${backups[0]}`);
  });

  it('bad JSON: the defaults, except that a server or tool category the file turns off stays off', () => {
    fs.writeFileSync(
      tmp.file,
      '{ "integrations": { "mcp": { "enabled": false, "autoStart": true, "tools": { "editor": false "ai": false, "search": true } } }, "theme": "dark" }',
    );
    const load = loadConfigFile(tmp.file);
    const expected = defaultConfig();
    expected.integrations.mcp.enabled = false;
    expected.integrations.mcp.tools.editor = false;
    expected.integrations.mcp.tools.ai = false;
    assert.deepEqual(load.config, expected, 'theme and every other value are the defaults; the switches that are off stay off');
    assert.match(load.problems[0], /^not valid JSON: CommaExpected .*\(what the file turns off stays off: integrations\.mcp\.enabled, integrations\.mcp\.tools\.editor, integrations\.mcp\.tools\.ai\)$/);

    // A file of an older version has its switch found too, where migration moves it (`mcp` -> `integrations.mcp`).
    fs.writeFileSync(tmp.file, '{ "version": "1.0.0", "mcp": { "enabled": false }, "theme": "dark" "x": 1 }');
    const legacy = loadConfigFile(tmp.file);
    assert.equal(legacy.config.integrations.mcp.enabled, false);
    assert.equal(legacy.config.theme, defaultConfig().theme);
  });

  it('bad JSON: a stray } before the switches does not turn the server or a tool category back on', () => {
    // The parser's own recovery ends the file at the stray brace; the keys after it are still what the user wrote.
    fs.writeFileSync(tmp.file, '{ "version": "1.1.0", "editor": { "fontSize": 12 }}, "integrations": { "mcp": { "enabled": false } } }');
    const load = loadConfigFile(tmp.file);
    assert.equal(load.config.integrations.mcp.enabled, false);
    assert.equal(load.config.editor.fontSize, defaultConfig().editor.fontSize, 'everything else is the defaults');
    assert.match(load.problems[0], /^not valid JSON: EndOfFileExpected .*stays off: integrations\.mcp\.enabled\)$/);

    // Two strays, a tool category deeper in, an array before it, comments, and a switch set back to true later on.
    fs.writeFileSync(
      tmp.file,
      '{ "plugins": { "enabled": ["a", "b"] } } } // done\n, "integrations": { "mcp": { "tools": { "fileOperations": false, "search": false, "search": true } } }',
    );
    const deeper = loadConfigFile(tmp.file);
    assert.equal(deeper.config.integrations.mcp.tools.fileOperations, false);
    assert.equal(deeper.config.integrations.mcp.tools.search, true, 'the last value of a key is what the file says');
    assert.equal(deeper.config.integrations.mcp.enabled, true);

    // A `false` with the same name elsewhere (a plugin's setting) turns nothing off.
    fs.writeFileSync(tmp.file, '{ "plugins": { "settings": { "p": { "enabled": false, "editor": false } } } }, "theme": "dark" }');
    assert.deepEqual(loadConfigFile(tmp.file).config, defaultConfig());
  });

  it('a file nested thousands deep gives the defaults and says why, instead of failing', () => {
    for (const text of [`{"a": ${'['.repeat(50_000)}`, `{"a": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`]) {
      fs.writeFileSync(tmp.file, text);
      const load = loadConfigFile(tmp.file);
      assert.deepEqual(load.config, defaultConfig());
      assert.match(load.problems[0], /nested too deeply to be read/);
    }
  });

  it('an old and invalid file is neither migrated on disk nor changed: one backup, values migrated in memory', async () => {
    const original = '{"fontSize": 20, "theme": "sepia"}';
    fs.writeFileSync(tmp.file, original);
    const config = await new ConfigStore({ file: tmp.file }).readConfig();
    assert.equal(config.editor.fontSize, 20);
    assert.equal(config.theme, 'system');
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), original);
    assert.deepEqual(backupsIn(tmp.dir).map((n) => n.replace(/-\d.*$/, '')), ['config.json.invalid']);
  });

  it('reading the same invalid file again neither adds a backup nor repeats the report', async () => {
    fs.writeFileSync(tmp.file, '[1, 2]');
    const reports: ConfigReport[] = [];
    const store = new ConfigStore({ file: tmp.file, onInvalid: (r) => reports.push(r) });
    await store.readConfig();
    await store.readConfig();
    await new ConfigStore({ file: tmp.file }).readConfig();
    assert.equal(backupsIn(tmp.dir).length, 1);
    assert.equal(reports.length, 1);
  });

  it('while the file stays invalid (someone typing and saving) there is one backup and one notice; turning invalid again makes a new one', async () => {
    const logger = recordingLogger();
    const reports: ConfigReport[] = [];
    const store = new ConfigStore({ file: tmp.file, logger, onInvalid: (r) => reports.push(r) });
    const halfTyped = ['{"editor": {"fontSize": 9', '{"editor": {"fontSize": 99', '{"editor": {"fontSize": 99}', '{"editor": {"fontSize": 99}}'];
    for (let round = 0; round < 10; round++) {
      for (const text of halfTyped) {
        fs.writeFileSync(tmp.file, `${text}${' '.repeat(round + 1)}`);
        await store.readConfig();
      }
    }
    const [first] = backupsIn(tmp.dir);
    assert.equal(backupsIn(tmp.dir).length, 1, 'one backup for the whole invalid stretch');
    assert.equal(reports.length, 1, 'one notice');
    assert.equal(fs.readFileSync(`${tmp.dir}/${first}`, 'utf8'), '{"editor": {"fontSize": 9 ', 'the backup holds the content that first made it invalid');
    assert.equal(logger.lines.filter((l) => l.startsWith('error')).length, 1);
    // Valid again, then invalid with new content: a new backup and notice; the first backup is never overwritten.
    fs.writeFileSync(tmp.file, '{"editor": {"fontSize": 20}}');
    await store.readConfig();
    fs.writeFileSync(tmp.file, '{"editor": {"fontSize": 100}}');
    await store.readConfig();
    const after = backupsIn(tmp.dir);
    assert.equal(after.length, 2);
    assert.equal(fs.readFileSync(`${tmp.dir}/${first}`, 'utf8'), '{"editor": {"fontSize": 9 ');
    assert.equal(fs.readFileSync(`${tmp.dir}/${after.find((n) => n !== first)!}`, 'utf8'), '{"editor": {"fontSize": 100}}');
    assert.equal(reports.length, 2);
  });

  it(`keeps at most ${MAX_BACKUPS_PER_KIND} backups of a kind, removing the oldest`, () => {
    const written = Array.from({ length: MAX_BACKUPS_PER_KIND + 3 }, (_, i) =>
      writeBackup(tmp.file, 'invalid', Buffer.from(`content ${i}`), new Date(Date.UTC(2026, 0, 1, 0, 0, i))).path,
    );
    assert.deepEqual(backupsIn(tmp.dir).map((n) => `${tmp.dir}/${n}`), written.slice(3));
    assert.equal(fs.readFileSync(written[written.length - 1], 'utf8'), `content ${MAX_BACKUPS_PER_KIND + 2}`);
  });

  it('two backups within the same millisecond get distinct names', () => {
    const when = new Date('2026-01-02T03:04:05.678Z');
    const a = writeBackup(tmp.file, 'invalid', Buffer.from('a'), when);
    const b = writeBackup(tmp.file, 'invalid', Buffer.from('b'), when);
    assert.notEqual(a.path, b.path);
    assert.equal(fs.readFileSync(a.path, 'utf8'), 'a');
    assert.equal(fs.readFileSync(b.path, 'utf8'), 'b');
  });

  it('an update of a partly invalid file changes only the named field: the other values, invalid ones too, stay for the user', async () => {
    const original = '{\n  // my settings\n  "version": "1.1.0",\n  "theme": "purple",\n  "editor": {"fontSize": 20},\n  "myNote": "keep me",\n}\n';
    fs.writeFileSync(tmp.file, original);
    const store = new ConfigStore({ file: tmp.file });
    const result = await store.updateConfig({ ui: { showStatusBar: false } });
    assert.equal(result.ui.showStatusBar, false);
    assert.equal(result.theme, 'system', 'in memory the invalid value still has its default');
    const text = fs.readFileSync(tmp.file, 'utf8');
    assert.match(text, /\/\/ my settings/, 'comments are kept');
    assert.match(text, /"theme": "purple"/, 'the invalid value is not silently replaced');
    assert.match(text, /"myNote": "keep me"/, 'unknown keys are kept');
    assert.equal(loadConfigFile(tmp.file).config.ui.showStatusBar, false);
    assert.equal(loadConfigFile(tmp.file).config.editor.fontSize, 20);
  });

  it('refuses to update a file that is not JSON at all, naming where, and writes nothing', async () => {
    const original = '{\n  "theme": "dark"\n  "editor": {"fontSize": 20}\n}\n';
    fs.writeFileSync(tmp.file, original);
    const store = new ConfigStore({ file: tmp.file });
    await assert.rejects(store.updateConfig({ editor: { tabSize: 8 } }), (err: NotesError) => {
      assert.equal(err.code, 'CONFIG_INVALID');
      assert.match(err.message, /is not valid JSON \(CommaExpected at line 3, column 3\).*fix the file .*or reset it/);
      return true;
    });
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), original);
    // Reset is the way out, and it keeps the broken file as a backup.
    await store.resetConfig();
    assert.deepEqual(loadConfigFile(tmp.file).config, defaultConfig());
    assert.ok(backupsIn(tmp.dir).some((n) => fs.readFileSync(`${tmp.dir}/${n}`, 'utf8') === original));
  });

  it('a file saved in another encoding than UTF-8 is reported and backed up, and no update writes over its bytes', async () => {
    // "Café Sans" saved as Latin-1 (Windows-1252): the é is one byte, not UTF-8.
    const original = Buffer.from('{\n  "version": "1.1.0",\n  "editor": { "fontSize": 20, "fontFamily": "Caf\xe9 Sans" }\n}\n', 'latin1');
    fs.writeFileSync(tmp.file, original);
    const reports: ConfigReport[] = [];
    const store = new ConfigStore({ file: tmp.file, onInvalid: (r) => reports.push(r) });
    const read = await store.inspect();
    assert.match(read.problems.join('\n'), /not UTF-8 text: line 3 .*save the file as UTF-8/);
    assert.equal(read.config.editor.fontSize, 20, 'the values are still read');
    assert.equal(reports.length, 1, 'the user is told');
    assert.ok(read.backupPath && fs.readFileSync(read.backupPath).equals(original), 'backed up byte for byte');
    await assert.rejects(store.setConfigValue(['plugins', 'settings', 'sync', 'interval'], 5), (err: NotesError) => {
      assert.equal(err.code, 'CONFIG_INVALID');
      assert.match(err.message, /is not UTF-8 text: line 3 .*save the file as UTF-8.*Nothing was written/);
      return true;
    });
    assert.ok(fs.readFileSync(tmp.file).equals(original), 'the file is as it was');
    // Saved again as UTF-8, it reads without a problem and takes updates.
    fs.writeFileSync(tmp.file, original.toString('latin1'), 'utf8');
    await store.updateConfig({ editor: { tabSize: 4 } });
    const fixed = loadConfigFile(tmp.file);
    assert.deepEqual(fixed.problems, []);
    assert.equal(fixed.config.editor.fontFamily, 'Café Sans');
    assert.equal(fixed.config.editor.tabSize, 4);
  });

  describe('partial invalidity: invalid fields default, valid ones are kept', () => {
    it('keeps valid fields of the same and of other sections', () => {
      fs.writeFileSync(
        tmp.file,
        JSON.stringify({
          version: '1.1.0',
          theme: 'dark',
          editor: { fontSize: 99, lineHeight: 2, fontFamily: 'Georgia' },
          ui: { sidebarPosition: 'top', showStatusBar: false },
          integrations: { mcp: { port: 4000, tools: { ai: 'no', search: false } } },
        }),
      );
      const { config, problems } = loadConfigFile(tmp.file);
      assert.equal(config.theme, 'dark');
      assert.equal(config.editor.fontSize, 16, 'out of range -> default');
      assert.equal(config.editor.lineHeight, 2);
      assert.equal(config.editor.fontFamily, 'Georgia');
      assert.equal(config.ui.sidebarPosition, 'left');
      assert.equal(config.ui.showStatusBar, false);
      assert.equal(config.integrations.mcp.port, 4000);
      assert.equal(config.integrations.mcp.tools.ai, true);
      assert.equal(config.integrations.mcp.tools.search, false);
      assert.equal(problems.length, 3);
      assert.ok(problems.some((p) => p.startsWith('editor.fontSize: ') && p.includes('32')));
      assert.ok(problems.some((p) => p.startsWith('ui.sidebarPosition: ')));
      assert.ok(problems.some((p) => p.startsWith('integrations.mcp.tools.ai: ')));
    });

    it('drops unknown keys with a reason, keeps the rest', () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', editor: { fontsize: 20, tabSize: 4 }, colour: 'red' }));
      const { config, problems } = loadConfigFile(tmp.file);
      assert.equal(config.editor.tabSize, 4);
      assert.deepEqual(problems.sort(), ['colour: unknown setting (ignored)', 'editor.fontsize: unknown setting (ignored)']);
    });

    it('reports a plugin or plugin setting named "__proto__" instead of dropping it silently', () => {
      fs.writeFileSync(tmp.file, '{ "version": "1.1.0", "plugins": { "settings": { "__proto__": { "a": 1 }, "sync": { "__proto__": { "x": 1 }, "every": 5 } } } }');
      const { config, problems } = loadConfigFile(tmp.file);
      assert.deepEqual(config.plugins.settings, { sync: { every: 5 } });
      assert.deepEqual(problems, [
        'plugins.settings.__proto__: "__proto__" cannot be used as a name (ignored)',
        'plugins.settings.sync.__proto__: "__proto__" cannot be used as a name (ignored)',
      ]);
      assert.equal(Object.getPrototypeOf(config.plugins.settings.sync), Object.prototype);
    });

    it('an array with a bad item takes its default as a whole; a section of the wrong type takes its defaults', () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', files: { excludePatterns: ['a', 3], showHiddenFiles: true }, search: 'fast' }));
      const { config, problems } = loadConfigFile(tmp.file);
      assert.deepEqual(config.files.excludePatterns, defaultConfig().files.excludePatterns);
      assert.equal(config.files.showHiddenFiles, true);
      assert.deepEqual(config.search, defaultConfig().search);
      assert.equal(problems.length, 2);
    });

    it('a custom theme missing its name goes as a whole; a bad color goes alone; a bad shortcut goes alone', () => {
      fs.writeFileSync(tmp.file, JSON.stringify({ version: '1.1.0', customTheme: { colors: { background: '#000000' } } }));
      assert.equal(loadConfigFile(tmp.file).config.customTheme, null);
      fs.writeFileSync(
        tmp.file,
        JSON.stringify({ version: '1.1.0', customTheme: { name: 'Night', colors: { background: 'black', foreground: '#eeeeee' } }, shortcuts: { 'new-file': 'Ctrl+Alt+N', 'save-file': 'Hyper+S' } }),
      );
      const { config } = loadConfigFile(tmp.file);
      assert.deepEqual(config.customTheme, { name: 'Night', colors: { foreground: '#eeeeee' }, syntax: {} });
      assert.deepEqual(config.shortcuts, { 'new-file': 'Ctrl+Alt+N' });
    });

    it('a root that is not an object gives the full defaults', () => {
      for (const text of ['null', '"text"', '42', '[]']) {
        fs.writeFileSync(tmp.file, text);
        const { config, problems } = loadConfigFile(tmp.file);
        assert.deepEqual(config, defaultConfig());
        assert.equal(problems.length, 1);
      }
    });
  });

  it('loadConfigFile never writes: no backup, no migration written, no lock', () => {
    fs.writeFileSync(tmp.file, '{"fontSize": 99, "broken": ');
    loadConfigFile(tmp.file);
    fs.writeFileSync(tmp.file, '{"fontSize": 20}');
    const { config, migrated } = loadConfigFile(tmp.file);
    assert.equal(migrated, true);
    assert.equal(config.editor.fontSize, 20);
    assert.deepEqual(fs.readdirSync(tmp.dir), ['config.json']);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), '{"fontSize": 20}');
  });
});
