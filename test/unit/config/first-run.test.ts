// The first time the extension runs in a folder: the question, and what an answer does.
import * as assert from 'node:assert/strict';
import type * as vscodeTypes from 'vscode';
import { defaultConfig } from '../../../src/core/config/schema';
import type { AppliedSettings } from '../../../src/vscode/config/applied-settings';
import { firstTimeInFolder } from '../../../src/vscode/config/first-run';
import { fakeLog, resetFake, shown, Uri, window, workspace } from '../fake-vscode';

describe('the first run in a folder', () => {
  const original = window.showInformationMessage;
  beforeEach(() => resetFake());
  afterEach(() => {
    window.showInformationMessage = original;
    resetFake();
  });

  it('an "Apply" that cannot be made (the file became unusable meanwhile) says why in a notification, not only in the log', async () => {
    workspace.workspaceFolders = [{ uri: Uri.file('/tmp/some-project'), name: 'some-project', index: 0 }] as typeof workspace.workspaceFolders;
    let answered!: () => void;
    const asked = new Promise<void>((resolve) => (answered = resolve));
    window.showInformationMessage = ((message: string) => {
      shown.push({ kind: 'info', message });
      answered();
      return Promise.resolve('Apply');
    }) as unknown as typeof window.showInformationMessage;
    const applied = { apply: () => Promise.resolve(), decline: () => Promise.resolve() } as unknown as AppliedSettings;
    const why = '/cfg/config.json cannot be used (CommaExpected at line 2, column 3); nothing was applied. Fix it and run "Notes: Apply Configuration to VS Code Settings".';
    const log = fakeLog();
    await firstTimeInFolder(applied, defaultConfig(), () => Promise.reject(new Error(why)), log as unknown as vscodeTypes.LogOutputChannel);
    await asked;
    const deadline = Date.now() + 2000;
    while (!shown.some((n) => n.kind === 'error') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(
      shown.filter((n) => n.kind === 'error'),
      [{ kind: 'error', message: `Applying the configuration failed: ${why}` }],
    );
    assert.ok(log.lines.some((l) => l.includes(why)));
  });
});
