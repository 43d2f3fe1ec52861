// The Get / Set Plugin Setting commands as a script or another extension runs them (executeCommand).
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import type * as vscodeTypes from 'vscode';
import { ConfigStore } from '../../../src/core/config/store';
import { createMcpShellApi, registerServerCommands } from '../../../src/vscode/mcp/commands';
import type { ServerManager } from '../../../src/vscode/mcp/server-manager';
import * as fake from '../fake-vscode';
import { backupsIn, tempConfigDir } from './helpers';

describe('plugin setting commands', () => {
  let tmp: ReturnType<typeof tempConfigDir>;
  let context: { subscriptions: { dispose(): void }[] };
  const fileText = '{\n  // mine\n  "plugins": { "settings": { "rv": { "a": 1 } } }\n}\n';
  const run = (id: string, ...args: unknown[]) => fake.commands.executeCommand(id, ...args);

  beforeEach(() => {
    fake.resetFake();
    tmp = tempConfigDir();
    fs.writeFileSync(tmp.file, fileText);
    const store = new ConfigStore({ file: tmp.file });
    const log = fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel;
    const manager = { onDidChangeStatus: new fake.EventEmitter().event } as unknown as ServerManager;
    const api = createMcpShellApi({ manager, store, log, clientConfig: () => ({ serverScript: '', workspaceFolder: undefined, configPath: tmp.file, nodePath: undefined, execPath: '' }) });
    context = { subscriptions: [] };
    registerServerCommands(context as unknown as vscodeTypes.ExtensionContext, api, store, log);
  });
  afterEach(() => {
    for (const d of context.subscriptions) d.dispose();
    tmp.cleanup();
  });

  it('refuses a plugin name or key that is not a string, with a clear message, and writes nothing', async () => {
    const refused: [string, unknown[], RegExp][] = [
      ['notesapp.setPluginSetting', [{ plugin_name: { a: 1 }, key: 'k', value: 1 }], /^set plugin setting: plugin_name must be a string, got \{"a":1\}$/],
      ['notesapp.setPluginSetting', [null, 'k', 2], /^set plugin setting: plugin_name must be a string, got null$/],
      ['notesapp.setPluginSetting', ['rv', 42, 3], /^set plugin setting: key must be a string, got 42$/],
      ['notesapp.setPluginSetting', [['rv', 'k'], 'k', 3], /^set plugin setting: plugin_name must be a string, got \["rv","k"\]$/],
      ['notesapp.setPluginSetting', [{ plugin_name: 'rv', key: true, value: 1 }], /^set plugin setting: key must be a string, got true$/],
      ['notesapp.setPluginSetting', [{ plugin_name: 'rv', key: 'k', value: 1, extra: 2 }], /^set plugin setting: arguments Unrecognized key: "extra"$/],
      ['notesapp.getPluginSetting', [{ plugin_name: 7, key: 'a' }], /^get plugin setting: plugin_name must be a string, got 7$/],
      ['notesapp.getPluginSetting', ['rv', null], /^get plugin setting: key must be a string, got null$/],
    ];
    for (const [id, args, message] of refused) {
      fake.shown.length = 0;
      // Shown once, then undefined: a rejection would have VS Code show it again (a modal from the Command Palette).
      assert.equal(await run(id, ...args), undefined, `${id} ${JSON.stringify(args)}`);
      assert.equal(fake.shown.length, 1, 'the user is shown the error');
      assert.equal(fake.shown[0].kind, 'error');
      assert.match(fake.shown[0].message, message);
    }
    assert.equal(fs.readFileSync(tmp.file, 'utf8'), fileText);
    assert.deepEqual(backupsIn(tmp.dir), []);
  });

  it('takes names given as strings, positional or in one object', async () => {
    await run('notesapp.setPluginSetting', 'rv', 'b', 2);
    await run('notesapp.setPluginSetting', { plugin_name: 'rv', key: 'c', value: { x: [1] } });
    assert.equal(await run('notesapp.getPluginSetting', 'rv', 'b'), 2);
    assert.deepEqual(await run('notesapp.getPluginSetting', { plugin_name: 'rv', key: 'c' }), { x: [1] });
    assert.equal(await run('notesapp.getPluginSetting', 'rv', 'a'), 1);
  });
});
