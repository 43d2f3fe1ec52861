// get/set plugin setting (spec 4.3) against a real config file: a value is set whole, null removes it.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { ConfigStore } from '../../../src/core/config/store';
import { getPluginSetting, setPluginSetting, shownPluginSetting } from '../../../src/vscode/mcp/plugin-settings';
import { backupsIn, tempConfigDir } from './helpers';

describe('plugin settings', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  let store: ConfigStore;
  beforeEach(() => {
    tmp = tempConfigDir();
    store = new ConfigStore({ file: tmp.file });
  });
  afterEach(() => tmp.cleanup());

  it('an object value replaces the one there: a key left out of it is gone', async () => {
    await setPluginSetting(store, 'mail', 'headers', { Authorization: 'Bearer old', X: '1' });
    await setPluginSetting(store, 'mail', 'headers', { X: '2' });
    assert.deepEqual(await getPluginSetting(store, 'mail', 'headers'), { X: '2' });
    assert.doesNotMatch(fs.readFileSync(tmp.file, 'utf8'), /Bearer old/);
  });

  it('null removes the key; the plugin’s other keys and other plugins stay', async () => {
    await setPluginSetting(store, 'mail', 'apiKey', 'sk-1');
    await setPluginSetting(store, 'mail', 'limit', 7);
    await setPluginSetting(store, 'other', 'on', true);
    await setPluginSetting(store, 'mail', 'apiKey', null);
    assert.equal(await getPluginSetting(store, 'mail', 'apiKey'), undefined);
    assert.deepEqual((await store.readConfig()).plugins.settings, { mail: { limit: 7 }, other: { on: true } });
    await setPluginSetting(store, 'mail', 'never-set', null); // nothing to remove: no error
  });

  it('an empty object is a value like any other, for a new plugin and a known one', async () => {
    fs.writeFileSync(tmp.file, '{\n  // mine\n  "theme": "dark"\n}\n');
    await setPluginSetting(store, 'fresh', 'opts', {});
    await setPluginSetting(store, 'fresh', 'a', 1);
    await setPluginSetting(store, 'fresh', 'more', {});
    assert.deepEqual((await store.readConfig()).plugins.settings, { fresh: { opts: {}, a: 1, more: {} } });
    assert.match(fs.readFileSync(tmp.file, 'utf8'), /\/\/ mine/);
  });

  const fileText = '{\n  // mine\n  "plugins": { "settings": { "rv": { "a": 1 } } }\n}\n';

  it('reads only what the file holds: a name every JavaScript object inherits is not set', async () => {
    fs.writeFileSync(tmp.file, fileText);
    for (const [plugin, key] of [
      ['constructor', 'name'],
      ['toString', 'length'],
      ['hasOwnProperty', 'name'],
      ['rv', 'constructor'],
      ['rv', 'toString'],
    ]) {
      assert.equal(await getPluginSetting(store, plugin, key), undefined, `${plugin}.${key}`);
    }
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), fileText);
  });

  it('refuses to read a setting from a file that is not JSON, rather than say it is not set', async () => {
    const text = '{ "plugins": { "settings": { "sync": { "apiKey": "k" } } } "theme": "dark" }';
    fs.writeFileSync(tmp.file, text);
    await assert.rejects(getPluginSetting(store, 'sync', 'apiKey'), /cannot be used \(CommaExpected .*\), so what it holds for "sync" is not known: fix the file/);
    fs.writeFileSync(tmp.file, text.replace('} "theme"', '}, "theme"'));
    assert.equal(await getPluginSetting(store, 'sync', 'apiKey'), 'k');
  });

  it('refuses "__proto__" as a plugin name or key, to read or to set, and writes nothing', async () => {
    fs.writeFileSync(tmp.file, fileText);
    const invalid: unknown[] = [];
    store = new ConfigStore({ file: tmp.file, onInvalid: (report) => invalid.push(report) });
    await assert.rejects(setPluginSetting(store, 'rv', '__proto__', 5), /^Error: set plugin setting: key "__proto__" cannot be used as a name$/);
    await assert.rejects(setPluginSetting(store, '__proto__', 'x', 1), /^Error: set plugin setting: plugin_name "__proto__" cannot be used as a name$/);
    await assert.rejects(getPluginSetting(store, '__proto__', 'toString'), /^Error: get plugin setting: plugin_name "__proto__" cannot be used as a name$/);
    await assert.rejects(getPluginSetting(store, 'rv', '__proto__'), /^Error: get plugin setting: key "__proto__" cannot be used as a name$/);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), fileText);
    assert.deepEqual((await store.inspect()).problems, []);
    assert.deepEqual(invalid, []);
    assert.deepEqual(backupsIn(tmp.dir), []);
  });

  it('keeps "constructor", "prototype" and other names objects inherit as names like any other, value and all', async () => {
    const value = { a: [1, { b: 2 }] };
    const names = [['constructor', 'prototype'], ['prototype', 'constructor'], ['toString', 'valueOf'], ['rv', 'hasOwnProperty']];
    for (const [plugin, key] of names) await setPluginSetting(store, plugin, key, value);
    for (const [plugin, key] of names) assert.deepEqual(await getPluginSetting(store, plugin, key), value, `${plugin}.${key}`);
    const invalid: unknown[] = [];
    const fresh = new ConfigStore({ file: tmp.file, onInvalid: (report) => invalid.push(report) });
    assert.deepEqual((await fresh.inspect()).problems, []);
    assert.deepEqual(invalid, []);
  });

  it('refuses a value JSON cannot hold as it is, naming it, and writes nothing', async () => {
    fs.writeFileSync(tmp.file, fileText);
    class Point {
      x = 1;
    }
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const refused: [unknown, RegExp][] = [
      [NaN, /value is NaN, which JSON cannot hold \(only finite numbers\)/],
      [Infinity, /value is Infinity, which JSON cannot hold/],
      [{ limit: -Infinity }, /value\.limit is -Infinity, which JSON cannot hold/],
      [1n, /value is the BigInt 1n, which JSON cannot hold: store it as a number or as text/],
      [() => 1, /value is a function, which JSON cannot hold/],
      [new Map([[1, 2]]), /value is a Map, which JSON cannot hold as it is \(only plain objects and arrays\)/],
      [new Set([1]), /value is a Set, which JSON cannot hold as it is/],
      [new Date(0), /value is a Date, which JSON cannot hold as it is .*toISOString\(\)/],
      [new Point(), /value is a Point, which JSON cannot hold as it is/],
      [Object.create({ inherited: 1 }), /value is an object that is not a plain object, which JSON cannot hold as it is/],
      [{ a: { 'b c': [1, NaN] } }, /value\.a\["b c"\]\[1\] is NaN/],
      [{ a: undefined, b: 1 }, /value\.a is undefined, which JSON cannot hold: leave it out, or use null/],
      [cycle, /value\.self contains itself, which JSON cannot hold/],
    ];
    for (const [value, message] of refused) {
      await assert.rejects(setPluginSetting(store, 'rv', 'k', value), (err: unknown) => {
        assert.match((err as Error).message, /^set plugin setting: /);
        assert.match((err as Error).message, message);
        assert.match((err as Error).message, /; nothing was written$/);
        return true;
      });
    }
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), fileText);
    await setPluginSetting(store, 'rv', 'k', { n: -1.5, s: 'x', list: [true, null], none: Object.create(null) as object });
    assert.deepEqual(await getPluginSetting(store, 'rv', 'k'), { n: -1.5, s: 'x', list: [true, null], none: {} });
  });

  it('refuses a name with whitespace around it instead of trimming it, to read or to set', async () => {
    fs.writeFileSync(tmp.file, fileText);
    await assert.rejects(setPluginSetting(store, ' rv2 ', 'k', 1), /^Error: set plugin setting: plugin_name must not start or end with whitespace$/);
    await assert.rejects(setPluginSetting(store, 'rv', 'a\t', 2), /^Error: set plugin setting: key must not start or end with whitespace$/);
    await assert.rejects(getPluginSetting(store, ' rv', 'a'), /^Error: get plugin setting: plugin_name must not start or end with whitespace$/);
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), fileText);
    await setPluginSetting(store, 'my plugin', 'a key', 3); // whitespace inside a name is part of it
    assert.equal(await getPluginSetting(store, 'my plugin', 'a key'), 3);
  });

  it('keeps the file’s comments around a value it replaces', async () => {
    fs.writeFileSync(tmp.file, '{\n  // mine\n  "plugins": { "settings": { "x": { "a": 1 } } }\n}\n');
    await setPluginSetting(store, 'x', 'a', { b: 2 });
    const text = fs.readFileSync(tmp.file, 'utf8');
    assert.match(text, /\/\/ mine/);
    assert.deepEqual(JSON.parse(text.replace(/\/\/.*\n/, '')).plugins.settings.x, { a: { b: 2 } });
  });
});

describe('plugin settings as Get Plugin Setting shows them', () => {
  it('shows numbers, booleans and null, and of text, lists and objects only their size and key names', () => {
    assert.equal(shownPluginSetting(undefined), 'is not set');
    assert.equal(shownPluginSetting(7), '= 7');
    assert.equal(shownPluginSetting(false), '= false');
    assert.equal(shownPluginSetting(null), '= null');
    const secrets = ['postgres://user:hunter2@db/notes', 'Bearer abc.def', 'https://hooks.example/T0/B0/XyZ'];
    const shown = [
      shownPluginSetting(secrets[0]),
      shownPluginSetting({ Authorization: secrets[1], 'X-Id': 1 }),
      shownPluginSetting([secrets[2], 'x']),
    ];
    for (const text of shown) for (const secret of [...secrets, 'hunter2', 'abc.def']) assert.ok(!text.includes(secret), `${text} hides ${secret}`);
    assert.match(shown[0], /^is set: text of 32 characters \(not shown/);
    assert.match(shown[1], /^is set: an object with 2 keys \(Authorization, X-Id\)/);
    assert.match(shown[2], /^is set: a list of 2 items/);
  });
});
