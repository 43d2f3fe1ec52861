// Plugin settings (spec 4.3 get/set_plugin_setting) round-trip through config.json.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import type { NotesApi } from '../../src/extension';
import { notesApi } from './shell-helpers';

function configFile(): { plugins?: { settings?: Record<string, Record<string, unknown>> } } {
  return JSON.parse(fs.readFileSync(process.env.NOTESAPP_CONFIG_PATH!, 'utf8'));
}

describe('shell: plugin settings', function () {
  this.timeout(30000);
  let api: NotesApi;
  const plugin = `shell-test-${process.pid}`;

  before(async () => {
    api = await notesApi();
  });

  it('a value set through the command is read back and is in the config file', async () => {
    await vscode.commands.executeCommand('notesapp.setPluginSetting', plugin, 'option', { depth: 3, tags: ['a', 'b'] });
    assert.deepEqual(await vscode.commands.executeCommand('notesapp.getPluginSetting', plugin, 'option'), { depth: 3, tags: ['a', 'b'] });
    assert.deepEqual(configFile().plugins?.settings?.[plugin]?.option, { depth: 3, tags: ['a', 'b'] });
  });

  it('setting one key keeps the plugin\'s other keys and the rest of the file', async () => {
    await api.setPluginSetting(plugin, 'apiKey', 'sk-secret-value');
    await api.setPluginSetting(plugin, 'limit', 7);
    const settings = configFile().plugins?.settings?.[plugin];
    assert.equal(settings?.apiKey, 'sk-secret-value');
    assert.equal(settings?.limit, 7);
    assert.ok(settings && 'option' in settings, 'the earlier key is still there');
    assert.equal(await api.getPluginSetting(plugin, 'apiKey'), 'sk-secret-value');
    assert.equal(await vscode.commands.executeCommand('notesapp.getPluginSetting', { plugin_name: plugin, key: 'limit' }), 7);
  });

  it('an unknown key reads as undefined; an empty plugin name is refused with a clear error and writes nothing', async () => {
    assert.equal(await api.getPluginSetting(plugin, 'no-such-key'), undefined);
    const before = fs.readFileSync(process.env.NOTESAPP_CONFIG_PATH!, 'utf8');
    assert.equal(await vscode.commands.executeCommand('notesapp.setPluginSetting', '', 'k', 1), undefined, 'shown, not rejected');
    await assert.rejects(api.setPluginSetting('', 'k', 1), /plugin_name must not be empty/);
    await assert.rejects(api.setPluginSetting(plugin, 'k', undefined), /value is required/);
    assert.equal(fs.readFileSync(process.env.NOTESAPP_CONFIG_PATH!, 'utf8'), before);
  });
});
