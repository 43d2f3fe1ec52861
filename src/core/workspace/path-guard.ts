// The one gate every file access passes: resolves a user-supplied path and refuses anything outside the workspace.
import fs from 'node:fs/promises';
import { realpath as realpathCallback, stat as statCallback, type Stats } from 'node:fs';
import path from 'node:path';
import { NotesError, quotedText } from '../errors';

export interface GuardedPath {
  /** Absolute path on disk, inside the workspace's real path. */
  absolute: string;
  /** Workspace-relative POSIX path ("" for the root itself). */
  relative: string;
  /**
   * Where the path leads, symbolic links followed (of its nearest existing parent, with the missing names after it,
   * when it does not exist): inside the workspace's real path. Writes go there, so a link is written through.
   */
  real: string;
}

/** The path flavour to reason with: `path.posix` or `path.win32` (injectable so Windows rules are testable anywhere). */
export type PathApi = typeof path.posix;

/** Symlink hops followed through dangling links before giving up (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40;

// Device names that Windows resolves to devices in any folder, with or without an extension.
export const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$) *(\..*)?$/i;

/**
 * True when `candidate` is `root` or below it. Compares whole path segments, so `/allowed_evil` is not inside
 * `/allowed` (CVE-2025-53110); `path.win32.relative` compares case-insensitively as Windows does.
 */
export function isInside(root: string, candidate: string, p: PathApi = path): boolean {
  const rel = p.relative(root, candidate);
  if (rel === '') return true;
  if (p.isAbsolute(rel)) return false; // another drive on Windows
  const first = rel.split(p.sep)[0];
  return first !== '..';
}

/**
 * The lexical half of the check, with no file system access: rejects what can be rejected from the string alone
 * and returns the absolute lexical path inside one of `roots` (the first root it is inside) plus that root.
 */
