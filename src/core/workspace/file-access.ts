// Every file read and write of the server: through the PathGuard, within security.maxFileSize, crash-safe writes.
import fs from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { NotesError } from '../errors';
import { isAllowedTextFile, TEXT_FILE_EXTENSIONS } from './file-types';
import type { PathGuard } from './path-guard';

export interface FileAccessLimits {
  maxFileSize: number;
  validateFileTypes: boolean;
  /** files.fileExtension, always allowed. */
  fileExtension: string;
}

export interface ReadResult {
  path: string;
  content: string;
  /** Size of the whole file in bytes. */
  size: number;
  /** Byte range returned. */
  offset: number;
  length: number;
  /** True when bytes remain after this range; read on from `nextOffset`. */
  truncated: boolean;
  nextOffset: number | null;
}

export interface WriteResult {
  path: string;
  bytes: number;
  created: boolean;
}

/** Files above this size are returned in ranges (the spec's advice to stream files over 1 MB). */
export const READ_CHUNK_BYTES = 1024 * 1024;

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** Cuts a buffer at the last complete UTF-8 character so ranges never split one. */
function completeUtf8(buf: Buffer): Buffer {
  let start = buf.length - 1;
  while (start >= 0 && (buf[start] & 0xc0) === 0x80 && buf.length - start < 4) start--;
  if (start < 0) return buf;
  const lead = buf[start];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + need > buf.length ? buf.subarray(0, start) : buf;
}

export class FileAccess {
  constructor(
    readonly guard: PathGuard,
    private readonly limits: FileAccessLimits,
  ) {}

  private tooLarge(relative: string, size: number): NotesError {
    return new NotesError(
      'FILE_TOO_LARGE',
      `"${relative}" is ${size} bytes, over the limit of ${this.limits.maxFileSize} bytes (security.maxFileSize).`,
      { path: relative, size, limit: this.limits.maxFileSize },
    );
  }

  private async statFile(absolute: string, relative: string) {
    let stat;
    try {
      stat = await fs.stat(absolute);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') throw new NotesError('NOT_FOUND', `File not found: "${relative}".`, { path: relative });
      throw err;
    }
    if (!stat.isFile()) throw new NotesError('NOT_A_FILE', `"${relative || '.'}" is a folder, not a file.`, { path: relative });
    return stat;
  }

  /** Reads text. Without a range, files up to 1 MB come whole and larger ones in 1 MB ranges. */
  async read(userPath: string, range: { offset?: number; length?: number } = {}): Promise<ReadResult> {
    const { absolute, relative } = await this.guard.resolve(userPath);
    const stat = await this.statFile(absolute, relative);
    if (stat.size > this.limits.maxFileSize) throw this.tooLarge(relative, stat.size);
    const offset = Math.min(range.offset ?? 0, stat.size);
    const wanted = Math.min(range.length ?? READ_CHUNK_BYTES, stat.size - offset);
    const handle = await fs.open(absolute, 'r');
    let buf: Buffer;
    try {
      buf = Buffer.alloc(wanted);
      const { bytesRead } = await handle.read(buf, 0, wanted, offset);
      buf = buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    if (buf.subarray(0, 8192).includes(0)) {
      throw new NotesError('UNSUPPORTED_FILE_TYPE', `"${relative}" is a binary file; only text can be read.`, { path: relative });
    }
    // Skip continuation bytes when a range starts inside a character, and stop before a split one.
    let skip = 0;
    while (skip < buf.length && skip < 3 && offset > 0 && (buf[skip] & 0xc0) === 0x80) skip++;
    const end = offset + buf.length < stat.size ? completeUtf8(buf) : buf;
    const body = end.subarray(skip);
    const next = offset + skip + body.length;
    return {
      path: relative,
      content: body.toString('utf8'),
      size: stat.size,
      offset: offset + skip,
      length: body.length,
      truncated: next < stat.size,
      nextOffset: next < stat.size ? next : null,
    };
  }

  /** Reads a whole text file for internal use (metadata, search, tasks). */
  async readText(userPath: string): Promise<{ path: string; absolute: string; text: string }> {
    const { absolute, relative } = await this.guard.resolve(userPath);
    const stat = await this.statFile(absolute, relative);
    if (stat.size > this.limits.maxFileSize) throw this.tooLarge(relative, stat.size);
    return { path: relative, absolute, text: await fs.readFile(absolute, 'utf8') };
  }

  private checkWritable(relative: string, content: string): number {
    if (this.limits.validateFileTypes && !isAllowedTextFile(relative, this.limits.fileExtension)) {
      throw new NotesError(
        'UNSUPPORTED_FILE_TYPE',
        `"${relative}" is not a text or note file type; allowed extensions: ${[...new Set([this.limits.fileExtension, ...TEXT_FILE_EXTENSIONS])].join(' ')} (security.validateFileTypes).`,
        { path: relative },
      );
    }
    const bytes = Buffer.byteLength(content, 'utf8');
    if (bytes > this.limits.maxFileSize) {
      throw new NotesError(
        'FILE_TOO_LARGE',
        `Content for "${relative}" is ${bytes} bytes, over the limit of ${this.limits.maxFileSize} bytes (security.maxFileSize).`,
        { path: relative, size: bytes, limit: this.limits.maxFileSize },
      );
    }
    return bytes;
  }

  /**
   * Writes text crash-safely (temporary file, fsync, rename; the file's mode is kept). `exclusive` refuses an
   * existing path; otherwise an existing file is replaced. Parent folders are created.
   */
  async write(userPath: string, content: string, opts: { exclusive: boolean }): Promise<WriteResult> {
    const { absolute, relative } = await this.guard.resolve(userPath);
    if (relative === '') throw new NotesError('NOT_A_FILE', 'The workspace folder itself cannot be written as a file.');
    const bytes = this.checkWritable(relative, content);
    let existed = false;
    try {
      const stat = await fs.stat(absolute);
      if (!stat.isFile()) throw new NotesError('NOT_A_FILE', `"${relative}" is a folder, not a file.`, { path: relative });
      existed = true;
    } catch (err) {
      if (err instanceof NotesError) throw err;
      if (errnoCode(err) !== 'ENOENT') throw err;
    }
    if (existed && opts.exclusive) throw new NotesError('ALREADY_EXISTS', `"${relative}" already exists.`, { path: relative });
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    if (opts.exclusive) {
      // Claim the name first so two concurrent creates cannot both succeed.
      try {
        await (await fs.open(absolute, 'wx')).close();
      } catch (err) {
        if (errnoCode(err) === 'EEXIST') throw new NotesError('ALREADY_EXISTS', `"${relative}" already exists.`, { path: relative });
        throw err;
      }
    }
    await writeFileAtomic(absolute, content, { encoding: 'utf8', fsync: true });
    return { path: relative, bytes, created: !existed };
  }

  /** Deletes a file (never a folder). */
  async delete(userPath: string): Promise<{ path: string; size: number }> {
    const { absolute, relative } = await this.guard.resolve(userPath);
    let stat;
    try {
      stat = await fs.lstat(absolute);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') throw new NotesError('NOT_FOUND', `File not found: "${relative}".`, { path: relative });
      throw err;
    }
    if (stat.isDirectory()) {
      throw new NotesError('NOT_A_FILE', `"${relative || '.'}" is a folder; delete_file removes files only.`, { path: relative });
    }
    await fs.unlink(absolute);
    return { path: relative, size: stat.size };
  }

  async stat(userPath: string) {
    const { absolute, relative } = await this.guard.resolve(userPath);
    return { path: relative, absolute, stat: await this.statFile(absolute, relative) };
  }
}
