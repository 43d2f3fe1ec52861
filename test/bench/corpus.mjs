// Deterministic notes corpus for benchmarks: N notes with frontmatter, tags, wikilinks, tasks, nested folders and
// a few large files. The same N always gives byte-identical files; corpora are cached outside the clone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CORPUS_VERSION = 2;

/** mulberry32: small, fast, deterministic PRNG (also seeds the JSON-RPC fuzz test). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are or from at an which have not but had they were ' +
  'note notes idea project meeting garden budget research draft review plan weekly daily reading book chapter ' +
  'design system server client search index cache latency memory editor markdown link task deadline team ' +
  'kitchen recipe running training health travel trip flight hotel museum coffee morning evening quarter ' +
  'migration release roadmap customer feedback interview summary question answer problem solution experiment ' +
  'hypothesis result analysis chart metric growth revenue invoice contract lawyer doctor appointment school ' +
  'Priya Tomás Ana Berlin Lisbon Kyoto Monday Tuesday Friday January March September TODO FIXME'
).split(' ');
const TAGS = ['work', 'home', 'reading', 'health', 'travel', 'finance', 'ideas', 'meeting', 'research', 'garden', 'writing', 'family'];
const FOLDERS = ['projects', 'areas', 'journal', 'reference', 'archive', 'inbox', 'people', 'meetings'];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function sentence(rand, words = 8 + Math.floor(rand() * 14)) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(pick(rand, WORDS));
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return `${out.join(' ')}.`;
}

function noteName(i) {
  return `Note ${String(i).padStart(6, '0')}`;
}

function folderFor(rand) {
  const depth = Math.floor(rand() * 3);
  const parts = [pick(rand, FOLDERS)];
  for (let d = 0; d < depth; d++) parts.push(`${pick(rand, FOLDERS.slice(0, 4))}-${Math.floor(rand() * 4)}`);
  return parts.join('/');
}

function noteText(rand, i, n, large) {
  const tags = [pick(rand, TAGS), pick(rand, TAGS)];
  const day = 1 + Math.floor(rand() * 28);
  const month = 1 + Math.floor(rand() * 12);
  const lines = [
    '---',
    `title: ${noteName(i)}`,
    `tags: [${[...new Set(tags)].join(', ')}]`,
    `created: 2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    '---',
    `# ${noteName(i)}`,
    '',
  ];
  const paragraphs = large ? 1200 : 4 + Math.floor(rand() * 12);
  for (let p = 0; p < paragraphs; p++) {
    const r = rand();
    if (r < 0.15) {
      lines.push(`## ${sentence(rand, 3).slice(0, -1)}`, '');
    } else if (r < 0.3) {
      const count = 1 + Math.floor(rand() * 4);
      for (let t = 0; t < count; t++) lines.push(`- [${rand() < 0.4 ? 'x' : ' '}] ${sentence(rand, 5)}`);
      lines.push('');
    } else {
      const link = rand() < 0.5 ? ` See [[${noteName(Math.floor(rand() * n))}]].` : '';
      const tag = rand() < 0.2 ? ` #${pick(rand, TAGS)}` : '';
      lines.push(`${sentence(rand)} ${sentence(rand)} ${sentence(rand)}${link}${tag}`, '');
    }
  }
  return lines.join('\n');
}

export function corpusDir(n) {
  const base = process.env.NOTESAPP_BENCH_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'notesapp-bench');
  return path.join(base, `corpus-v${CORPUS_VERSION}-${n}`);
}

/** Writes the corpus once (into a temp folder renamed into place) and returns its folder and size. */
export function ensureCorpus(n) {
  const dir = corpusDir(n);
  const marker = path.join(dir, '.bench-corpus.json');
  if (fs.existsSync(marker)) return JSON.parse(fs.readFileSync(marker, 'utf8'));
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = fs.mkdtempSync(`${dir}.tmp-`);
  const { bytes, folders } = writeCorpus(tmp, n);
  const info = { dir, notes: n, bytes, folders, version: CORPUS_VERSION };
  fs.writeFileSync(path.join(tmp, '.bench-corpus.json'), JSON.stringify({ ...info }));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return info;
}

/** Writes the N-note corpus into `dir` (also used by the index equivalence tests); returns its size. */
export function writeCorpus(dir, n) {
  const tmp = dir;
  const rand = prng(0x5eed + n);
  let bytes = 0;
  const made = new Set();
  for (let i = 0; i < n; i++) {
    const large = i % 500 === 499; // 0.2 % of notes are ~200-300 KB
    const folder = folderFor(rand);
    const rel = path.join(folder, `${noteName(i)}.md`);
    const abs = path.join(tmp, rel);
    const parent = path.dirname(abs);
    if (!made.has(parent)) {
      fs.mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    const text = noteText(rand, i, n, large);
    fs.writeFileSync(abs, text);
    bytes += Buffer.byteLength(text);
  }
  return { bytes, folders: made.size };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const n of process.argv.slice(2).map(Number)) {
    const t = Date.now();
    const info = ensureCorpus(n);
    console.log(`${n} notes: ${(info.bytes / 1e6).toFixed(1)} MB in ${info.folders} folders at ${info.dir} (${Date.now() - t} ms)`);
  }
}
