// Where the discovery file of a workspace's editor bridge lives (shared by the extension and the server).
import crypto from 'node:crypto';
import path from 'node:path';

export function discoveryDir(configDir: string): string {
  return path.join(configDir, 'bridges');
}

/** The folder path is resolved and, on case-insensitive platforms, lower-cased before hashing. */
export function discoveryFilePath(configDir: string, workspaceFolder: string, platform = process.platform): string {
  let key = path.resolve(workspaceFolder);
  if (platform === 'win32' || platform === 'darwin') key = key.toLowerCase();
  const hash = crypto.createHash('sha256').update(key).digest('hex').slice(0, 32);
  return path.join(discoveryDir(configDir), `${hash}.json`);
}
