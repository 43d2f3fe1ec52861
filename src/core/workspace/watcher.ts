// Watches one file's content for changes made by anyone (the set of files is watched by the workspace index).
import fs from 'node:fs';

export interface Disposable {
  dispose(): void;
}

/**
 * What changes whenever the file does: its change time too, which no program can set, since the modification
 * time can be set back (`touch -d`, `rsync -t`, a sync tool keeping the original times) after an edit that kept
 * the size.
 */
function signature(stat: fs.Stats | undefined): string {
  return stat ? `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}` : 'missing';
}

/**
 * Calls `onChange` when the file changes: its size, modification or change time, or its inode (a replacement by
 * rename).
 */
export function watchFileContent(absolute: string, onChange: () => void, intervalMs = 200): Disposable {
  // Stat polling survives atomic replace (new inode), which fs.watch on the file itself does not. The baseline is
  // taken now, before the caller answers, so that a change made right after subscribing is never missed.
  let last: string;
  try {
    last = signature(fs.statSync(absolute));
  } catch {
    last = signature(undefined);
  }
  let polling = false;
  let disposed = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    fs.stat(absolute, (err, stat) => {
      polling = false;
      // A look under way when the watch was disposed (an unsubscribe) reports nothing.
      if (disposed) return;
      const now = signature(err ? undefined : stat);
      if (now !== last) {
        last = now;
        onChange();
      }
    });
  }, intervalMs);
  timer.unref();
  return {
    dispose: () => {
      disposed = true;
      clearInterval(timer);
    },
  };
}
