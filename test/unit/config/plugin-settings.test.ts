// get/set plugin setting (spec 4.3) against a real config file: a value is set whole, null removes it.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import { ConfigStore } from '../../../src/core/config/store';
import { getPluginSetting, setPluginSetting, shownPluginSetting } from '../../../src/vscode/mcp/plugin-settings';
import { tempConfigDir } from './helpers';

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
