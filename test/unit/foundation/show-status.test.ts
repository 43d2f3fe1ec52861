// "Notes: Show Status" and api.status(): the configuration file the extension really uses.
import * as assert from 'node:assert/strict';
import type * as vscodeTypes from 'vscode';
import { registerShowStatus, statusSummary } from '../../../src/vscode/show-status';
import * as fake from '../fake-vscode';

describe('extension: Show Status', () => {
  const context = { subscriptions: [] as { dispose(): void }[], extension: { packageJSON: { version: '9.9.9' } } };
  const ctx = context as unknown as vscodeTypes.ExtensionContext;
  beforeEach(() => fake.resetFake());
  afterEach(() => {
    delete process.env.NOTESAPP_CONFIG_PATH;
    for (const d of context.subscriptions.splice(0)) d.dispose();
  });

  it('names the file the configuration store uses, also when NOTESAPP_CONFIG_PATH is relative (and so not used)', async () => {
    process.env.NOTESAPP_CONFIG_PATH = 'relative/config.json';
    const used = '/home/someone/.config/com.notesapp.app/config.json';
    assert.deepEqual(statusSummary(ctx, used, () => undefined), { version: '9.9.9', configPath: used, workspaceFolder: null });
    registerShowStatus(ctx, fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel, used, () => undefined);
    assert.deepEqual(await fake.commands.executeCommand('notesapp.showStatus'), { version: '9.9.9', configPath: used, workspaceFolder: null });
    assert.deepEqual(fake.shown, [{ kind: 'info', message: `Notes 9.9.9 — configuration: ${used} — workspace: no folder open` }]);
  });
});
