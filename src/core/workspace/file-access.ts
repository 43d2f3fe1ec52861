// Every file read and write of the server: through the PathGuard, within security.maxFileSize, crash-safe writes.
import fs from 'node:fs/promises';
import { closeSync, constants as fsConstants, linkSync, openSync, renameSync, statSync, unlinkSync, type BigIntStats, type Stats } from 'node:fs';
import path from 'node:path';
import { NotesError } from '../errors';
import { readNoWaitFlags } from '../read-flags';
import { isAllowedTextFile, TEXT_FILE_EXTENSIONS } from './file-types';
import { createPathFilter, pathListed } from './listing';
import { tooLongError, type GuardedPath, type PathGuard } from './path-guard';
import { isTempFileName, tempFileName } from './temp-files';

const READ_FLAGS = readNoWaitFlags(fsConstants);

function notAFile(relative: string, stat: Stats, use: 'read' | 'written' | 'deleted' = 'read'): NotesError {
  return stat.isDirectory()
    ? new NotesError('NOT_A_FILE', `"${relative || '.'}" is a folder, not a file.`, { path: relative })
    : new NotesError('NOT_A_FILE', `"${relative}" is not a regular file (a named pipe, socket or device); only files can be ${use}.`, { path: relative });
}

/**
 * The file opened for reading and its status, taken through the handle: refused unless it is a regular file (a
 * named pipe is not waited on, see readNoWaitFlags); nothing there is NOT_FOUND, as for statOrNotFound.
 */
async function openRegular(absolute: string, relative: string): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, READ_FLAGS);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(relative);
    // Windows does not open a folder as a file.
    if (code === 'EISDIR') throw new NotesError('NOT_A_FILE', `"${relative || '.'}" is a folder, not a file.`, { path: relative });
    return mapFsError(err, relative);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notAFile(relative, stat);
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export interface FileAccessLimits {
  maxFileSize: number;
  validateFileTypes: boolean;
  /** files.fileExtension, always allowed. */
  fileExtension: string;
  /** files.excludePatterns: such paths (node_modules, .git, ...) are never written or deleted. */
  excludePatterns?: readonly string[];
  /** Match excludePatterns ignoring case; by default where file systems usually do (Windows, macOS). */
  caseInsensitivePaths?: boolean;
}

/**
 * Which pattern excludes a path: the listing's own filter decides (the file, or any folder the crawl prunes), so
 * what list_files leaves out for a pattern cannot be written or deleted. `nocase` compares lower-cased paths
 * and patterns, as file systems that ignore case do.
 */
function exclusionMatcher(patterns: readonly string[], nocase: boolean): (relative: string) => string | undefined {
  const fold = (text: string) => (nocase ? text.toLowerCase() : text);
  const matchers = patterns.map((pattern) => ({ pattern, filter: createPathFilter({ excludePatterns: [fold(pattern)], showHiddenFiles: true, listTempFiles: true }) }));
  return (relative) => matchers.find((m) => !pathListed(fold(relative), m.filter))?.pattern;
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
  /** True when the bytes read are not valid UTF-8: `content` has U+FFFD in place of each invalid sequence. */
  invalidUtf8: boolean;
}

export interface WriteResult {
  path: string;
  bytes: number;
  created: boolean;
}

/** Files above this size are returned in ranges (the spec's advice to stream files over 1 MB). */
export const READ_CHUNK_BYTES = 1024 * 1024;

/** A temporary file this old is left over from a killed write (a write takes far less). */
export const STALE_TEMP_MS = 60_000;
/** When each folder was last swept for stale temporary files (once a minute at most, as it lists the folder). */
const lastSweep = new Map<string, number>();

/** Removes our temporary files older than STALE_TEMP_MS in `dir`; lazily, when we next write into that folder. */
async function removeStaleTemps(dir: string): Promise<void> {
  const now = Date.now();
  if ((lastSweep.get(dir) ?? -Infinity) > now - STALE_TEMP_MS) return;
  lastSweep.set(dir, now);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names.filter(isTempFileName)) {
    const file = path.join(dir, name);
    try {
      const stat = await fs.lstat(file);
      if (stat.isFile() && now - stat.mtimeMs > STALE_TEMP_MS) await fs.rm(file, { force: true });
    } catch {
      // gone already, or not ours to remove: the write itself matters more
    }
  }
}

