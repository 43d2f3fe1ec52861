// New-note templates ({title}, {date}, {time}, {datetime}) and note titles turned into portable file names.
import { yamlScalar } from './frontmatter';
import { WINDOWS_RESERVED } from '../workspace/path-guard';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Fills the template variables of spec 2.1.5 using local time; {datetime} is ISO 8601 with the UTC offset. */
export function renderTemplate(template: string, vars: { title: string; now?: Date }): string {
  const now = vars.now ?? new Date();
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}`;
  const offsetMinutes = -now.getTimezoneOffset();
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const offset = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  const datetime = `${date}T${time}:${pad(now.getSeconds())}${offset}`;
  const values: Record<string, string> = { title: vars.title, date, time, datetime };
  const fill = (text: string) => text.replace(/\{(title|date|time|datetime)\}/g, (_, key: string) => values[key]);
  // In the template's frontmatter, a variable that is a whole value (`title: {title}`) is written as YAML reads it
  // back: quoted when the text alone would read otherwise (`Re: budget`, `#1 priority`, `true`, `10:30`).
  const block = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?\r?\n)?(---[ \t]*(?:\r?\n|$))/.exec(template);
  if (!block) return fill(template);
  // One pass: a title holding `{date}` is the title as given, not filled in again.
  const front = (block[2] ?? '').replace(
    /^([ \t]*(?:- |[^#\s\n][^\n]*?:[ \t]+))\{(title|date|time|datetime)\}[ \t]*$|\{(title|date|time|datetime)\}/gm,
    (_, head: string | undefined, whole: string | undefined, inline: string | undefined) => (head !== undefined ? head + yamlScalar(values[whole as string]) : values[inline as string]),
  );
  return block[1] + front + block[3] + fill(template.slice(block[0].length));
}

/**
 * A title on one line, as a heading and the template's `{title}` show it: runs of whitespace and control characters
 * (the ones the file name turns into `-`) become one space. A NUL kept in the note would make it a binary file, which
 * read_file and the note tools refuse.
 */
export function oneLineTitle(title: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  return title.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

/**
 * UTF-8 bytes of a name made from a title: file systems allow 255 per name, which leaves room for " 999" and the
 * extension (files.fileExtension).
 */
export const MAX_NAME_BYTES = 200;
/** Made on first use: the first segmenter a process creates loads ICU's break rules, about 30 ms here. */
let graphemes: Intl.Segmenter | undefined;

/** The longest prefix of `name` within `maxBytes` UTF-8 bytes that ends between two user-perceived characters. */
function cutToBytes(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  let out = '';
  let bytes = 0;
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  // Each UTF-16 unit is at least one UTF-8 byte, so nothing past unit maxBytes can end within maxBytes bytes: a
  // title of megabytes is not segmented whole (V8 takes time growing with its length at each step: 0.85 s for 1 MB).
  for (const { segment } of graphemes.segment(name.slice(0, maxBytes + 1))) {
    bytes += Buffer.byteLength(segment);
    if (bytes > maxBytes) break;
    out += segment;
  }
  return out;
}

/**
 * A file name (without extension) valid on Windows, macOS and Linux: characters <>:"/\|?* and control characters
 * become "-", runs of whitespace collapse, trailing dots and spaces go, the name is cut to MAX_NAME_BYTES (never
 * inside a character), and names Windows reserves for devices (con, COM1.notes, COM¹ ...) get a "_" prefix.
 * "Untitled" when nothing is left but what was replaced.
 */
export function fileNameForTitle(title: string): string {
  let name = title
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    // eslint-disable-next-line no-control-regex
    .replace(/[<>:"/\\|?*\u0000-\u001f\u007f]/g, '-')
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  name = cutToBytes(name, MAX_NAME_BYTES).replace(/[. ]+$/, '');
  // Nothing left, or only the dashes that stand for characters a file name cannot have ("???"): no name at all. A
  // title of dashes of its own ("-", "--") keeps them.
  if (name === '' || (/^[- ]+$/.test(name) && !title.includes('-'))) name = 'Untitled';
  // A prefix, because Windows reserves "con.draft" too: a suffix after the dot would not help.
  if (WINDOWS_RESERVED.test(name)) name = `_${name}`;
  return name;
}
