// The settings the workspace index tests start an index with: the defaults a server starts it with.
import type { IndexOptions } from '../../../src/core/workspace/workspace-index';
import { DEFAULT_MAX_FILE_SIZE, indexBytes } from '../../../src/core/workspace/worker-boot';

/** files.excludePatterns' default. */
export const DEFAULT_EXCLUDES = ['**/node_modules/**', '**/.git/**', '**/.DS_Store'];

/** The index options for `root` under the default settings, with `o` over them. */
export function indexOptions(root: string, o: Partial<IndexOptions> = {}): IndexOptions {
  return {
    root,
    excludePatterns: DEFAULT_EXCLUDES,
    showHiddenFiles: false,
    fileExtension: '.md',
    maxFileSize: DEFAULT_MAX_FILE_SIZE,
    maxFiles: 10_000,
    maxBytes: indexBytes({}),
    ...o,
  };
}
