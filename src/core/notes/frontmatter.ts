// Frontmatter of a note: parsed with gray-matter, merged and rewritten without touching the body.
import matter from 'gray-matter';
import { NotesError } from '../errors';

/** Matches a leading YAML frontmatter block, including the newline after the closing delimiter. */
const FRONTMATTER_BLOCK = /^\uFEFF?---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;

export interface SplitNote {
  /** Parsed frontmatter (empty when the note has none). */
  data: Record<string, unknown>;
  /** Everything after the frontmatter block, byte for byte. */
  body: string;
  /** Number of lines the frontmatter block occupies (0 when none); body line N is file line N + this. */
  bodyLineOffset: number;
  /** Why the frontmatter block could not be parsed (then `data` is empty); readers go on with the body. */
  frontmatterError?: string;
}

/** YAML dates become Date objects; results must be plain JSON. A date written without a time stays YYYY-MM-DD. */
function jsonSafe(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? {}, function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key];
      if (raw instanceof Date && !Number.isNaN(raw.getTime())) {
        const iso = raw.toISOString();
        return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
      }
      return v;
    }),
  );
}

function parseYaml(block: string): Record<string, unknown> {
  let data: unknown;
  try {
    // Passing options disables gray-matter's cache, whose shared objects must not be mutated.
    data = matter(block.replace(/^\uFEFF/, ''), {}).data;
  } catch (err) {
    throw new NotesError('INVALID_ARGUMENT', `The note's frontmatter is not valid YAML: ${(err as Error).message}`);
  }
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** Splits a note into frontmatter and body. Broken YAML never fails a reader: it gets `frontmatterError`. */
export function splitNote(text: string): SplitNote {
  const block = FRONTMATTER_BLOCK.exec(text);
  if (!block) return { data: {}, body: text, bodyLineOffset: 0 };
  const lines = block[0].split('\n').length - (block[0].endsWith('\n') ? 1 : 0);
  const split = { body: text.slice(block[0].length), bodyLineOffset: lines };
  try {
    return { data: jsonSafe(parseYaml(block[0])) as Record<string, unknown>, ...split };
  } catch (err) {
    return { data: {}, ...split, frontmatterError: (err as Error).message };
  }
}

/**
 * Merges `patch` into the frontmatter: keys set to null are removed, others replaced. The body after the
 * frontmatter block stays byte for byte. With no keys left the frontmatter block is dropped.
 */
export function updateFrontmatter(text: string, patch: Record<string, unknown>): { text: string; data: Record<string, unknown> } {
  const { body } = splitNote(text);
  const block = FRONTMATTER_BLOCK.exec(text);
  // Broken YAML is refused here only (parseYaml throws): rewriting it would lose what the user wrote.
  // Untouched keys keep their YAML types (a date stays a date) by merging into the raw parse, not the JSON view.
  const merged: Record<string, unknown> = block ? { ...parseYaml(block[0]) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length === 0) return { text: body, data: {} };
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  // stringify('') yields "---\n<yaml>---\n\n"; drop the trailing empty content line.
  let header = matter.stringify('', merged).replace(/\n$/, '');
  if (eol === '\r\n') header = header.replace(/\n/g, '\r\n');
  return { text: header + body, data: jsonSafe(merged) as Record<string, unknown> };
}
