// The note metadata record of get_note_metadata and notesapp://notes/{path} (field names documented in the README).
import path from 'node:path';
import { splitNote } from './frontmatter';
import { analysedPart, capList } from './limits';
import { LinkResolver, type ResolvedLink } from './links';
import { analyseBody, type Heading } from './structure';

export interface NoteMetadata {
  path: string;
  title: string;
  frontmatter: Record<string, unknown>;
  /** Frontmatter `tags`/`tag` first, then inline #tags outside code, without "#", de-duplicated. */
  tags: string[];
  links: ResolvedLink[];
  headings: Heading[];
  wordCount: number;
  /** ISO 8601 times from the file system. */
  created: string;
  modified: string;
  size: number;
  /**
   * True when the note is longer than ANALYSIS_LIMIT (tags, links, headings and wordCount cover its first 1 MB) or a
   * list was cut at MAX_LIST_ITEMS.
   */
  truncated: boolean;
  /** Present when the YAML frontmatter is broken: why (`frontmatter` is then empty). */
  frontmatterError?: string;
}

export interface FileTimes {
  birthtime: Date;
  mtime: Date;
  ctime: Date;
  size: number;
}

function frontmatterTags(data: Record<string, unknown>): string[] {
  const raw = data.tags ?? data.tag;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/) : [];
  return list.filter((t): t is string | number => typeof t === 'string' || typeof t === 'number').map((t) => String(t).replace(/^#/, '').trim()).filter(Boolean);
}

export function noteMetadata(opts: { path: string; text: string; stat: FileTimes; resolver: LinkResolver }): NoteMetadata {
  const part = analysedPart(opts.text);
  const { data, body, bodyLineOffset, frontmatterError } = splitNote(part.text);
  const structure = analyseBody(body, bodyLineOffset);
  const title =
    (typeof data.title === 'string' && data.title.trim()) ||
    structure.headings.find((h) => h.level === 1)?.text ||
    path.posix.basename(opts.path, path.posix.extname(opts.path));
  // Some file systems report no birth time (0); the change time is the closest honest value.
  const created = opts.stat.birthtime.getTime() > 0 ? opts.stat.birthtime : opts.stat.ctime;
  const tags = capList([...new Set([...frontmatterTags(data), ...structure.inlineTags])]);
  const links = capList(structure.links);
  const headings = capList(structure.headings);
  return {
    path: opts.path,
    title,
    frontmatter: data,
    tags: tags.items,
    links: links.items.map((l) => opts.resolver.resolve(l, opts.path)),
    headings: headings.items,
    wordCount: structure.wordCount,
    created: created.toISOString(),
    modified: opts.stat.mtime.toISOString(),
    size: opts.stat.size,
    truncated: part.truncated || tags.truncated || links.truncated || headings.truncated,
    ...(frontmatterError === undefined ? {} : { frontmatterError }),
  };
}
