// The extension activates in a real extension host and its status command reports what it uses.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { NotesApi } from '../../src/extension';

const EXTENSION_ID = 'notesapp.notesapp';

describe('activation', () => {
  it('activates and returns its API', async () => {
    const ext = vscode.extensions.getExtension<NotesApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is installed in the host`);
    const api = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(typeof api.status, 'function');
  });

  it('"Notes: Show Status" reports the version, the configuration path and the workspace folder', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('notesapp.showStatus'), 'the command is registered');
    const status = await vscode.commands.executeCommand<{ version: string; configPath: string; workspaceFolder: string | null }>(
      'notesapp.showStatus',
    );
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.equal(status.version, ext.packageJSON.version);
    assert.equal(status.configPath, process.env.NOTESAPP_CONFIG_PATH, 'the NOTESAPP_CONFIG_PATH override is honoured');
    assert.equal(status.workspaceFolder, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
    assert.ok(status.workspaceFolder, 'a notes folder is open');
  });
});