export function resolveLexically(
  roots: readonly string[],
  input: string,
  p: PathApi = path,
): { lexical: string; base: string } {
  if (typeof input !== 'string' || input.trim().length === 0) {
    throw new NotesError('INVALID_ARGUMENT', 'A path is required.');
  }
  if (input.includes('\0')) {
    throw new NotesError('ACCESS_DENIED', 'Access denied: the path contains a NUL byte.', { path: input });
  }
  // A lone surrogate has no UTF-8 form: the file system would be given U+FFFD in its place, a name other than the
  // one the answer would report.
  if (/\p{Cs}/u.test(input)) {
    throw new NotesError('ACCESS_DENIED', 'Access denied: the path is not valid Unicode (it holds a lone surrogate, half of a character such as an emoji, which no file name can hold).', { path: input });
  }
  const windows = p.sep === '\\';
  // Models write Windows separators on any platform; a backslash in a note's name is not worth the ambiguity.
  const text = windows ? input.replace(/\//g, '\\') : input.replace(/\\/g, '/');
  if (windows) checkWindowsSyntax(input, text);
  const lexical = p.isAbsolute(text) ? p.resolve(text) : p.resolve(roots[0], text);
  const base = roots.find((root) => isInside(root, lexical, p));
  if (base === undefined) throw outside(input, roots[0]);
  return { lexical, base };
}

function checkWindowsSyntax(input: string, text: string): void {
  const deny = (why: string): never => {
    throw new NotesError('ACCESS_DENIED', `Access denied: "${input}" ${why}.`, { path: input });
  };
  // \\?\ and \\.\ reach devices and skip normalisation; UNC shares are other machines.
  if (text.startsWith('\\\\')) deny('is a device or network path');
  // "C:notes" is relative to drive C's current folder, not to the workspace.
  if (/^[a-zA-Z]:(?![\\])/.test(text)) deny('is relative to a drive, not to the workspace');
  // "\\notes" is rooted on whichever drive is current.
  if (text.startsWith('\\')) deny('is relative to the current drive, not to the workspace');
  const afterDrive = text.replace(/^[a-zA-Z]:/, '');
  for (const segment of afterDrive.split('\\')) {
    if (segment.includes(':')) deny('names an alternate data stream');
    if (WINDOWS_RESERVED.test(segment.replace(/[. ]+$/, ''))) deny(`uses the reserved device name "${segment}"`);
    // Windows drops trailing dots and spaces, so "..." or ".. " would name the parent folder.
    if (segment !== '.' && segment !== '..' && /^[. ]+$/.test(segment)) deny('has a segment made only of dots and spaces');
  }
}

/** Bytes of the longest path the system opens, with its final NUL (Linux 4096, macOS 1024); unknown elsewhere. */
const PATH_MAX = process.platform === 'linux' ? 4096 : process.platform === 'darwin' ? 1024 : undefined;

/**
 * A name the file system refused as too long (ENAMETOOLONG), by its workspace-relative path: a name over 255 bytes,
 * or a whole path over the system's limit.
 */
export function tooLongError(relative: string): NotesError {
  return new NotesError(
    'INVALID_ARGUMENT',
    `"${quotedPath(relative)}" is too long for the file system: each file or folder name may have at most 255 bytes, and the whole path no more than the system allows.`,
    { path: relative },
  );
}

/**
 * A path as these messages quote it: whole up to 32 768 characters (longer than any path a file system opens, the
 * long paths of Windows included), else its start: a path of megabytes is not repeated back.
 */
function quotedPath(input: string): string {
  return quotedText(input, 32_768);
}

function outside(input: string, root: string, why?: string): NotesError {
  return new NotesError(
    'ACCESS_DENIED',
    `Access denied: "${quotedPath(input)}" is outside the workspace${why ? ` (${why})` : ''}. Only files inside ${root} can be used.`,
    { path: input },
  );
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
    // Through node:fs's callbacks (the same system calls as node:fs/promises), which a server start has loaded
    // already: the server loads node:fs/promises after the handshake, not before it (see server/idle-warm-up.ts).
    try {
      real = await new Promise<string>((resolve, reject) => realpathCallback.native(absolute, (err, found) => (err ? reject(err) : resolve(found))));
    } catch {
      throw new NotesError('NOT_FOUND', `Workspace folder does not exist: ${absolute}`);
    }
    const stat = await new Promise<Stats>((resolve, reject) => statCallback(real, (err, found) => (err ? reject(err) : resolve(found))));
    if (!stat.isDirectory()) throw new NotesError('INVALID_ARGUMENT', `Workspace is not a folder: ${absolute}`);
    return new PathGuard(absolute, real);
  }

  /**
   * Resolves a relative or absolute path. The lexical path must be inside the workspace, and so must its real
   * path: of the file itself when it exists, else of its nearest existing parent, following dangling symlinks
   * (so a write cannot go through a link that points outside, CVE-2025-53109).
   */
  async resolve(input: string): Promise<GuardedPath> {
    // The real root is tried first so that a path given through it maps onto itself.
    const { lexical, base } = resolveLexically([this.realRoot, this.root], input);
    const relative = path.relative(base, lexical);
    const absolute = relative === '' ? this.realRoot : path.join(this.realRoot, relative);
    const real = await this.realPathOfNearest(absolute, input, relative.split(path.sep).join('/'));
    if (!isInside(this.realRoot, real)) throw outside(input, this.root, 'it leads through a symbolic link');
    // A path the system cannot open is refused at once, before folders are made for it one by one.
    if (PATH_MAX !== undefined && Buffer.byteLength(real) >= PATH_MAX) throw tooLongError(relative.split(path.sep).join('/'));
    return { absolute, relative: relative.split(path.sep).join('/'), real };
  }

  /**
   * The entry `guarded` names itself, its folders' symbolic links followed but not its own (what unlink removes),
   * refused when that folder is outside the workspace (a link out whose entry links back in).
   */
  async entryOf(guarded: GuardedPath, input: string): Promise<string> {
    if (guarded.relative === '') return this.realRoot;
    const folder = await this.realPathOfNearest(path.dirname(guarded.absolute), input, guarded.relative);
    if (!isInside(this.realRoot, folder)) throw outside(input, this.root, 'its folder leads through a symbolic link');
    return path.join(folder, path.basename(guarded.absolute));
  }

  /** Workspace-relative POSIX form of an absolute path inside the workspace. */
  toRelative(absolute: string): string {
    return path.relative(this.realRoot, absolute).split(path.sep).join('/');
  }

  /**
   * Real path of `p`, or of its nearest existing ancestor with the missing tail appended. `input` is the path as
   * given, `relative` its workspace-relative form (errors name one or the other).
   *
   * Resolving a path stops at its first part that is missing or refused, and each of its folders shares that part
   * or lies before it: a folder of `p` resolves exactly when it lies before that part, and fails as `p` does
   * otherwise. So the nearest existing folder is found in a few `realpath` calls (not one a level, which took
   * seconds for paths a thousand folders deep), and only the first missing part can be a dangling link.
   */
  private async realPathOfNearest(p: string, input: string, relative: string, hops = 0): Promise<string> {
    if (hops > MAX_LINK_HOPS) throw outside(input, this.root, 'it leads through too many symbolic links');
    const real = async (candidate: string): Promise<string | undefined> => {
      try {
        return await fs.realpath(candidate);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw outside(input, this.root, 'it leads through a symbolic link loop');
        if (code === 'ENAMETOOLONG') throw tooLongError(relative);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          throw new NotesError('ACCESS_DENIED', `Access denied: "${input}" cannot be checked (${code ?? 'error'}).`, {
            path: input,
          });
        }
        return undefined;
      }
    };
    const whole = await real(p);
    if (whole !== undefined) return whole;
    // p and its folders up to the file system's root, deepest first; chain[0] (p) is missing.
    const chain = [p];
    for (let c = p; path.dirname(c) !== c; c = path.dirname(c)) chain.push(path.dirname(c));
    // Looked for upwards in growing steps (1, 2, 4, … folders up), then by halving the last step: a few calls
    // whether one folder is missing (a note about to be made: its folder is the first tried) or a thousand.
    let nearest: { index: number; real: string } | undefined;
    let missingAt = 0;
    for (let step = 1; ; step *= 2) {
      const index = Math.min(step, chain.length - 1);
      const found = await real(chain[index]);
      if (found !== undefined) {
        nearest = { index, real: found };
        break;
      }
      missingAt = index;
      if (index === chain.length - 1) break;
    }
    for (let lo = missingAt + 1, hi = (nearest?.index ?? 0) - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      const found = await real(chain[mid]);
      if (found === undefined) lo = mid + 1;
      else {
        nearest = { index: mid, real: found };
        hi = mid - 1;
      }
    }
    if (!nearest) return p;
    const missing = chain.slice(0, nearest.index).map((c) => path.basename(c)).reverse();
    // A dangling symlink must not be written through: its target may be outside. A relative target is relative to
    // the folder the link really is in, as the kernel reads it: through a folder link, `..` leaves that folder, not
    // the one the path names.
    const link = await readLinkIfAny(chain[nearest.index - 1]);
    if (link !== undefined) {
      return this.realPathOfNearest(path.join(path.resolve(nearest.real, link), ...missing.slice(1)), input, relative, hops + 1);
    }
    return path.join(nearest.real, ...missing);
  }
}

async function readLinkIfAny(p: string): Promise<string | undefined> {
  try {
    const st = await fs.lstat(p);
    return st.isSymbolicLink() ? await fs.readlink(p) : undefined;
  } catch {
    return undefined; // does not exist at all
  }
}
