// Lists the workspace's files (fdir), honouring exclude globs (picomatch) and the hidden-files setting.
import path from 'node:path';
import picomatch from 'picomatch';
// The CommonJS build on purpose: bundling fdir's ESM build into the CommonJS server breaks on import.meta.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see the line above
import fdirPackage = require('fdir');

const { fdir } = fdirPackage;

export interface ListOptions {
  excludePatterns: readonly string[];
  showHiddenFiles: boolean;
}

function isHidden(relative: string): boolean {
  return relative.split('/').some((part) => part.startsWith('.'));
}

/**
 * Every regular file under `root`, as sorted workspace-relative POSIX paths. Symbolic links are skipped, so a
 * link cannot pull files from outside the workspace into listings or search.
 */
export async function listWorkspaceFiles(root: string, options: ListOptions): Promise<string[]> {
  const excluded = options.excludePatterns.length ? picomatch([...options.excludePatterns], { dot: true }) : () => false;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const relativeOf = (absolute: string) => absolute.slice(prefix.length).split(path.sep).join('/').replace(/\/$/, '');
  const files = await new fdir({ excludeSymlinks: true, suppressErrors: true })
    .withRelativePaths()
    .withPathSeparator('/')
    .exclude((_name, dirPath) => {
      const rel = relativeOf(dirPath);
      // Pruning a folder is only right when every file in it would be excluded: test the folder itself.
      return (!options.showHiddenFiles && isHidden(rel)) || excluded(rel) || excluded(`${rel}/`);
    })
    .filter((file) => (options.showHiddenFiles || !isHidden(file)) && !excluded(file))
    .crawl(root)
    .withPromise();
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
