// Output schema of the note metadata record, shared by get_note_metadata and the notes resource.
import { z } from 'zod';

export const noteMetadataShape = {
  path: z.string().describe('Workspace-relative path.'),
  title: z.string().describe('Frontmatter title, else the first level-1 heading, else the file name.'),
  frontmatter: z.record(z.string(), z.unknown()).describe('YAML frontmatter as JSON (dates and times as the text written).'),
  tags: z.array(z.string()).describe('Frontmatter tags/tag, then inline #tags outside code, without "#".'),
  links: z
    .array(
      z.object({
        type: z.enum(['markdown', 'wikilink']),
        target: z.string().describe('Target as written, without #heading.'),
        heading: z.string().nullable().describe('The #heading part, if any.'),
        text: z.string().describe('Link text, or the |alias of a wikilink.'),
        line: z.number().describe('1-based line.'),
        path: z.string().nullable().describe('Resolved workspace-relative path of the target; null when external or missing.'),
        external: z.boolean().describe('True for URLs (http:, mailto:, ...).'),
      }),
    )
    .describe('Outgoing links in document order.'),
  headings: z.array(z.object({ level: z.number(), text: z.string(), line: z.number() })).describe('Headings in document order.'),
  wordCount: z.number().describe('Words of prose (frontmatter and code blocks excluded).'),
  created: z.string().describe('ISO 8601 creation time (birth time, or change time where the file system has none).'),
  modified: z.string().describe('ISO 8601 modification time.'),
  size: z.number().describe('Bytes.'),
  truncated: z.boolean().describe('True when the note is over 1 MB (tags, links, headings and wordCount cover its first 1 MB) or a list was cut at 5000 items.'),
  frontmatterError: z.string().optional().describe('Only when the YAML frontmatter is broken: the parse error (frontmatter is then {}).'),
};
