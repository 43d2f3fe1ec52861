// The first time the extension runs in a folder: apply the mapped settings, or ask before writing them.
import * as vscode from 'vscode';
import { samePath } from '../../core/config/paths';
import type { NotesConfig } from '../../core/config/schema';
import type { AppliedSettings } from './applied-settings';

/** The notes folder of the configuration (workspace.defaultPath or a recent workspace) is one of the open ones. */
function isNotesFolder(config: NotesConfig): boolean {
  const open = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  return [config.workspace.defaultPath, ...config.workspace.recentWorkspaces].some((p) => p && open.some((o) => samePath(p, o)));
}

/**
 * VS Code settings are written into the open folder's .vscode/settings.json, so a folder is asked once
 * before the first write (a code project opened with the extension installed must not change silently);
 * the configured notes folder is applied without asking.
 */
export async function firstTimeInFolder(
  applied: AppliedSettings,
  config: NotesConfig,
  current: () => Promise<NotesConfig>,
  log: vscode.LogOutputChannel,
): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) return;
  if (isNotesFolder(config)) return applied.apply(config, { enable: true });
  void vscode.window
    .showInformationMessage(
      'Apply the notes configuration (fonts, theme, exclude patterns) to this folder\'s VS Code settings?',
      'Apply',
      'Not for This Folder',
    )
    .then(async (choice) => {
      // The file as it is when the answer comes: it may have changed while the question was shown.
      if (choice === 'Apply') await applied.apply(await current(), { enable: true });
      else if (choice === 'Not for This Folder') await applied.decline();
    })
    .then(undefined, (err) => {
      // The answer was "Apply": it did not happen, and the user is told why (the file may have become unusable
      // while the question was shown), not only the log. The question comes again at the next start.
      const message = `Applying the configuration failed: ${(err as Error).message}`;
      log.error(message);
      void vscode.window.showErrorMessage(message);
    });
}
