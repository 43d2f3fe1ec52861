// The early listing kept between starts. The first text worker writes the listing it made into the cache folder
// (one file per workspace, readable by its owner alone), and the next start's worker stats that listing's folders
// instead of reading them: a folder whose stat is unchanged holds the same entries (see KeptListing). On a
// workspace of 50 000 notes in 2 185 folders that is 2 185 stats instead of 2 185 stats and reads.
//
// A folder's times tell its entries unchanged only on file systems that keep them as the kernel's local file
// systems do; network and FUSE file systems may not (their times can come late, from a cache, or never), and FAT
// renumbers inodes at each mount. So a listing is kept and used only on Linux, for a workspace on one of the local
// file systems named below (by the type statfs gives), and a folder on another device than the workspace folder
// (a mount inside it) is always read.
//
// Self-contained functions: the worker runs their source (see worker-boot.ts).
import type fsModule from 'node:fs';
import type { KeptListing, Prelisting } from './prelist';

/** Changed whenever this format, or what the early listing leaves out, changes: a listing kept by another is not used. */
export const KEPT_LISTING_VERSION = 1;

/** statfs types of the Linux file systems a listing is kept for. */
export const KEPT_LISTING_FILE_SYSTEMS: readonly number[] = [
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x794c7630, // overlayfs
];

/**
 * The file's text: a line of JSON (the version, the workspace's real path, its device, when the listing began, and
 * the length of each part that follows), then the folders' stats as a JSON array (null where a folder could not
 * be read), the folders joined by NUL, and the files joined by NUL. Lengths are in UTF-16 code units.
 */
export function keptListingText(listing: Pick<Prelisting, 'root' | 'started' | 'folders' | 'stats' | 'joined'>, dev: number, version: number): string {
  const stats = JSON.stringify(listing.stats);
  const folders = listing.folders.join('\0');
  const header = { v: version, root: listing.root, dev, started: listing.started, stats: stats.length, folders: folders.length, joined: listing.joined.length };
  return `${JSON.stringify(header)}\n${stats}${folders}${listing.joined}`;
}

/** The listing a kept file's text holds; undefined when it is of another version or does not hold together. */
export function parseKeptListing(text: string, version: number): KeptListing | undefined {
  try {
    const line = text.indexOf('\n');
    if (line < 0) return undefined;
    const h = JSON.parse(text.slice(0, line)) as Record<string, unknown>;
    const length = (value: unknown) => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : NaN);
    const [statsLength, foldersLength, joinedLength] = [length(h.stats), length(h.folders), length(h.joined)];
    if (h.v !== version || typeof h.root !== 'string' || typeof h.dev !== 'number' || typeof h.started !== 'number' || !Number.isFinite(h.started)) return undefined;
    if (line + 1 + statsLength + foldersLength + joinedLength !== text.length) return undefined;
    let at = line + 1;
    const stats = (JSON.parse(text.slice(at, (at += statsLength))) as unknown[]).map((value) => (value === null ? NaN : value));
    const folders = text.slice(at, (at += foldersLength)).split('\0');
    const joined = text.slice(at);
    if (!stats.every((value) => typeof value === 'number') || stats.length !== 3 * folders.length || folders[0] !== '') return undefined;
    return { root: h.root, dev: h.dev, started: h.started, folders, stats: stats as number[], joined };
  } catch {
    return undefined;
  }
}

/** True when the folder is on a file system a listing is kept for (see KEPT_LISTING_FILE_SYSTEMS). */
export function keptListingAllowed(fs: typeof fsModule, folder: string, fileSystems: readonly number[]): boolean {
  try {
    return fileSystems.includes(fs.statfsSync(folder).type);
  } catch {
    return false;
  }
}

/**
 * The listing kept in `file` for `root`, when there is one and the workspace's file system allows it. A file that
 * another user owns, or that others may write (a cache folder shared through NOTESAPP_CACHE_DIR), is not used: its
 * entries would be listed for every folder whose stat it names.
 */
export function readKeptListing(fs: typeof fsModule, file: string, root: string, fileSystems: readonly number[], version: number, parse: typeof parseKeptListing, allowed: typeof keptListingAllowed): KeptListing | undefined {
  if (!allowed(fs, root, fileSystems)) return undefined;
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) return undefined;
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined; // none yet, or unreadable
  }
  return parse(text, version);
}

/**
 * Keeps `listing` in `file` (written aside with mode 0600, then renamed), when it holds at least `minFiles` files
 * and its file system allows it. Resolves true once kept; false when not kept (a failure only costs speed).
 */
export async function keepListing(fs: typeof fsModule, file: string, listing: Prelisting, minFiles: number, fileSystems: readonly number[], version: number, text: typeof keptListingText, allowed: typeof keptListingAllowed): Promise<boolean> {
  let files = listing.joined === '' ? 0 : 1;
  for (let at = listing.joined.indexOf('\0'); at >= 0 && files < minFiles; at = listing.joined.indexOf('\0', at + 1)) files++;
  if (files < minFiles || !allowed(fs, listing.root, fileSystems)) return false;
  const tmp = `${file}.${process.pid}-${Date.now()}.tmp`;
  try {
    const dev = fs.statSync(listing.root).dev;
    await fs.promises.mkdir(file.slice(0, file.lastIndexOf('/')), { recursive: true, mode: 0o700 });
    await fs.promises.writeFile(tmp, text(listing, dev, version), { mode: 0o600 });
    await fs.promises.rename(tmp, file);
    return true;
  } catch {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    return false;
  }
}
