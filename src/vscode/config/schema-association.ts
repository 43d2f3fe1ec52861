// Associates the config JSON Schema with a config file at an overridden path (NOTESAPP_CONFIG_PATH).
import path from 'node:path';
import * as vscode from 'vscode';
import type { SettingWrite } from './settings-map';

/** The static `contributes.jsonValidation` pattern: the platform path always ends like this. */
export const STATIC_CONFIG_MATCH = /[\\/]com\.notesapp\.app[\\/]config\.json$/;

/**
 * `contributes.jsonValidation` is static, so a file at an overridden path gets the schema through the
 * folder's `json.schemas` setting instead. It is one of the applied settings: written with them, and
 * taken back by "Remove Applied VS Code Settings" (only our entry, known by its url: the folder's own
 * entries stay). VS Code applies a single-folder workspace's `json.schemas` to files outside the folder
 * too, which is where a config file usually is.
 */
export function schemaAssociation(extensionUri: vscode.Uri, configFile: string) {
  const url = vscode.Uri.joinPath(extensionUri, 'media', 'config.schema.json').toString();
  // The JSON language service matches patterns against the document URI's path.
  const fileMatch = vscode.Uri.file(path.resolve(configFile)).path;
  return (): SettingWrite[] => {
    if (STATIC_CONFIG_MATCH.test(configFile)) return [];
    return [{ scope: 'workspace', key: 'json.schemas', value: [{ fileMatch: [fileMatch], url }], join: 'url' }];
  };
}
