// Domain errors carry a code so that the server and the extension can map them in one place.
export type NotesErrorCode =
  | 'ACCESS_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'INVALID_ARGUMENT'
  | 'FILE_TOO_LARGE'
  | 'UNSUPPORTED_FILE_TYPE'
  | 'NOT_A_FILE'
  | 'NO_EDITOR'
  | 'CONFIG_INVALID'
  | 'FILE_SYSTEM'
  | 'INTERNAL';

export class NotesError extends Error {
  constructor(
    readonly code: NotesErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'NotesError';
  }
}

export function isNotesError(err: unknown, code?: NotesErrorCode): err is NotesError {
  return err instanceof NotesError && (code === undefined || err.code === code);
}

/**
 * `text` as an error message quotes it: whole when at most `max` characters, else its first `max` (not cutting a
 * character in two) and `…`. A model can send a query or a path of megabytes; the message need not repeat it.
 */
export function quotedText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
