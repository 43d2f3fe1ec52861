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

/** Backups kept of each kind; the oldest beyond this are removed when a new one is written. */
export const MAX_BACKUPS_PER_KIND = 10;

/**
 * Writes `bytes` to a new timestamped backup and returns its path. When a backup of this kind with
 * exactly these bytes already exists, that one is returned instead, so that reading the same broken
 * file again and again does not fill the folder (only backups of the same size are read to compare).
 * Of each kind the newest MAX_BACKUPS_PER_KIND are kept.
 */
export function writeBackup(file: string, kind: BackupKind, bytes: Buffer, when = new Date()): { path: string; created: boolean } {
  const existing = listBackups(file, kind);
  for (const candidate of existing) {
    try {
      if (fs.statSync(candidate).size === bytes.length && fs.readFileSync(candidate).equals(bytes)) return { path: candidate, created: false };
    } catch {
      // unreadable backup: ignore it and write a new one
    }
  }
  for (let attempt = 0; ; attempt++) {
    const target = backupName(file, kind, when, attempt);
    try {
      // 'wx' fails when the name exists: an earlier backup is never replaced.
      fs.writeFileSync(target, bytes, { flag: 'wx' });
      pruneBackups([...existing, target].sort());
      return { path: target, created: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Removes the oldest of `sorted` (oldest first, timestamped names sort by time) beyond the limit. */
function pruneBackups(sorted: string[]): void {
  for (const old of sorted.slice(0, Math.max(0, sorted.length - MAX_BACKUPS_PER_KIND))) {
    try {
      fs.rmSync(old, { force: true });
    } catch {
      // a backup that cannot be removed only takes space
    }
  }
}
