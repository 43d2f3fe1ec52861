// The note metadata record of get_note_metadata and notesapp://notes/{path} (field names documented in the README).
import path from 'node:path';
import { splitNote } from './frontmatter';
import { analysedPart, capList } from './limits';
import { LinkResolver, type ResolvedLink } from './links';
import { analyseBody, type Heading, type RawLink } from './structure';

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

/** What the markdown says, before the path, the file's times and the workspace come in: the costly part. */
export interface NoteAnalysis {
  data: Record<string, unknown>;
  frontmatterError?: string;
  /** The title as written, when YAML reads it as a number or a boolean (see SplitNote). */
  titleText?: string;
  headings: Heading[];
  links: RawLink[];
  inlineTags: string[];
  wordCount: number;
  /** The note is over ANALYSIS_LIMIT: only its first 1 MB was read. */
  truncated: boolean;
}

/** Parses the note's first ANALYSIS_LIMIT characters: frontmatter, headings, links, tags, words. */
export function analyseNote(text: string): NoteAnalysis {
  const part = analysedPart(text);
  const { data, body, bodyLineOffset, frontmatterError, titleText } = splitNote(part.text);
  const { headings, links, inlineTags, wordCount } = analyseBody(body, bodyLineOffset);
  return {
    data,
    headings,
    links,
    inlineTags,
    wordCount,
    truncated: part.truncated,
    ...(frontmatterError === undefined ? {} : { frontmatterError }),
    ...(titleText === undefined ? {} : { titleText }),
  };
}

export function noteMetadata(opts: { path: string; analysis: NoteAnalysis; stat: FileTimes; resolver: LinkResolver }): NoteMetadata {
  const { data, frontmatterError } = opts.analysis;
  // A title YAML reads as a number or a boolean (`title: 1984`) is still the note's title, as written (`1.10`).
  const given = typeof data.title === 'number' || typeof data.title === 'boolean' ? (opts.analysis.titleText ?? String(data.title)) : data.title;
  const title =
    (typeof given === 'string' && given.trim()) ||
    opts.analysis.headings.find((h) => h.level === 1)?.text ||
    path.posix.basename(opts.path, path.posix.extname(opts.path));
  // Some file systems report no birth time (0); the change time is the closest honest value.
  const created = opts.stat.birthtime.getTime() > 0 ? opts.stat.birthtime : opts.stat.ctime;
  const tags = capList([...new Set([...frontmatterTags(data), ...opts.analysis.inlineTags])]);
  const links = capList(opts.analysis.links);
  const headings = capList(opts.analysis.headings);
  return {
    path: opts.path,
    title,
    frontmatter: data,
    tags: tags.items,
    links: links.items.map((l) => opts.resolver.resolve(l, opts.path)),
    headings: headings.items,
    wordCount: opts.analysis.wordCount,
    created: created.toISOString(),
    modified: opts.stat.mtime.toISOString(),
    size: opts.stat.size,
    truncated: opts.analysis.truncated || tags.truncated || links.truncated || headings.truncated,
    ...(frontmatterError === undefined ? {} : { frontmatterError }),
  };
}