/** What a replaced file keeps: its mode, and its owner where this process may give it (as root). */
interface Kept {
  mode: number;
  uid: number;
  gid: number;
}

/** Writes and syncs `content` to a new temporary file in `dir` (keeping what `kept` says) and returns its path. */
async function writeTemp(dir: string, content: string, kept: Kept | undefined): Promise<string> {
  const temp = path.join(dir, tempFileName());
  const handle = await fs.open(temp, 'wx', kept?.mode ?? 0o666);
  try {
    if (kept && process.getuid && (kept.uid !== process.getuid() || kept.gid !== process.getgid?.())) {
      // A server run as root replacing a user's note must not hand it to root. Others may not give files away:
      // the note then belongs to the user who wrote it, as with any editor that saves by renaming.
      await handle.chown(kept.uid, kept.gid).catch(() => undefined);
    }
    // The umask narrowed the mode given to open (and chown may clear set-id bits); the mode is kept exactly.
    if (kept) await handle.chmod(kept.mode);
    await handle.writeFile(content, 'utf8');
    await handle.sync();
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw err;
  }
  return temp;
}

/**
 * Creates folder `dir` and the missing folders above it; returns those it created, outermost first. Node's recursive
 * mkdir reports ENOENT for a folder it could not make (on a read-only or full file system): made one by one here,
 * the real error shows.
 */
async function makeFolders(dir: string): Promise<string[]> {
  const make = async (): Promise<boolean> => {
    try {
      await fs.mkdir(dir);
      return true;
    } catch (err) {
      // A file there fails the write with ENOTDIR when it opens its temporary file.
      if (errnoCode(err) === 'EEXIST') return false;
      throw err;
    }
  };
  try {
    return (await make()) ? [dir] : [];
  } catch (err) {
    const parent = path.dirname(dir);
    if (errnoCode(err) !== 'ENOENT' || parent === dir) throw err;
  }
  const created = await makeFolders(path.dirname(dir));
  try {
    return (await make()) ? [...created, dir] : created;
  } catch (err) {
    await removeFolders(created);
    throw err;
  }
}

/** Removes folders makeFolders created, innermost first, while they are empty. */
async function removeFolders(created: readonly string[]): Promise<void> {
  for (const dir of [...created].reverse()) {
    try {
      await fs.rmdir(dir);
    } catch {
      return;
    }
  }
}

/** Makes a rename durable; folders cannot be opened or synced on Windows, where the rename is durable enough. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // unsupported here
  }
}

/**
 * Throws when the request behind a change was cancelled or timed out. It is called right before the change is made
 * (the rename, link or unlink that makes it), with nothing awaited in between, so the change is made only for a
 * request still running then: one whose caller was told it timed out or was cancelled leaves the file as it was.
 */
type StopCheck = () => void;

/** The StopCheck for `signal`: a NotesError saying nothing was changed. */
function stopCheck(signal: AbortSignal | undefined, relative: string): StopCheck {
  return () => {
    if (signal?.aborted) {
      throw new NotesError('INTERNAL', `The change to "${relative}" was stopped (the request was cancelled or timed out); nothing was changed.`, { path: relative });
    }
  };
}

