// Byte-for-byte backups of the config file beside it; an earlier backup is never overwritten.
import fs from 'node:fs';
import path from 'node:path';

export type BackupKind = 'invalid' | 'pre-migration' | 'pre-reset';

/** `config.json.invalid-2026-01-02T03-04-05-678Z.bak` (colons are not allowed in Windows file names). */
export function backupName(file: string, kind: BackupKind, when: Date, attempt = 0): string {
  const stamp = when.toISOString().replace(/:/g, '-').replace('.', '-');
  return `${file}.${kind}-${stamp}${attempt ? `-${attempt}` : ''}.bak`;
}

/** Backups of `file` of the given kind, oldest first. */
export function listBackups(file: string, kind?: BackupKind): string[] {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.${kind ?? ''}`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.bak'))
    .sort()
    .map((n) => path.join(dir, n));
}

/**
 * Writes `bytes` to a new timestamped backup and returns its path. When a backup of this kind with
 * exactly these bytes already exists, that one is returned instead, so that reading the same broken
 * file again and again does not fill the folder.
 */
export function writeBackup(file: string, kind: BackupKind, bytes: Buffer, when = new Date()): { path: string; created: boolean } {
  for (const existing of listBackups(file, kind)) {
    try {
      if (fs.readFileSync(existing).equals(bytes)) return { path: existing, created: false };
    } catch {
      // unreadable backup: ignore it and write a new one
    }
  }
  for (let attempt = 0; ; attempt++) {
    const target = backupName(file, kind, when, attempt);
    try {
      // 'wx' fails when the name exists: an earlier backup is never replaced.
      fs.writeFileSync(target, bytes, { flag: 'wx' });
      return { path: target, created: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
