// Frontmatter of a note: parsed with gray-matter, merged and rewritten without touching the body.
import { isDeepStrictEqual } from 'node:util';
import matter from 'gray-matter';
import yaml from 'js-yaml';
import { NotesError } from '../errors';

/** Matches a leading YAML frontmatter block, including the newline after the closing delimiter; group 1 is its YAML. */
const FRONTMATTER_BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;

export interface SplitNote {
  /** Parsed frontmatter (empty when the note has none). */
  data: Record<string, unknown>;
  /** Everything after the frontmatter block, byte for byte. */
  body: string;
  /** Number of lines the frontmatter block occupies (0 when none); body line N is file line N + this. */
  bodyLineOffset: number;
  /** Why the frontmatter block could not be parsed (then `data` is empty); readers go on with the body. */
  frontmatterError?: string;
  /** A `title` YAML reads as a number or a boolean (`title: 1.10`), as written: `1.10`, not the number's `1.1`. */
  titleText?: string;
}

/**
 * How frontmatter YAML is read and written: YAML 1.2's core schema (strings, numbers, booleans, null, lists and
 * mappings), as js-yaml 4 implements it. Not YAML 1.1's rules, which gray-matter's own js-yaml 3 keeps even in its
 * core schema: `time: 10:30` read as the number 630 (base 60) and `zip: 01234` as 668 (octal), and a note written
 * anew carried those numbers. Without timestamps: js-yaml's default schema turned `2024-02-30` into the date
 * 2024-03-01 and wrote `2024-01-15` back as `2024-01-15T00:00:00.000Z`; a date is the text written. Writing quotes
 * a string that a YAML 1.1 reader would take for something else (`'10:30'`, `'yes'`), so other tools read it as
 * this one does.
 */
function yamlOptions(): yaml.LoadOptions & yaml.DumpOptions {
  // Read when first needed: reading a property of js-yaml loads the package, which the server's start does not need.
  return { schema: yaml.CORE_SCHEMA };
}

/**
 * YAML 1.1's numbers, which js-yaml 4's writer does not know to quote: digits with `_` (`1_000`, `+12_000`,
 * `685_230.15`, `0x_1F`), binary (`0b101`) and base 60 with seconds (`1:20:30`). gray-matter's js-yaml 3 and other
 * YAML 1.1 tools read them as numbers.
 */
