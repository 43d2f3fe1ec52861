import { analyseBody } from './src/core/notes/structure';
import { extractTasks } from './src/core/notes/tasks';
const N = 1_000_000;
const cases: Record<string, string> = {
  brackets: '['.repeat(N),
  wikiopen: '[[a '.repeat(N / 4),
  stars: '*a '.repeat(N / 3),
  backticks: '`a '.repeat(N / 3),
  lt: '<a '.repeat(N / 3),
  linkish: '[a](b '.repeat(N / 6),
  nested: '> '.repeat(N / 2),
  list: '- '.repeat(N / 2),
  lines: 'word [[Link]] #tag\n'.repeat(N / 19),
  tablerows: '|a|b|\n|-|-|\n' + '|x|[[y]]|\n'.repeat(N / 10),
  emphasisMix: '*_'.repeat(N / 2),
  entity: '&amp;'.repeat(N / 5),
  escapes: '\\#'.repeat(N / 2),
  hashes: '#a '.repeat(N / 3),
};
for (const [name, text] of Object.entries(cases)) {
  const t = performance.now();
  analyseBody(text, 0);
  const a = performance.now() - t;
  const t2 = performance.now();
  try { (extractTasks as any)(text); } catch {}
  console.log(name.padEnd(12), a.toFixed(0), 'ms', (performance.now() - t2).toFixed(0), 'ms tasks');
}
