// The temporary files of crash-safe writes: the one definition of their names, for the writer that makes them and
// the listings that leave them out.
import { randomBytes } from 'node:crypto';

const PREFIX = '.notesapp-';
/** Random bytes in a name, written as twice as many hex digits. */
const RANDOM_BYTES = 6;
const SUFFIX = '.tmp';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAME = new RegExp(`^${escape(PREFIX)}[0-9a-f]{${2 * RANDOM_BYTES}}${escape(SUFFIX)}$`);
const NAME_LENGTH = PREFIX.length + 2 * RANDOM_BYTES + SUFFIX.length;

/**
 * A new temporary file name, `.notesapp-<12 hex>.tmp`: hidden (a leading dot), so one left behind by a crash stays
 * out of listings, and short whatever the target's name, so a name of up to 255 bytes can still be written.
 */
export function tempFileName(): string {
  return `${PREFIX}${randomBytes(RANDOM_BYTES).toString('hex')}${SUFFIX}`;
}

/** True for a name tempFileName() can give (a file left behind by a killed write, or one being written). */
export function isTempFileName(name: string): boolean {
  return name.length === NAME_LENGTH && NAME.test(name);
}