const YAML11_NUMBER =
  /^(?:[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+|[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

let dumpSchema: yaml.Schema | undefined;

/**
 * The schema values are written with: the reading's, and a type that represents nothing but makes the writer quote
 * a string a YAML 1.1 reader would take for a number (it quotes what any implicit type of its schema resolves).
 */
function dumpOptions(): yaml.DumpOptions {
  dumpSchema ??= yaml.CORE_SCHEMA.extend({
    implicit: [
      new yaml.Type('tag:notesapp,2026:yaml11-number', {
        kind: 'scalar',
        resolve: (text: string | null) => text !== null && text !== '.' && YAML11_NUMBER.test(text),
        construct: (text: string) => text,
        predicate: () => false,
      }),
    ],
  });
  return { schema: dumpSchema };
}

/** gray-matter's options: its YAML engine replaced by the reading above (options also turn its cache off). */
function matterOptions(): object {
  return { engines: { yaml: (text: string) => yaml.load(text, yamlOptions()) } };
}

/** Results must be plain JSON (a Date, should one ever come, reads as its ISO text, or YYYY-MM-DD without a time). */
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

/** The YAML of a frontmatter block as it reads: a mapping, or whatever else it holds (a string, a list). */
function parseYamlValue(block: string): unknown {
  let data: unknown;
  try {
    // Passing options also disables gray-matter's cache, whose shared objects must not be mutated.
    data = matter(block.replace(/^\uFEFF/, ''), matterOptions()).data;
  } catch (err) {
    throw new NotesError('INVALID_ARGUMENT', `The note's frontmatter is not valid YAML: ${(err as Error).message}`);
  }
  // Aliases share one value; read out (as JSON, as every answer does) each use is a copy. Nine levels of nine
  // aliases in 337 bytes are 9^9 values: reading them out would hold the server for a minute and then fail.
  const budget = block.length + 10_000;
  if (valuesReadOut(data, budget) > budget) {
    throw new NotesError('INVALID_ARGUMENT', `The note's frontmatter is not valid YAML here: its aliases (*name) repeat values more than ${budget} times.`);
  }
  return data;
}

/** How many values `data` holds read out with every alias copied, counting no further than just past `limit`. */
function valuesReadOut(data: unknown, limit: number): number {
  let count = 0;
  const stack: unknown[] = [data];
  while (stack.length > 0 && count <= limit) {
    const value = stack.pop();
    count++;
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
      for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
    }
  }
  return count;
}

function isMapping(data: unknown): data is Record<string, unknown> {
  return data !== null && typeof data === 'object' && !Array.isArray(data);
}

/**
 * Whether a `---` block that is not valid YAML was meant as frontmatter: its first line that is not blank or a
 * comment is a `key:` entry (`title: [unclosed`) or opens a flow mapping (`{a: 1`). Otherwise (`- [ ] a task`, a
 * sentence) it is a note opening with a `---` rule, read as the body as a markdown viewer shows it.
 */
function meantAsKeys(block: string): boolean {
  const inner = block.replace(/^\uFEFF?---[^\n]*\n/, '');
  const first = inner.split('\n').find((line) => !/^[ \t]*(#.*)?\r?$/.test(line)) ?? '';
  return /^\{/.test(first) || /^(?:"[^"]*"|'[^']*'|[^\s#\-?:,[\]{}&*!|>'"%@`][^\n]*?)[ \t]*:(?:[ \t]|\r?$)/.test(first) || /^\?[ \t]/.test(first);
}

/**
 * The frontmatter block of a note whose lines end in CR alone (classic Mac OS), read as if they ended in LF: the
 * same length, so the body starts at the same place. Null for any other note.
 */
function crOnlyBlock(text: string): RegExpExecArray | null {
  if (!/^\uFEFF?---[ \t]*\r(?!\n)/.test(text)) return null;
  return FRONTMATTER_BLOCK.exec(text.replace(/\r(?!\n)/g, '\n'));
}

/**
 * Splits a note into frontmatter and body; a byte-order mark belongs to neither. Broken YAML never fails a reader:
 * it gets `frontmatterError`, and the block is still not body. A `---` block that reads as something other than
 * keys (a note opening with a `---` rule, a paragraph, and another rule) is not frontmatter but the body's start,
 * as a markdown viewer shows it; update_note_metadata refuses to write keys over it.
 */
export function splitNote(text: string): SplitNote {
  const whole = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const block = FRONTMATTER_BLOCK.exec(text) ?? crOnlyBlock(text);
  if (!block) return { data: {}, body: whole, bodyLineOffset: 0 };
  const lines = block[0].split('\n').length - (block[0].endsWith('\n') ? 1 : 0);
  const split = { body: text.slice(block[0].length), bodyLineOffset: lines };
  let data: unknown;
  try {
    data = parseYamlValue(block[0]);
  } catch (err) {
    if (!meantAsKeys(block[0])) return { data: {}, body: whole, bodyLineOffset: 0 };
    return { data: {}, ...split, frontmatterError: (err as Error).message };
  }
  if (data !== null && data !== undefined && !isMapping(data)) return { data: {}, body: whole, bodyLineOffset: 0 };
  const titleText = isMapping(data) && (typeof data.title === 'number' || typeof data.title === 'boolean') ? writtenTitle(block[1] ?? '') : undefined;
  return { data: jsonSafe(isMapping(data) ? data : {}) as Record<string, unknown>, ...split, ...(titleText ? { titleText } : {}) };
}

/** The text of the last top-level `title:` entry whose value is one plain word (a number or a boolean is). */
function writtenTitle(inner: string): string | undefined {
  let found: string | undefined;
  for (const match of inner.matchAll(/^title[ \t]*:[ \t]+([^\s#'"][^\s#]*)[ \t]*(?:#.*)?\r?$/gm)) found = match[1];
  return found;
}

/** One top-level `key: value` entry of a block mapping, as written (its lines, comments and line ends). */
interface Entry {
  key: string;
  raw: string;
}

/**
 * Splits YAML text into its top-level entries, or undefined when it is not a plain block mapping (flow mapping,
 * top-level list, an entry that does not parse alone) and so cannot be edited entry by entry.
 */
function topLevelEntries(yaml: string): { preamble: string; entries: Entry[] } | undefined {
  const lines = yaml.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let preamble = '';
  const raws: string[] = [];
  for (const line of lines) {
    // A new entry starts at column 0; indented, blank and comment lines continue the one before.
    if (/^[^\s#]/.test(line)) raws.push(line);
    else if (raws.length === 0) preamble += line;
    else raws[raws.length - 1] += line;
  }
  const entries: Entry[] = [];
  for (const raw of raws) {
    if (/^(-|\{|\[|---|\.\.\.)/.test(raw)) return undefined;
    let parsed: unknown;
    try {
      parsed = loadYaml(raw);
    } catch {
      return undefined;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || Object.keys(parsed).length !== 1) return undefined;
    entries.push({ key: Object.keys(parsed)[0], raw });
  }
  return { preamble, entries };
}

/** True when `yaml` (a frontmatter block's inside) reads as `data`, as splitNote would report it. */
function readsAs(yaml: string, data: Record<string, unknown>): boolean {
  try {
    return isDeepStrictEqual(jsonSafe(loadYaml(yaml) ?? {}), data);
  } catch {
    return false;
  }
}

function loadYaml(text: string): unknown {
  return matter(`---\n${text.replace(/\r?\n?$/, '\n')}---\n`, matterOptions()).data;
}

/** `data` as YAML in the schema it is read with (see yamlOptions): a string such as `2024-01-15` stays plain. */
function dumpYaml(data: object): string {
  return yaml.dump(data, dumpOptions());
}

/**
 * A one-line string as a YAML scalar in the schema frontmatter is read with, quoted as dumpYaml quotes it (when it
 * would read as something else, here or in a YAML 1.1 reader): for templates filling a frontmatter value.
 */
export function yamlScalar(text: string): string {
  return yaml.dump(text, { ...dumpOptions(), lineWidth: -1 }).replace(/\n$/, '');
}

/** `key: value` as YAML ending in `eol`. */
function dumpEntry(key: string, value: unknown, eol: string): string {
  let yaml = dumpYaml({ [key]: value });
  // js-yaml writes a string ending in blank lines as a `|+` block scalar, which keeps its line breaks only when
  // something follows it: the frontmatter block's end takes the last one. Written double-quoted, it reads back.
  if (typeof value === 'string' && value.endsWith('\n\n')) {
    const head = dumpYaml({ [key]: null });
    if (head.endsWith(': null\n')) yaml = `${head.slice(0, -'null\n'.length)}${JSON.stringify(value)}\n`;
  }
  return yaml.replace(/\r?\n/g, eol);
}

/**
 * An entry's lines split in two: its own (the key, its value, comments inside the value) and the blank lines and
 * comments at column 0 after them, which introduce what follows (`# Planning` above the next keys) and so stay when
 * the entry is replaced or removed.
 */
function splitTrailing(raw: string, blankLines = true): { own: string; trailing: string } {
  const lines = raw.match(/[^\n]*\n|[^\n]+$/g) ?? [raw];
  let k = lines.length;
  const blank = (line: string) => /^[ \t]*\r?\n?$/.test(line);
  while (k > 1 && (lines[k - 1].startsWith('#') || blank(lines[k - 1]))) k--;
  const trailing = lines.slice(k);
  return { own: lines.slice(0, k).join(''), trailing: (blankLines ? trailing : trailing.filter((line) => !blank(line))).join('') };
}

/**
 * The comment at the end of a one-line entry (` # the reason`), found as the earliest ` #` that the entry reads the
 * same without (a `#` inside quotes is not one); empty when there is none.
 */
function inlineComment(own: string): string {
  const line = own.replace(/\r?\n$/, '');
  if (line.includes('\n')) return '';
  let whole: unknown;
  try {
    whole = JSON.stringify(loadYaml(line));
  } catch {
    return '';
  }
  for (let at = line.search(/[ \t]#/); at !== -1; ) {
    try {
      if (JSON.stringify(loadYaml(line.slice(0, at))) === whole) return line.slice(at);
    } catch {
      // cut inside a quoted value: not a comment
    }
    const next = line.slice(at + 1).search(/[ \t]#/);
    at = next === -1 ? -1 : at + 1 + next;
  }
  return '';
}

/** Entry `raw` given `value`: the new `key: value`, with the old one-line entry's comment and the lines after it. */
function replaceEntry(raw: string, key: string, value: unknown, eol: string, blankLines: boolean): string {
  const { own, trailing } = splitTrailing(raw, blankLines);
  let entry = dumpEntry(key, value, eol);
  const comment = inlineComment(own);
  const oneLine = entry.endsWith(eol) && !entry.slice(0, -eol.length).includes('\n');
  if (comment && oneLine) entry = entry.slice(0, -eol.length) + comment + eol;
  return entry + trailing;
}

/**
 * Merges `patch` into the frontmatter: keys set to null are removed, others replaced. Untouched entries stay as
 * written (dates, quoting, emoji, comments); a replaced one-line entry keeps its comment, and the comments and blank
 * lines after a replaced or removed entry stay (see splitTrailing). A frontmatter that cannot be edited entry by
 * entry is written anew, or refused when that would lose comments. A byte-order mark stays, line ends follow the
 * frontmatter block's own, and the body after the block stays byte for byte. With no keys left the frontmatter
 * block is dropped, unless comments are left in it.
 */
export function updateFrontmatter(text: string, patch: Record<string, unknown>): { text: string; data: Record<string, unknown> } {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const block = FRONTMATTER_BLOCK.exec(text);
  if (!block && crOnlyBlock(text)) {
    // Read, but not edited in place: a second block written before it would leave its keys where they were.
    throw new NotesError(
      'INVALID_ARGUMENT',
      "The note's lines end in CR alone (classic Mac OS), which its frontmatter cannot be edited in: save it with LF or CRLF line ends (VS Code's status bar) and try again. Nothing was changed.",
    );
  }
  const body = block ? text.slice(block[0].length) : text.slice(bom.length);
  // Broken YAML is refused here only (parseYamlValue throws): rewriting it would lose what the user wrote. So is
  // a block that reads as something other than keys (`title - x`, a list, a note opening with a `---` rule and a
  // paragraph before the next one): there is no key to keep, and writing keys over it would lose that text.
  const notKeys = (what: string) =>
    new NotesError(
      'INVALID_ARGUMENT',
      `The note begins with a \`---\` block that is not a list of \`key: value\` entries (it reads as ${what}), so it has no frontmatter keys to merge with; writing keys over it would lose that text. Nothing was changed; fix the block in the editor.`,
    );
  let existing: unknown;
  try {
    existing = block ? parseYamlValue(block[0]) : null;
  } catch (err) {
    if (block && !meantAsKeys(block[0])) throw notKeys('markdown, not YAML');
    throw err;
  }
  if (existing !== null && existing !== undefined && !isMapping(existing)) throw notKeys(Array.isArray(existing) ? 'a list' : `a ${typeof existing}`);
  // No prototype: a key such as __proto__ or constructor is a key like any other.
  const merged: Record<string, unknown> = Object.assign(Object.create(null), existing ?? {});
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const data = jsonSafe(merged) as Record<string, unknown>;
  const eol = block ? (block[0].includes('\r\n') ? '\r\n' : '\n') : /\r\n/.test(body) ? '\r\n' : '\n';
  const inner = block?.[1] ?? '';
  const parts = topLevelEntries(inner);
  // Entry by entry, changing only the keys patched; then the same without the blank lines after them (a block
  // scalar kept with its trailing line breaks, `|+`, takes the blank lines after it as its own). Each is read back,
  // and one that does not give the merged values is not written.
  const byEntry = (blankLines: boolean): string => {
    if (!parts) return '';
    const written = new Set(parts.entries.map((e) => e.key));
    const entry = (e: Entry): string => {
      // A key not patched, or patched with the value it has (`tags: [a, b] # why`), stays as written.
      if (!Object.hasOwn(patch, e.key) || (patch[e.key] !== null && Object.hasOwn(data, e.key) && isDeepStrictEqual(jsonSafe((existing as Record<string, unknown>)[e.key]), data[e.key]))) {
        return e.raw.endsWith('\n') ? e.raw : e.raw + eol;
      }
      // Removed: only the lines after it stay.
      if (patch[e.key] === null) return splitTrailing(e.raw, blankLines).trailing;
      return replaceEntry(e.raw, e.key, patch[e.key], eol, blankLines);
    };
    const added = Object.entries(patch).filter(([k, v]) => v !== null && !written.has(k));
    return parts.preamble + parts.entries.map(entry).join('') + added.map(([k, v]) => dumpEntry(k, v, eol)).join('');
  };
  let yaml = parts ? [true, false].map(byEntry).find((candidate) => readsAs(candidate, data)) : undefined;
  if (yaml === undefined) {
    // Written anew from the merged values, which would lose its comments.
    if (/(^|[ \t])#/m.test(inner)) {
      throw new NotesError(
        'INVALID_ARGUMENT',
        "The note's frontmatter cannot be updated key by key (it is not a plain list of `key: value` entries — a flow mapping, anchors used across keys, complex keys — or changing one key would change another's value), and writing it anew would lose any comments in it (it holds a `#` that may start one). Edit it in the editor instead.",
      );
    }
    yaml = Object.entries(merged)
      .map(([k, v]) => dumpEntry(k, v, eol))
      .join('');
    if (!readsAs(yaml, data)) throw new NotesError('INVALID_ARGUMENT', 'These metadata values cannot be written as YAML that reads back the same; nothing was changed.');
  }
  // With no keys left the block goes, unless comments are left in it.
  if (Object.keys(merged).length === 0 && !/^[ \t]*#/m.test(yaml)) {
    // A body that opens with `---` keeps an empty block before it, or its rules would be read as frontmatter. The
    // block holds a blank line: `---` right after `---` would be read as the first line of a block that goes on.
    if (body.startsWith('---')) return { text: `${bom}---${eol}${eol}---${eol}${body}`, data: {} };
    return { text: bom + body, data: {} };
  }
  // A note that ends at its frontmatter's closing `---` still ends there.
  const close = block && body === '' && !block[0].endsWith('\n') ? '' : eol;
  return { text: `${bom}---${eol}${yaml}---${close}${body}`, data };
}
