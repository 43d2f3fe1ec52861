// Where the discovery files of a workspace's editor bridges live (shared by the extension and the server).
import crypto from 'node:crypto';
import path from 'node:path';

export function discoveryDir(configDir: string): string {
  return path.join(configDir, 'bridges');
}

/** The folder path is resolved and, on case-insensitive platforms, lower-cased before hashing. */
export function discoveryKey(workspaceFolder: string, platform = process.platform): string {
  let key = path.resolve(workspaceFolder);
  if (platform === 'win32' || platform === 'darwin') key = key.toLowerCase();
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/**
 * One file per window and folder: `bridges/<hash of the folder>.<pid of the extension host>.json`. Two windows on
 * the same folder each keep their own, so closing one leaves the other reachable.
 */
export function discoveryFilePath(configDir: string, workspaceFolder: string, pid = process.pid, platform = process.platform): string {
  return path.join(discoveryDir(configDir), `${discoveryKey(workspaceFolder, platform)}.${pid}.json`);
}

/** The names in `bridges/` that are discovery files of `workspaceFolder`, whatever window wrote them. */
export function discoveryFileNames(names: readonly string[], workspaceFolder: string, platform = process.platform): string[] {
  const prefix = `${discoveryKey(workspaceFolder, platform)}.`;
  return names.filter((name) => name.startsWith(prefix) && /^\d+\.json$/.test(name.slice(prefix.length)));
}

/** False only when no process has this pid on this machine (a window that crashed without removing its file). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
