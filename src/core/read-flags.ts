// How files are opened for reading.

/**
 * Read-only, without waiting: opening a named pipe for reading waits for a writer, which may never come; with
 * O_NONBLOCK (where the platform has it; it changes nothing for a regular file) the open returns at once, and the
 * caller refuses what is not a regular file. (The text workers' program, which imports nothing, spells it again.)
 */
export function readNoWaitFlags(constants: { O_RDONLY: number; O_NONBLOCK?: number }): number {
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
}
