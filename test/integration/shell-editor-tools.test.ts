// Editor tools end to end: an MCP client on the server the extension started reads and changes the active editor.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { NotesApi } from '../../src/extension';
import { notesApi, openScratchNote, resultText } from './shell-helpers';

const ORIGINAL = '# Meeting\n\n- agenda\n- notes\n';

describe('shell: editor tools through the server the extension started', function () {
  this.timeout(60000);
  let api: NotesApi;

  before(async () => {
    api = await notesApi();
    const started = await api.startServer();
    assert.equal(started.is_running, true, `the server starts: ${started.last_error}`);
  });
  after(async () => {
    await api.stopServer();
  });

  it('the running server offers the three editor tools', () => {
    const names = api.serverTools().map((t) => t.name);
    for (const name of ['get_editor_content', 'set_editor_content', 'insert_at_cursor']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  });

  it('get_editor_content returns the active editor text, set_editor_content replaces it (one undo reverts), insert_at_cursor inserts', async () => {
    const note = await openScratchNote(ORIGINAL);
    try {
      const got = await api.callTool('get_editor_content');
      assert.equal(got.isError ?? false, false, resultText(got));
      assert.equal(resultText(got), ORIGINAL);
      assert.deepEqual(
        { content: (got.structuredContent as { content?: string }).content, path: (got.structuredContent as { path?: string }).path },
        { content: ORIGINAL, path: note.relative },
      );

      const set = await api.callTool('set_editor_content', { content: '# Rewritten by the assistant\n' });
      assert.equal(set.isError ?? false, false, JSON.stringify(set));
      assert.equal(note.editor.document.getText(), '# Rewritten by the assistant\n');
      assert.equal(note.editor.document.isDirty, true, 'the edit is not saved');
      await vscode.commands.executeCommand('undo');
      assert.equal(note.editor.document.getText(), ORIGINAL, 'one undo reverts the replacement');

      note.editor.selection = new vscode.Selection(3, 2, 3, 7); // "notes"
      const inserted = await api.callTool('insert_at_cursor', { content: 'minutes' });
      assert.equal(inserted.isError ?? false, false, JSON.stringify(inserted));
      assert.equal(note.editor.document.getText(), '# Meeting\n\n- agenda\n- minutes\n', 'the selection is replaced');
      await vscode.commands.executeCommand('undo');
      assert.equal(note.editor.document.getText(), ORIGINAL, 'one undo reverts the insertion');
    } finally {
      await note.dispose();
    }
  });

  it('with several editors visible and none focused, editor tools refuse instead of guessing which one', async () => {
    const first = await openScratchNote('# First\n');
    const second = await openScratchNote('# Second\n');
    let panel: vscode.WebviewPanel | undefined;
    try {
      await vscode.window.showTextDocument(first.editor.document, { viewColumn: vscode.ViewColumn.One, preview: false });
      await vscode.window.showTextDocument(second.editor.document, { viewColumn: vscode.ViewColumn.Three, preview: false });
      // A webview takes the focus: both text editors stay visible, none of them is active.
      const unfocused = new Promise<void>((resolve) => {
        const sub = vscode.window.onDidChangeActiveTextEditor((e) => {
          if (e) return;
          sub.dispose();
          resolve();
        });
      });
      panel = vscode.window.createWebviewPanel('notesapp.test', 'Not a text editor', { viewColumn: vscode.ViewColumn.Two, preserveFocus: false });
      if (vscode.window.activeTextEditor) await unfocused;
      const visible = vscode.window.visibleTextEditors.filter((e) => e.document.uri.scheme === 'file').length;
      assert.ok(visible >= 2, `two notes are visible (${visible})`);
      const got = await api.callTool('get_editor_content');
      assert.equal(got.isError, true, JSON.stringify(got));
      assert.match(resultText(got), /none has focus/);
      const set = await api.callTool('set_editor_content', { content: 'replaced' });
      assert.equal(set.isError, true, JSON.stringify(set));
      assert.equal(first.editor.document.getText(), '# First\n');
      assert.equal(second.editor.document.getText(), '# Second\n');
    } finally {
      panel?.dispose();
      await second.dispose();
      await first.dispose();
    }
  });

  it('"Notes: Run MCP Tool…" with a tool name and arguments shows the result in a readable document', async () => {
    const note = await openScratchNote(ORIGINAL);
    try {
      const outcome = await vscode.commands.executeCommand<{ tool: string; document: vscode.TextDocument }>('notesapp.runTool', 'get_editor_content', {});
      assert.equal(outcome.tool, 'get_editor_content');
      assert.equal(outcome.document.isUntitled, true);
      assert.equal(outcome.document.languageId, 'markdown');
      assert.match(outcome.document.getText(), /^# get_editor_content\n/);
      assert.ok(outcome.document.getText().includes('- agenda\n- notes'), 'the note text is in the result document');
      assert.equal(vscode.window.activeTextEditor?.document, outcome.document, 'the result is shown');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await note.dispose();
    }
  });
});
