// Where the discovery files of a workspace's editor bridges live (shared by the extension and the server).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readNoWaitFlags } from '../read-flags';
import { isInside } from '../workspace/path-guard';

export function discoveryDir(configDir: string): string {
  return path.join(configDir, 'bridges');
}

/** The folder path is resolved and, on case-insensitive platforms, lower-cased before hashing. */
export function discoveryKey(workspaceFolder: string, platform = process.platform): string {
  let key = path.resolve(workspaceFolder);
  if (platform === 'win32' || platform === 'darwin') key = key.toLowerCase();
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/**
 * One file per window and folder: `bridges/<hash of the folder>.<pid of the extension host>.json`. Two windows on
 * the same folder each keep their own, so closing one leaves the other reachable.
 */
export function discoveryFilePath(configDir: string, workspaceFolder: string, pid = process.pid, platform = process.platform): string {
  return path.join(discoveryDir(configDir), `${discoveryKey(workspaceFolder, platform)}.${pid}.json`);
}

/**
 * What a name in `bridges/` says when it is a discovery file of `workspaceFolder` (or the temporary file of one
 * being written): the pid of the window that wrote it. Undefined for any other name. The one spelling of the name
 * rule of discoveryFilePath, for readers and for the writer's clean-up.
 */
export function parseDiscoveryFileName(
  name: string,
  workspaceFolder: string,
  platform = process.platform,
): { pid: number; temporary: boolean } | undefined {
  const prefix = `${discoveryKey(workspaceFolder, platform)}.`;
  const rest = name.startsWith(prefix) ? /^(\d+)\.json(\.tmp)?$/.exec(name.slice(prefix.length)) : null;
  return rest ? { pid: Number(rest[1]), temporary: rest[2] !== undefined } : undefined;
}

/** The names in `bridges/` that are discovery files of `workspaceFolder`, whatever window wrote them. */
export function discoveryFileNames(names: readonly string[], workspaceFolder: string, platform = process.platform): string[] {
  return names.filter((name) => parseDiscoveryFileName(name, workspaceFolder, platform)?.temporary === false);
}

/**
 * True when `root` is `folder` or inside it, compared as discoveryKey compares (letter case ignored on Windows and
 * macOS): the discovery file found for a workspace is never refused over a difference its name did not make.
 */
export function folderHolds(folder: string, root: string, platform = process.platform): boolean {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const norm = (x: string) => (platform === 'win32' || platform === 'darwin' ? p.resolve(x).toLowerCase() : p.resolve(x));
  return isInside(norm(folder), norm(root), p);
}

/**
 * False when no process has this pid on this machine (a window that crashed without removing its file), and for a
 * number that is no process id at all (0 would signal this process's group; past 2^31 - 1, Node refuses it).
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid < 1 || pid > 2 ** 31 - 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A discovery file is about 200 bytes; a reader takes none larger. */
export const MAX_DISCOVERY_FILE_BYTES = 64 * 1024;

/**
 * A discovery file's text, or why it is not taken: only a regular file (a named pipe would block the reader, a
 * device never end), of at most MAX_DISCOVERY_FILE_BYTES, and where the platform has owners, one that this user
 * owns and no one else can write, as the extension writes it (0600): a file another user planted in a shared
 * folder does not name the window to give the token to.
 */
export function readDiscoveryFile(file: string, uid = process.getuid?.()): { text: string } | { refused: string } {
  const fd = fs.openSync(file, readNoWaitFlags(fs.constants));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { refused: 'not a regular file' };
    if (stat.size > MAX_DISCOVERY_FILE_BYTES) return { refused: `${stat.size} bytes, over ${MAX_DISCOVERY_FILE_BYTES}` };
    if (uid !== undefined && stat.uid !== uid) return { refused: `owned by user ${stat.uid}, not by this user (${uid})` };
    if (uid !== undefined && (stat.mode & 0o022) !== 0) return { refused: `writable by others (mode ${(stat.mode & 0o777).toString(8)})` };
    const buffer = Buffer.alloc(stat.size);
    const read = fs.readSync(fd, buffer, 0, stat.size, 0);
    return { text: buffer.toString('utf8', 0, read) };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Why the files of the discovery folder `dir` are not to be trusted, or undefined: where the platform has owners, the
 * folder must be this user's and writable by no one else, as the extension makes it (0700). In a folder another user
 * can write, the files could be renamed (a window's file passed off as another folder's) or removed. `fixable`: the
 * folder is this user's, so the extension can make it private again.
 */
export function discoveryDirProblem(dir: string, uid = process.getuid?.()): { why: string; fixable: boolean } | undefined {
  if (uid === undefined) return undefined;
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) return { why: 'not a folder', fixable: false };
  if (stat.uid !== uid) return { why: `owned by user ${stat.uid}, not by this user (${uid})`, fixable: false };
  if ((stat.mode & 0o022) !== 0) return { why: `writable by others (mode ${(stat.mode & 0o777).toString(8)})`, fixable: true };
  return undefined;
}

/**
 * The longest Unix socket path, in bytes (sun_path less its closing NUL: 108 on Linux, 104 on macOS and the BSDs).
 * Node cuts a longer one short without a word, so the socket would be made, or looked for, somewhere else.
 */
export function socketPathMax(platform = process.platform): number {
  return platform === 'linux' ? 107 : 103;
}

/**
 * Why a server does not connect to `address`, or undefined: on Windows only a pipe of this machine (`\\.\pipe\…`;
 * `\\host\pipe\…` would reach another computer with the token), elsewhere no socket path longer than the platform
 * takes (Node would cut it short and connect to whatever is at the shorter path).
 */
export function bridgeAddressProblem(address: string, platform = process.platform): string | undefined {
  if (platform === 'win32') return /^\\\\[.?]\\pipe\\/i.test(address) ? undefined : 'is not a named pipe of this computer (\\\\.\\pipe\\…)';
  if (Buffer.byteLength(address) > socketPathMax(platform)) return `is longer than the ${socketPathMax(platform)} bytes a socket path may have`;
  return undefined;
}
