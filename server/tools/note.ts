// Note tools: create_note, get_note_metadata, update_note_metadata.
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { NotesError, isNotesError } from '../../src/core/errors';
import { updateFrontmatter } from '../../src/core/notes/frontmatter';
import { noteMetadata, type NoteMetadata } from '../../src/core/notes/metadata';
import { fileNameForTitle, oneLineTitle, renderTemplate } from '../../src/core/notes/templates';
import { isNoteFile } from '../../src/core/workspace/file-types';
import type { NotesContext } from './context';
import { defineTool } from './define-tool';
import { noteMetadataShape } from './note-schemas';

const notePath = z.string().min(1).describe('Path of the note, relative to the workspace root or absolute inside it.');

export async function readNoteMetadata(ctx: NotesContext, userPath: string, signal?: AbortSignal): Promise<{ metadata: NoteMetadata; text: string }> {
  const files = await ctx.files();
  const { path: relative, text } = await files.readText(userPath);
  const { stat } = await files.stat(relative);
  const [analysis, resolver] = await Promise.all([ctx.analyser.metadata(text, signal), ctx.linkResolver()]);
  return { metadata: noteMetadata({ path: relative, analysis, stat, resolver }), text };
}

/** The create_note calls of each folder, one after another: the tail of each folder's queue. */
const createQueues = new Map<string, Promise<unknown>>();

function inTurn<T>(folder: string, run: () => Promise<T>): Promise<T> {
  // The tail never rejects (see below): each call runs after the one before, whatever that one's outcome.
  const turn = (createQueues.get(folder) ?? Promise.resolve()).then(run);
  const tail = turn.catch(() => undefined);
  createQueues.set(folder, tail);
  void tail.then(() => {
    if (createQueues.get(folder) === tail) createQueues.delete(folder);
  });
  return turn;
}

export function registerNoteTools(ctx: NotesContext): void {
  defineTool(ctx, {
    name: 'create_note',
    category: 'fileOperations',
    title: 'Create note',
    description: `Create a new note from a title. The file name is the title made safe for Windows, macOS and Linux, with extension ${ctx.config.files.fileExtension} (files.fileExtension). Without content, the note starts from files.defaultNewFileTemplate ({title}, {date}, {time}, {datetime}). Never overwrites: when the name is taken, " 2", " 3", ... is appended. Returns the path it chose.`,
    input: {
      title: z.string().regex(/\S/, 'The title must hold a character other than white space.').describe('Title of the note; also its file name.'),
      content: z.string().optional().describe('Full text of the note; default: the new-note template.'),
      folder: z.string().optional().describe('Workspace-relative folder to create the note in (created if missing); default: the workspace root.'),
    },
    output: {
      success: z.literal(true),
      path: z.string().describe('Workspace-relative path of the created note.'),
      title: z.string(),
      bytes: z.number(),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: async ({ title, content, folder }, extra) => {
      const files = await ctx.files();
      const guard = await ctx.guard();
      const target = folder ? await guard.resolve(folder) : { relative: '', absolute: guard.realRoot };
      const base = target.relative;
      const name = fileNameForTitle(title);
      const text = content ?? renderTemplate(ctx.config.files.defaultNewFileTemplate, { title: oneLineTitle(title) });
      // One call at a time per folder chooses and creates: `Plan` and `plan` sent together would each find both names
      // free, and the exclusive create tells names apart by case where the file system does.
      return inTurn(target.absolute, async () => {
        // Names differing only in case collide on Windows and macOS: treat them as taken so the folder stays portable.
        const taken = new Set((await fs.readdir(target.absolute).catch(() => [] as string[])).map((n) => n.toLowerCase()));
        for (let n = 1; n < 1000; n++) {
          const fileName = `${n === 1 ? name : `${name} ${n}`}${ctx.config.files.fileExtension}`;
          if (taken.has(fileName.toLowerCase())) continue;
          const candidate = path.posix.join(base, fileName);
          try {
            const result = await files.write(candidate, text, { exclusive: true, signal: extra.signal });
            ctx.notesChanged();
            return { structured: { success: true as const, path: result.path, title: oneLineTitle(title), bytes: result.bytes } };
          } catch (err) {
            if (!isNotesError(err, 'ALREADY_EXISTS')) throw err;
          }
        }
        throw new NotesError('ALREADY_EXISTS', `No free file name for "${title}" in ${base || 'the workspace root'}.`);
      });
    },
  });

  defineTool(ctx, {
    name: 'get_note_metadata',
    category: 'fileOperations',
    title: 'Get note metadata',
    description:
      "Return a note's metadata: title, YAML frontmatter, tags (frontmatter and inline #tags), outgoing links (markdown links and [[wikilinks]] with |alias and #heading, each resolved to a workspace path), headings, word count, created/modified times and size.",
    input: { path: notePath },
    output: noteMetadataShape,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: async ({ path: p }, extra) => ({ structured: (await readNoteMetadata(ctx, p, extra.signal)).metadata }),
  });

  defineTool(ctx, {
    name: 'update_note_metadata',
    category: 'fileOperations',
    title: 'Update note metadata',
    description:
      "Merge keys into a note's YAML frontmatter: given keys are set (replacing old values), keys set to null are removed, other keys are kept. The note's body is left byte for byte. A note without frontmatter gets one.",
    input: {
      path: notePath,
      // A key "__proto__" would be dropped on the way (an object cannot hold it as a key): refused, not lost.
      metadata: z
        .preprocess((value, check) => {
          if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
            check.addIssue({ code: 'custom', message: 'The frontmatter key "__proto__" cannot be set or removed by this tool; edit the note instead.' });
          }
          return value;
        }, z.record(z.string(), z.unknown()))
        .describe('Frontmatter keys to set; a null value removes the key.'),
    },
    output: {
      success: z.literal(true),
      path: z.string(),
      frontmatter: z.record(z.string(), z.unknown()).describe('The frontmatter after the update.'),
    },
    // Destructive: given keys replace their old values, and keys set to null are removed.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async ({ path: p, metadata }, extra) => {
      const files = await ctx.files();
      // Read, merged and written with no other write of this server to the note in between: updates sent
      // together each keep their keys.
      const { path: relative, result: frontmatter } = await files.update(p, (text, relative) => {
        if (!isNoteFile(relative, ctx.config.files.fileExtension)) {
          throw new NotesError('UNSUPPORTED_FILE_TYPE', `"${relative}" is not a note; frontmatter can only be added to markdown notes.`);
        }
        const updated = updateFrontmatter(text, metadata);
        return { text: updated.text, result: updated.data };
      }, { signal: extra.signal });
      return { structured: { success: true as const, path: relative, frontmatter } };
    },
  });
}
