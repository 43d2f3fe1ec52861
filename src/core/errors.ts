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
