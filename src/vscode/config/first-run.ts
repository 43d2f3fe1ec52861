// The first time the extension runs in a folder: apply the mapped settings, or ask before writing them.
import path from 'node:path';
import * as vscode from 'vscode';
import type { NotesConfig } from '../../core/config/schema';
import type { AppliedSettings } from './applied-settings';

/** The notes folder of the configuration (workspace.defaultPath or a recent workspace) is the open one. */
function isNotesFolder(config: NotesConfig): boolean {
  const open = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!open) return false;
  return [config.workspace.defaultPath, ...config.workspace.recentWorkspaces].some((p) => p && path.resolve(p) === path.resolve(open));
}

/**
 * VS Code settings are written into the open folder's .vscode/settings.json, so a folder is asked once
 * before the first write (a code project opened with the extension installed must not change silently);
 * the configured notes folder is applied without asking.
 */
export async function firstTimeInFolder(applied: AppliedSettings, config: NotesConfig, log: vscode.LogOutputChannel): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) return;
  if (isNotesFolder(config)) return applied.apply(config, { enable: true });
  void vscode.window
    .showInformationMessage(
      'Apply the notes configuration (fonts, theme, exclude patterns) to this folder\'s VS Code settings?',
      'Apply',
      'Not for This Folder',
    )
    .then(async (choice) => {
      if (choice === 'Apply') await applied.apply(config, { enable: true });
      else if (choice === 'Not for This Folder') await applied.decline();
    })
    .then(undefined, (err) => log.error(`Applying the configuration failed: ${(err as Error).message}`));
}
