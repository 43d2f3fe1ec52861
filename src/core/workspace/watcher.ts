// Watches the workspace for changes made by anyone (our tools or other programs): one file's content, or the set of files.
import fs from 'node:fs';

export interface Disposable {
  dispose(): void;
}

/** Calls `onChange` when the file's size or modification time changes, including replacement by rename. */
export function watchFileContent(absolute: string, onChange: () => void, intervalMs = 200): Disposable {
  // Stat polling survives atomic replace (new inode), which fs.watch on the file itself does not.
  const listener = (curr: fs.Stats, prev: fs.Stats) => {
    if (curr.mtimeMs !== prev.mtimeMs || curr.size !== prev.size || curr.ino !== prev.ino) onChange();
  };
  fs.watchFile(absolute, { interval: intervalMs, persistent: false }, listener);
  return { dispose: () => fs.unwatchFile(absolute, listener) };
}

/**
 * Calls `onChange` (debounced) after entries are added, removed or renamed anywhere under `root`. Recursive
 * fs.watch where the platform has it; the root folder alone otherwise.
 */
export function watchTree(root: string, onChange: () => void, debounceMs = 150): Disposable {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref();
  };
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(root, { recursive: true, persistent: false }, fire);
  } catch {
    try {
      watcher = fs.watch(root, { persistent: false }, fire);
    } catch {
      watcher = undefined;
    }
  }
  watcher?.on('error', () => watcher?.close());
  return {
    dispose: () => {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
