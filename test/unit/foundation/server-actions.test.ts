// The quick pick of the status bar item ("Notes: MCP Server Actions…"): the chosen command, reported once.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { ConfigStore } from '../../../src/core/config/store';
import { registerMcpShell, type McpShell } from '../../../src/vscode/mcp';
import * as fake from '../fake-vscode';

const repoRoot = path.resolve(__dirname, '../../..');

describe('extension: the MCP server actions of the status bar item', () => {
  let dir: string;
  let context: { subscriptions: { dispose(): void }[]; extension: unknown; extensionPath: string };
  let shell: McpShell | undefined;

  beforeEach(() => {
    fake.resetFake();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-actions-'));
    context = { subscriptions: [], extension: { packageJSON: { version: '0.0.0' } }, extensionPath: repoRoot };
  });
  afterEach(async () => {
    await shell?.shutdown();
    shell = undefined;
    for (const d of context.subscriptions.splice(0)) d.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a chosen command that fails is reported once, and the click itself does not fail (which VS Code would report again)', async () => {
    const notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ integrations: { mcp: { enabled: false } } }));
    fake.workspace.workspaceFolders = [{ uri: fake.Uri.file(notes), name: 'notes', index: 0 }];
    const log = fake.fakeLog() as unknown as vscodeTypes.LogOutputChannel;
    shell = registerMcpShell(context as unknown as vscodeTypes.ExtensionContext, { log, store: new ConfigStore({ file }), bridge: undefined });
    fake.window.answers.push({ label: 'Start MCP Server', id: 'notesapp.startServer' });
    const outcome = await fake.commands.executeCommand('notesapp.showServerActions').then(
      (value) => ({ value }),
      (err: Error) => ({ rejected: err.message }),
    );
    assert.deepEqual(outcome, { value: undefined });
    assert.deepEqual(fake.shown, [{ kind: 'error', message: 'The MCP server is disabled in the configuration (integrations.mcp.enabled is false).' }]);
  });
});
