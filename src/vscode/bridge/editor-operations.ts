// The three editor operations the bridge serves, acting on the editor the user is looking at.
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-jsonrpc/node';
import { BridgeErrorCodes, BridgeMethods, type EditorContent, type EditResult } from '../../core/bridge/protocol';

// Output and debug-console panes are text editors too, but never what a user means by "the editor".
const NON_EDITOR_SCHEMES = new Set(['output', 'debug', 'vscode-terminal']);

/**
 * The active text editor; when focus sits in a panel or chat view, the visible editor counts only if it is the
 * only one: with several side by side, guessing could read or replace a document the user did not mean.
 */
export function targetEditor(): vscode.TextEditor {
  const active = vscode.window.activeTextEditor;
  if (active && !NON_EDITOR_SCHEMES.has(active.document.uri.scheme)) return active;
  const visible = vscode.window.visibleTextEditors.filter((e) => !NON_EDITOR_SCHEMES.has(e.document.uri.scheme));
  if (visible.length === 1) return visible[0];
  if (visible.length > 1) {
    throw new ResponseError(
      BridgeErrorCodes.noActiveEditor,
      `No active text editor: ${visible.length} editors are visible and none has focus. Click into the note to use, then try again.`,
    );
  }
  throw new ResponseError(BridgeErrorCodes.noActiveEditor, 'No text editor is open in VS Code. Open a note and try again.');
}

/** Workspace-relative POSIX path when the document is a file inside an open folder, else null. */
function relativePath(uri: vscode.Uri): string | null {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder || uri.scheme !== folder.uri.scheme) return null;
  const base = folder.uri.path.endsWith('/') ? folder.uri.path : `${folder.uri.path}/`;
  return uri.path.startsWith(base) ? uri.path.slice(base.length) : null;
}

/**
 * The active editor's text and what it is. A text longer than `maxLength` (the server says how long a text it can
 * answer) is left out, its length given instead: VS Code's model tells the length without building the string, so a
 * 200 MB document is neither copied in the extension host nor sent.
 */
export function getEditorContent(maxLength?: number): EditorContent {
  const { document } = targetEditor();
  const about = { path: relativePath(document.uri), uri: document.uri.toString(), languageId: document.languageId, isDirty: document.isDirty };
  if (maxLength !== undefined) {
    const length = document.offsetAt(document.lineAt(document.lineCount - 1).range.end);
    if (length > maxLength) return { content: '', ...about, omittedLength: length };
  }
  return { content: document.getText(), ...about };
}

/** The text as the document will hold it: VS Code gives inserted text the document's line ends. */
function withDocumentEols(document: vscode.TextDocument, text: string): string {
  return text.replace(/\r\n|\r|\n/g, document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n');
}

/**
 * Replaces each range with `content` as one undo step. A read-only editor (a read-only file system such as git's,
 * `files.readonlyInclude`, "Set Active Editor Read-only in Session") drops the edit yet reports it applied, so
 * the document's version tells whether anything happened; a WorkspaceEdit would even change a read-only buffer.
 */
async function replaceRanges(editor: vscode.TextEditor, ranges: readonly vscode.Range[], content: string): Promise<void> {
  const { document } = editor;
  const changes = ranges.some((range) => document.getText(range) !== withDocumentEols(document, content));
  const version = document.version;
  const applied = await editor.edit((builder) => {
    for (const range of ranges) builder.replace(range, content);
  });
  const uri = document.uri.toString();
  if (!applied) {
    throw new ResponseError(BridgeErrorCodes.editRejected, `${uri} changed while the edit was on its way. Nothing was changed: read the editor and try again.`);
  }
  if (changes && document.version === version) {
    throw new ResponseError(BridgeErrorCodes.editRejected, `the editor of ${uri} is read-only. Nothing was changed.`);
  }
}

/** The edit last started; the next one waits for it. */
let lastEdit: Promise<unknown> = Promise.resolve();

/**
 * Runs edits one after another. VS Code refuses an edit prepared against a version of the document that another
 * edit has changed meanwhile, so parallel calls (an MCP client may send several at once) would fail but the first;
 * each also picks its editor and cursors only once the edits before it are made.
 */
function afterPreviousEdits<T>(method: string, token: vscode.CancellationToken | undefined, edit: () => Promise<T>): Promise<T> {
  // A client that stopped waiting while its edit was queued (it withdrew it) must not have it made behind its back.
  const start = () => {
    if (token?.isCancellationRequested) {
      throw new ResponseError(BridgeErrorCodes.cancelled, `${method} was cancelled by the client before it started: nothing was done.`);
    }
    return edit();
  };
  const next = lastEdit.then(start, start);
  lastEdit = next.catch(() => undefined);
  return next;
}

/** Replaces the whole document in one edit, so one undo reverts it; the document is left unsaved. */
export function setEditorContent(content: string, token?: vscode.CancellationToken): Promise<EditResult> {
  return afterPreviousEdits(BridgeMethods.setEditorContent, token, () => replaceDocument(content));
}

/** Inserts at every cursor, replacing selected text, as one undo step. */
export function insertAtCursor(content: string, token?: vscode.CancellationToken): Promise<EditResult> {
  return afterPreviousEdits(BridgeMethods.insertAtCursor, token, () => insertAtCursors(content));
}

/**
 * A byte order mark is no part of a document's text: VS Code takes it off when it reads a file and keeps whether
 * the file has one as the document's encoding (UTF-8 or UTF-8 with BOM, in the status bar), so text that starts
 * with one (read_file gives a file's BOM as U+FEFF) leaves it off too. Kept, it would stand in the text as an
 * invisible character, and a file saved with a BOM would then start with two, which hides its frontmatter.
 */
function withoutByteOrderMark(content: string): string {
  return content.startsWith('\uFEFF') ? content.slice(1) : content;
}

async function replaceDocument(content: string): Promise<EditResult> {
  const editor = targetEditor();
  const { document } = editor;
  const text = withoutByteOrderMark(content);
  await replaceRanges(editor, [new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length))], text);
  return { applied: true, path: relativePath(document.uri), uri: document.uri.toString(), edits: 1 };
}

async function insertAtCursors(content: string): Promise<EditResult> {
  const editor = targetEditor();
  const selections = editor.selections;
  await replaceRanges(editor, selections, content);
  return { applied: true, path: relativePath(editor.document.uri), uri: editor.document.uri.toString(), edits: selections.length };
}
