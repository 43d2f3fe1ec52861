// The text and note file types that may be created or written when security.validateFileTypes is on.
import path from 'node:path';

/** Lower-case extensions of notes and plain-text files; anything else (binaries, executables) is refused. */
export const TEXT_FILE_EXTENSIONS: readonly string[] = [
  '.md', '.markdown', '.mdown', '.mkd', '.mdx', '.txt', '.text', '.org', '.rst', '.adoc', '.tex',
  '.json', '.jsonc', '.yaml', '.yml', '.toml', '.csv', '.tsv', '.xml', '.html', '.htm', '.css', '.svg',
  '.canvas', '.excalidraw', '.log', '.ini', '.conf',
];

/** Extensions counted as notes (plus files.fileExtension). */
export const NOTE_EXTENSIONS: readonly string[] = ['.md', '.markdown', '.mdown', '.mkd', '.mdx'];

export function isAllowedTextFile(file: string, fileExtension: string): boolean {
  const ext = path.extname(file).toLowerCase();
  return ext !== '' && (TEXT_FILE_EXTENSIONS.includes(ext) || ext === fileExtension.toLowerCase());
}

/** The note extensions in force: NOTE_EXTENSIONS plus files.fileExtension, lower-case, each once. */
export function noteExtensions(fileExtension: string): string[] {
  return [...new Set([...NOTE_EXTENSIONS, fileExtension.toLowerCase()])];
}

/** The last files.fileExtension asked about and its note extensions (lists of thousands of files ask each time). */
let noteSet: { fileExtension: string; extensions: Set<string> } | undefined;

export function isNoteFile(file: string, fileExtension: string): boolean {
  if (noteSet?.fileExtension !== fileExtension) noteSet = { fileExtension, extensions: new Set(noteExtensions(fileExtension)) };
  return noteSet.extensions.has(path.extname(file).toLowerCase());
}

/**
 * The media type of a text file's content as the server hands it on (a note resource, a prompt's embedded note):
 * markdown for a note, plain text for any other text file (a .csv, a .txt), which is not markdown.
 */
export function textMimeType(file: string, fileExtension: string): 'text/markdown' | 'text/plain' {
  return isNoteFile(file, fileExtension) ? 'text/markdown' : 'text/plain';
}
