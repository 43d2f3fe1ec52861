// The one gate every file access passes: resolves a user-supplied path and refuses anything outside the workspace.
import fs from 'node:fs/promises';
import path from 'node:path';
import { NotesError } from '../errors';

export interface GuardedPath {
  /** Absolute path on disk, inside the workspace's real path. */
  absolute: string;
  /** Workspace-relative POSIX path ("" for the root itself). */
  relative: string;
}

function isInside(root: string, candidate: string, p: typeof path = path): boolean {
  const rel = p.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !p.isAbsolute(rel));
}

export class PathGuard {
  private constructor(
    /** The workspace root as given (normalised). */
    readonly root: string,
    /** The workspace root with symlinks resolved. */
    readonly realRoot: string,
  ) {}

  static async create(root: string): Promise<PathGuard> {
    const absolute = path.resolve(root);
    let real: string;
    try {
      real = await fs.realpath(absolute);
    } catch {
      throw new NotesError('NOT_FOUND', `Workspace folder does not exist: ${absolute}`);
    }
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) throw new NotesError('INVALID_ARGUMENT', `Workspace is not a folder: ${absolute}`);
    return new PathGuard(absolute, real);
  }

  /**
   * Resolves a relative or absolute path. The lexical path must be inside the workspace, and so must its real
   * path: of the file itself when it exists, else of its nearest existing parent (so a write cannot go through a
   * symlinked folder that points outside).
   */
  async resolve(input: string): Promise<GuardedPath> {
    if (typeof input !== 'string' || input.length === 0) {
      throw new NotesError('INVALID_ARGUMENT', 'A path is required.');
    }
    if (input.includes('\0')) throw new NotesError('ACCESS_DENIED', 'Path contains a NUL byte.');
    const normalisedInput = path.sep === '\\' ? input : input.replace(/\\/g, '/');
    const lexical = path.isAbsolute(normalisedInput)
      ? path.resolve(normalisedInput)
      : path.resolve(this.realRoot, normalisedInput);
    // Absolute paths may name the workspace through its unresolved path or its real path.
    const base = isInside(this.realRoot, lexical) ? this.realRoot : isInside(this.root, lexical) ? this.root : undefined;
    if (base === undefined) throw this.outside(input);
    const real = await this.realPathOfNearest(lexical);
    if (!isInside(this.realRoot, real)) throw this.outside(input, 'it leads through a symbolic link');
    const relative = path.relative(base, lexical).split(path.sep).join('/');
    return { absolute: path.join(this.realRoot, relative), relative };
  }

  /** Workspace-relative POSIX form of an absolute path inside the workspace. */
  toRelative(absolute: string): string {
    return path.relative(this.realRoot, absolute).split(path.sep).join('/');
  }

  private async realPathOfNearest(p: string): Promise<string> {
    let current = p;
    const rest: string[] = [];
    for (;;) {
      try {
        const real = await fs.realpath(current);
        return rest.length ? path.join(real, ...rest.reverse()) : real;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        // A dangling symlink must not be written through: its target may be outside.
        try {
          const st = await fs.lstat(current);
          if (st.isSymbolicLink()) {
            const target = path.resolve(path.dirname(current), await fs.readlink(current));
            return this.realPathOfNearest(rest.length ? path.join(target, ...[...rest].reverse()) : target);
          }
        } catch {
          // does not exist at all: climb
        }
        const parent = path.dirname(current);
        if (parent === current) return p;
        rest.push(path.basename(current));
        current = parent;
      }
    }
  }

  private outside(input: string, why?: string): NotesError {
    return new NotesError(
      'ACCESS_DENIED',
      `Access denied: "${input}" is outside the workspace${why ? ` (${why})` : ''}. Only files inside ${this.root} can be used.`,
      { path: input },
    );
  }
}
