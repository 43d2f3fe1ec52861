// Task-list items of a note (`- [ ] text`) with their status and 1-based file line.
import { splitNote } from './frontmatter';
import { analysedPart, capList } from './limits';
import { lineOf, markdown, parseBlocks } from './markdown';

/** Markers recognised inside the brackets, and the status each one reports. */
export const TASK_STATUSES = {
  ' ': 'todo',
  x: 'done',
  X: 'done',
  '/': 'in-progress',
  '-': 'cancelled',
  '>': 'deferred',
  '?': 'question',
  '!': 'important',
} as const satisfies Record<string, string>;

export type TaskStatus = (typeof TASK_STATUSES)[keyof typeof TASK_STATUSES];

export interface ExtractedTask {
  text: string;
  status: TaskStatus;
  line: number;
}

const TASK_ITEM = /^\[([ xX/\-><?!])\](?:[ \t]+([\s\S]*))?$/;

/** Tasks of the note's first ANALYSIS_LIMIT characters, at most MAX_LIST_ITEMS; `truncated` when any may be missing. */
export function extractTasks(text: string): { tasks: ExtractedTask[]; truncated: boolean } {
  const part = analysedPart(text);
  const { body, bodyLineOffset } = splitNote(part.text);
  const tokens = parseBlocks(body);
  const tasks: ExtractedTask[] = [];
  for (let i = 2; i < tokens.length; i++) {
    const inline = tokens[i];
    // A task is the first paragraph of a list item whose text starts with [c].
    if (inline.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
    const m = TASK_ITEM.exec(inline.content);
    if (!m) continue;
    const marker = m[1] as keyof typeof TASK_STATUSES;
    tasks.push({ text: (m[2] ?? '').replace(/\s*\n\s*/g, ' ').trim(), status: TASK_STATUSES[marker], line: lineOf(inline, bodyLineOffset) });
  }
  const capped = capList(tasks);
  // markdown-it reads nothing nested deeper than maxNesting levels (about 50 lists, or 100 quotes, one in another):
  // what it passed over may hold tasks.
  const maxNesting = markdown().options.maxNesting ?? Infinity;
  const nestingCut = tokens.some((t) => t.level >= maxNesting - 1);
  return { tasks: capped.items, truncated: part.truncated || capped.truncated || nestingCut };
}