/** What tells one version of a file from another: which file the path names, its size and change times. */
function versionOf(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/**
 * Replaces (or creates) a file all or nothing: temporary file, fsync, rename over it, fsync of the folder. `stop`
 * throws when the request was stopped meanwhile; the file is then left as it was. With
 * `version` (see versionOf), the file is replaced only while it is still that version: once the temporary file is
 * written, it is checked and renamed at once, with nothing else run in between (false is returned, and nothing
 * changed, when another program changed or replaced it).
 */
async function replaceAtomic(absolute: string, content: string, kept: Kept | undefined, stop: StopCheck, version?: string): Promise<boolean> {
  const dir = path.dirname(absolute);
  const temp = await writeTemp(dir, content, kept);
  try {
    // Checked and renamed in one step: a request stopped before this point changes nothing, and one that is not
    // cannot be stopped halfway (see StopCheck).
    stop();
    if (version === undefined) renameSync(temp, absolute);
    else {
      const now = statSync(absolute, { bigint: true, throwIfNoEntry: false });
      if (!now || versionOf(now) !== version) {
        await fs.rm(temp, { force: true });
        return false;
      }
      renameSync(temp, absolute);
    }
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  await syncFolder(dir);
  return true;
}

/** How many times update() reads a note again that another program keeps changing before it gives up. */
const UPDATE_ATTEMPTS = 5;

/**
 * Creates a file that must not exist yet, all or nothing: the content is written and synced under a temporary
 * name, then hard-linked to its name (which fails if the name exists), so a crash never leaves an empty or
 * partial file and two concurrent creates cannot both succeed.
 */
async function createExclusive(absolute: string, relative: string, content: string, stop: StopCheck): Promise<void> {
  const exists = () => new NotesError('ALREADY_EXISTS', `"${relative}" already exists.`, { path: relative });
  const temp = await writeTemp(path.dirname(absolute), content, undefined);
  try {
    // Checked and linked in one step, as in replaceAtomic.
    stop();
    linkSync(temp, absolute);
  } catch (err) {
    if (errnoCode(err) === 'EEXIST') throw exists();
    if (err instanceof NotesError) throw err; // stopped
    // File systems without hard links: claim the name, then rename over the claim (a crash in between can
    // leave the claimed empty file there only).
    try {
      closeSync(openSync(absolute, 'wx'));
    } catch (claimErr) {
      if (errnoCode(claimErr) === 'EEXIST') throw exists();
      throw claimErr;
    }
    renameSync(temp, absolute);
  } finally {
    await fs.rm(temp, { force: true });
  }
  await syncFolder(path.dirname(absolute));
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * File system errors a user can act on, as NotesErrors naming the workspace-relative path (the raw ones carry
 * the absolute path and a stack); anything else is rethrown.
 */
function mapFsError(err: unknown, relative: string): never {
  const code = errnoCode(err);
  if (code === 'ENAMETOOLONG') throw tooLongError(relative);
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    throw new NotesError('NOT_A_FILE', `"${relative}": a part of its folder path is a file, not a folder.`, { path: relative });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    throw new NotesError('ACCESS_DENIED', `"${relative}": permission denied by the file system.`, { path: relative });
  }
  if (code === 'EROFS') throw readOnlyFileSystem(relative);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    const why = code === 'ENOSPC' ? 'the disk is full (ENOSPC)' : 'the disk quota is used up (EDQUOT)';
    throw new NotesError('FILE_SYSTEM', `"${relative}" could not be written: ${why}. Nothing was changed; free some space and try again.`, { path: relative, errno: code });
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    throw new NotesError('FILE_SYSTEM', `"${relative}": the server has too many files open (${code}); nothing was changed. Try again when fewer calls are running.`, { path: relative, errno: code });
  }
  // Any other error of the file system (EIO, ...): its code and description, without the absolute path.
  if (code !== undefined && /^[A-Z0-9]+$/.test(code) && err instanceof Error) {
    const description = /^[A-Z0-9]+: ([^,]+)/.exec(err.message)?.[1] ?? 'error';
    throw new NotesError('FILE_SYSTEM', `"${relative}": the file system failed (${code}: ${description}).`, { path: relative, errno: code });
  }
  throw err;
}

function readOnlyFileSystem(relative: string): NotesError {
  return new NotesError('ACCESS_DENIED', `"${relative}" cannot be changed: the file system is read-only. Nothing was changed.`, { path: relative });
}

function notFound(relative: string): NotesError {
  return new NotesError('NOT_FOUND', `File not found: "${relative}".`, { path: relative });
}

/** `stat` (or `lstat`) of a path, where nothing there is NOT_FOUND naming `relative` and other failures are mapped. */
async function statOrNotFound(statOf: (p: string) => Promise<Stats>, absolute: string, relative: string): Promise<Stats> {
  try {
    return await statOf(absolute);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') throw notFound(relative);
    return mapFsError(err, relative);
  }
}

/** Bytes of the UTF-8 character that starts with `lead`. */
function utf8Length(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/**
 * Bytes of the character `buf` starts with: its first byte and the continuation bytes (0x80-0xBF) after it, as many
 * as that byte begins. In a file that is not UTF-8, a byte that looks like a beginning may be followed by no
 * continuation: it is then one byte, and the next byte begins the next character.
 */
function characterLength(buf: Buffer): number {
  const wanted = Math.min(utf8Length(buf[0]), buf.length);
  let n = 1;
  while (n < wanted && (buf[n] & 0xc0) === 0x80) n++;
  return n;
}

/** Cuts a buffer at the last complete UTF-8 character so ranges never split one. */
function completeUtf8(buf: Buffer): Buffer {
  let start = buf.length - 1;
  while (start >= 0 && (buf[start] & 0xc0) === 0x80 && buf.length - start < 4) start--;
  if (start < 0) return buf;
  return start + utf8Length(buf[start]) > buf.length ? buf.subarray(0, start) : buf;
}

/** A file with a NUL byte among its first this many bytes is binary: neither read_file nor the note tools read it. */
const BINARY_CHECK_BYTES = 8192;

/** Refuses a binary file: `head`, its first BINARY_CHECK_BYTES bytes (or all of a shorter one), holds a NUL byte. */
function checkText(relative: string, head: Buffer): void {
  if (head.includes(0)) throw new NotesError('UNSUPPORTED_FILE_TYPE', `"${relative}" is a binary file; only text can be read.`, { path: relative });
}

/** Bytes `from` to `to` of an open file (fewer when it is shorter). */
async function readBytes(handle: fs.FileHandle, from: number, to: number): Promise<Buffer> {
  const buf = Buffer.alloc(to - from);
  const { bytesRead } = await handle.read(buf, 0, buf.length, from);
  return buf.subarray(0, bytesRead);
}

/**
 * How many of the first bytes of `after` continue a UTF-8 character that `before` (the up to 3 bytes before them)
 * begins and does not finish. Bytes of the continuation pattern (0x80-0xBF) that follow no such beginning are no
 * part of a character begun before: in a file that is not UTF-8 (Windows-1252's quotes, degree sign, dashes) they
 * are the file's own, and a range that started past them would lose them.
 */
function continuedBytes(before: Buffer, after: Buffer): number {
  const unfinished = before.length - completeUtf8(before).length;
  if (unfinished === 0) return 0;
  const owed = utf8Length(before[before.length - unfinished]) - unfinished;
  let n = 0;
  while (n < owed && n < after.length && (after[n] & 0xc0) === 0x80) n++;
  return n;
}

/**
 * `length` bytes at `offset` of an open file, without the continuation bytes of a character begun before it or one
 * split at its end; `read`: the bytes as read.
 */
async function readRange(handle: fs.FileHandle, size: number, offset: number, length: number): Promise<{ skip: number; body: Buffer; read: Buffer }> {
  // The up to 3 bytes before `offset` come in the same read: they say whether the range starts inside a character.
  const from = Math.max(0, offset - 3);
  const bytes = await readBytes(handle, from, offset + length);
  const read = bytes.subarray(offset - from);
  const skip = continuedBytes(bytes.subarray(0, offset - from), read);
  const end = offset + read.length < size ? completeUtf8(read) : read;
  return { skip, body: end.subarray(skip), read };
}

/**
 * Writes and read-modify-writes of one file (by where it leads) run one at a time, in this process: an update
 * reads the text the write before it left. Shared by every FileAccess, since settings changes make new ones.
 */
const fileQueues = new Map<string, Promise<unknown>>();

async function oneAtATime<T>(file: string, work: () => Promise<T>): Promise<T> {
  const before = fileQueues.get(file) ?? Promise.resolve();
  const run = before.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  fileQueues.set(file, settled);
  try {
    return await run;
  } finally {
    if (fileQueues.get(file) === settled) fileQueues.delete(file);
  }
}

/** Decodes UTF-8 and refuses invalid bytes; keeps a byte-order mark, as Buffer#toString does. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class FileAccess {
  private readonly excludedBy: (relative: string) => string | undefined;

  constructor(
    readonly guard: PathGuard,
    private readonly limits: FileAccessLimits,
  ) {
    const nocase = limits.caseInsensitivePaths ?? (process.platform === 'win32' || process.platform === 'darwin');
    this.excludedBy = exclusionMatcher(limits.excludePatterns ?? [], nocase);
  }

  /** Writing into excluded folders such as .git could plant hooks; they are outside what notes tools may change. */
  private checkNotExcluded(relative: string): void {
    const pattern = this.excludedBy(relative);
    if (pattern !== undefined) {
      throw new NotesError('ACCESS_DENIED', `"${relative}" matches files.excludePatterns (${pattern}); excluded files cannot be written or deleted.`, { path: relative });
    }
  }

  /** The same for where `relative` leads through symbolic links (`target`, absolute): a link to .git is no way in. */
  private checkTargetNotExcluded(relative: string, target: string): void {
    const leads = this.guard.toRelative(target);
    if (leads === relative) return;
    const pattern = this.excludedBy(leads);
    if (pattern !== undefined) {
      throw new NotesError(
        'ACCESS_DENIED',
        `"${relative}" leads through a symbolic link to "${leads}", which matches files.excludePatterns (${pattern}); excluded files cannot be written or deleted.`,
        { path: relative },
      );
    }
  }

  private tooLarge(relative: string, size: number): NotesError {
    return new NotesError(
      'FILE_TOO_LARGE',
      `"${relative}" is ${size} bytes, over the limit of ${this.limits.maxFileSize} bytes (security.maxFileSize).`,
      { path: relative, size, limit: this.limits.maxFileSize },
    );
  }

  /**
   * The guarded path of a file. A path ending in a separator names a folder: the file system would refuse it for a
   * file (ENOTDIR), where resolving it lexically would quietly drop the separator and read, write or create the file.
   */
  private async resolveFile(userPath: string): Promise<GuardedPath> {
    const guarded = await this.guard.resolve(userPath);
    if (guarded.relative !== '' && /[\\/]$/.test(userPath)) {
      throw new NotesError('NOT_A_FILE', `"${guarded.relative}/" ends with "/", so it names a folder, not a file.`, { path: guarded.relative });
    }
    return guarded;
  }

  private async statFile(absolute: string, relative: string) {
    const stat = await statOrNotFound(fs.stat, absolute, relative);
    if (!stat.isFile()) throw notAFile(relative, stat);
    return stat;
  }

  /**
   * Reads text. Without a range, files up to 1 MB come whole and larger ones in 1 MB ranges. A range holds at
   * least one whole character (so reading on from nextOffset always advances) and at most READ_CHUNK_BYTES.
   */
  async read(userPath: string, range: { offset?: number; length?: number } = {}): Promise<ReadResult> {
    const { absolute, relative } = await this.resolveFile(userPath);
    const { handle, stat } = await openRegular(absolute, relative);
    const offset = Math.min(range.offset ?? 0, stat.size);
    let skip: number;
    let body: Buffer;
    try {
      if (stat.size > this.limits.maxFileSize) throw this.tooLarge(relative, stat.size);
      const wanted = Math.min(range.length ?? READ_CHUNK_BYTES, READ_CHUNK_BYTES, stat.size - offset);
      // Binary or not is a property of the file, whatever range is asked for: its first 8 KB decide. A range that
      // starts there and holds them has them; for any other, they are read first (one small read).
      const head = Math.min(BINARY_CHECK_BYTES, stat.size);
      const headInRange = offset === 0 && wanted >= head;
      if (!headInRange) checkText(relative, await readBytes(handle, 0, head));
      let read: Buffer;
      ({ skip, body, read } = await readRange(handle, stat.size, offset, wanted));
      if (headInRange) checkText(relative, read.subarray(0, head));
      // Too short for one whole character: 7 bytes always hold one, even from its last continuation byte.
      if (body.length === 0 && offset + skip < stat.size) {
        ({ skip, body } = await readRange(handle, stat.size, offset, Math.min(7, stat.size - offset)));
        body = body.subarray(0, characterLength(body));
      }
    } finally {
      await handle.close();
    }
    const next = offset + skip + body.length;
    let content: string;
    let invalidUtf8 = false;
    try {
      content = strictUtf8.decode(body);
    } catch {
      content = body.toString('utf8');
      invalidUtf8 = true;
    }
    return {
      path: relative,
      content,
      size: stat.size,
      offset: offset + skip,
      length: body.length,
      truncated: next < stat.size,
      nextOffset: next < stat.size ? next : null,
      invalidUtf8,
    };
  }

  /** Reads a whole text file for internal use (metadata, search, tasks). */
  async readText(userPath: string): Promise<{ path: string; text: string }> {
    const { path: relative, text } = await this.readGuardedText(await this.resolveFile(userPath), {});
    return { path: relative, text };
  }

  /** readText of a path the guard resolved; `strict`: invalid UTF-8 is refused instead of read as U+FFFD. */
  private async readGuardedText({ absolute, relative }: GuardedPath, opts: { strict?: boolean }): Promise<{ path: string; text: string; version: string }> {
    const { handle, stat } = await openRegular(absolute, relative);
    let bytes: Buffer;
    let version: string;
    try {
      if (stat.size > this.limits.maxFileSize) throw this.tooLarge(relative, stat.size);
      // Taken before the read: a change made while it reads shows as another version.
      version = versionOf(await handle.stat({ bigint: true }));
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
    // The same test as read(): note tools on an image would otherwise analyse its bytes as text.
    if (bytes.subarray(0, BINARY_CHECK_BYTES).includes(0)) {
      throw new NotesError('UNSUPPORTED_FILE_TYPE', `"${relative}" is a binary file, not a note; only text can be read.`, { path: relative });
    }
    if (opts.strict) {
      try {
        return { path: relative, text: strictUtf8.decode(bytes), version };
      } catch {
        throw new NotesError('UNSUPPORTED_FILE_TYPE', `"${relative}" is not valid UTF-8 text; it cannot be changed without changing its other bytes too. Nothing was changed.`, { path: relative });
      }
    }
    return { path: relative, text: bytes.toString('utf8'), version };
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
   * existing path; otherwise an existing file is replaced. Parent folders are created. Once `signal` is aborted
   * (the request was cancelled or timed out) the write stops before it changes anything, should it not be done yet.
   */
  async write(userPath: string, content: string, opts: { exclusive: boolean; signal?: AbortSignal }): Promise<WriteResult> {
    const guarded = await this.resolveFile(userPath);
    this.checkWriteTarget(guarded);
    return oneAtATime(guarded.real, async () => {
      const result = await this.writeTo(guarded, content, { exclusive: opts.exclusive, stop: stopCheck(opts.signal, guarded.relative) });
      // Only a write of a given version (update) can end without writing.
      if (!result) throw new Error(`"${guarded.relative}" was not written`);
      return result;
    });
  }

  /**
   * Reads a note's text, changes it with `change` and writes the result, with no write of this server to the same
   * file in between (see oneAtATime). The text must be valid UTF-8: a file that is not would come back with
   * U+FFFD in place of its other bytes. A change that leaves the text as it is writes nothing: the file, its
   * modification time and an editor holding it open are left alone. `signal`: as for write().
   */
  async update<T>(
    userPath: string,
    change: (text: string, relative: string) => { text: string; result: T },
    opts: { signal?: AbortSignal } = {},
  ): Promise<{ path: string; result: T }> {
    const guarded = await this.resolveFile(userPath);
    this.checkWriteTarget(guarded);
    const stop = stopCheck(opts.signal, guarded.relative);
    return oneAtATime(guarded.real, async () => {
      for (let attempt = 1; ; attempt++) {
        const { path: relative, text, version } = await this.readGuardedText(guarded, { strict: true });
        const changed = change(text, relative);
        if (changed.text === text) return { path: relative, result: changed.result };
        // Another program (another server, an editor) may change the note between this read and the rename: the
        // note is replaced only if it is still the version read; otherwise the change is made again on the new
        // text, so that program's edit is not written over.
        if (await this.writeTo(guarded, changed.text, { exclusive: false, version, stop })) return { path: relative, result: changed.result };
        if (attempt === UPDATE_ATTEMPTS) {
          throw new NotesError(
            'FILE_SYSTEM',
            `"${relative}" kept changing while it was being updated (another program writes it); nothing was changed. Try again.`,
            { path: relative },
          );
        }
      }
    });
  }

  private checkWriteTarget({ relative, real }: GuardedPath): void {
    if (relative === '') throw new NotesError('NOT_A_FILE', 'The workspace folder itself cannot be written as a file.');
    this.checkNotExcluded(relative);
    this.checkTargetNotExcluded(relative, real);
  }

  /**
   * Writes where the path leads: a symbolic link inside the workspace is written through, not replaced. With
   * `version` (see replaceAtomic), undefined when the file was no longer that version and nothing was written.
   */
  private async writeTo(guarded: GuardedPath, content: string, opts: { exclusive: boolean; version?: string; stop: StopCheck }): Promise<WriteResult | undefined> {
    const { relative, real } = guarded;
    // A request stopped while it waited for another write to the file makes no folders either.
    opts.stop();
    // What is there first: a folder (whatever its name) is refused as a folder, not as a file type.
    let kept: Kept | undefined;
    try {
      const stat = await fs.stat(real);
      if (!stat.isFile()) throw notAFile(relative, stat, 'written');
      kept = { mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
    } catch (err) {
      if (err instanceof NotesError) throw err;
      if (errnoCode(err) !== 'ENOENT') mapFsError(err, relative);
    }
    const bytes = this.checkWritable(relative, content);
    const leads = this.guard.toRelative(real);
    if (leads !== relative) this.checkWritable(leads, content);
    const existed = kept !== undefined;
    // Renaming over a file needs only the folder to be writable: a read-only note, or another user's, would be
    // replaced. Its own permission decides, as for an editor writing the file itself.
    if (existed && !opts.exclusive) await this.checkOwnWritePermission(real, relative);
    if (existed && opts.exclusive) throw new NotesError('ALREADY_EXISTS', `"${relative}" already exists.`, { path: relative });
    let created: string[] = [];
    try {
      created = await makeFolders(path.dirname(real));
      await removeStaleTemps(path.dirname(real));
      if (opts.exclusive) await createExclusive(real, relative, content, opts.stop);
      else if (!(await replaceAtomic(real, content, kept, opts.stop, opts.version))) return undefined;
    } catch (err) {
      // A failed write leaves no empty folders made for it behind.
      await removeFolders(created);
      if (err instanceof NotesError) throw err;
      mapFsError(err, relative);
    }
    return { path: relative, bytes, created: !existed };
  }

  /** Refuses a file this process may not write itself, whatever its folder allows. */
  private async checkOwnWritePermission(file: string, relative: string): Promise<void> {
    try {
      await fs.access(file, fsConstants.W_OK);
    } catch (err) {
      if (errnoCode(err) === 'EROFS') throw readOnlyFileSystem(relative);
      if (errnoCode(err) === 'EACCES' || errnoCode(err) === 'EPERM') {
        throw new NotesError('ACCESS_DENIED', `"${relative}" is read-only: permission denied by the file system. Nothing was changed.`, { path: relative });
      }
      if (errnoCode(err) === 'ENOENT') throw notFound(relative);
      mapFsError(err, relative);
    }
  }

  /**
   * Deletes a file (never a folder); a symbolic link is removed itself, not what it leads to. `signal`: as for
   * write().
   */
  async delete(userPath: string, opts: { signal?: AbortSignal } = {}): Promise<{ path: string; size: number }> {
    const guarded = await this.resolveFile(userPath);
    const { relative } = guarded;
    this.checkNotExcluded(relative);
    const entry = await this.guard.entryOf(guarded, userPath);
    this.checkTargetNotExcluded(relative, entry);
    return oneAtATime(guarded.real, async () => {
      const stat = await statOrNotFound(fs.lstat, entry, relative);
      if (stat.isDirectory()) {
        throw new NotesError('NOT_A_FILE', `"${relative || '.'}" is a folder; delete_file removes files only.`, { path: relative });
      }
      // A named pipe, socket or device is no note to delete, as it is none to read or write. (A symbolic link is
      // removed itself, whatever it leads to.)
      if (!stat.isFile() && !stat.isSymbolicLink()) throw notAFile(relative, stat, 'deleted');
      // Removing a name needs only its folder to be writable; a note the server may not write (read-only, or another
      // user's) is no more its to delete than to replace (see writeTo). A link's own permissions mean nothing.
      if (stat.isFile()) await this.checkOwnWritePermission(entry, relative);
      // Checked and removed in one step (see StopCheck).
      stopCheck(opts.signal, relative)();
      try {
        unlinkSync(entry);
      } catch (err) {
        mapFsError(err, relative);
      }
      return { path: relative, size: stat.size };
    });
  }

  async stat(userPath: string) {
    const { absolute, relative } = await this.resolveFile(userPath);
    return { path: relative, absolute, stat: await this.statFile(absolute, relative) };
  }
}
