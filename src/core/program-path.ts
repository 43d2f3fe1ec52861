// Finds a program on a PATH the way a shell would: the first folder holding an executable file of that name.
import fs from 'node:fs';
import path from 'node:path';

/** The first `name` (with `.exe` on Windows) in the folders of `searchPath` that is an executable file. */
export function findOnPath(name: string, searchPath: string): string | undefined {
  const file = process.platform === 'win32' ? `${name}.exe` : name;
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, file);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
