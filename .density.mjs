// SDK client receiving synthetic search answers (4 MB) with characters outside ASCII at a given density, raw or escaped.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
const esc = (s) => s.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
function answer(density, wide) {
  const base = 'The team met on Tuesday about the quarterly plan and the budget review for the next project phase ';
  const results = [];
  let size = 0;
  for (let i = 0; size < 4e6; i++) {
    let content = '';
    for (let k = 0; k < base.length * 3; k++) content += Math.random() < density ? wide : base[k % base.length];
    const r = { file: `notes/Note ${i}.md`, line: i + 1, content, match: content.slice(5, 60) };
    results.push(r); size += content.length + 100;
  }
  return JSON.stringify({ content: [{ type: 'text', text: JSON.stringify({ results, count: results.length, truncated: false }) }] });
}
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s[s.length >> 1]; };
for (const [density, wide] of [[1 / 1000, 'é'], [1 / 100, 'é'], [1 / 32, 'é'], [1 / 16, 'é'], [1 / 8, 'é'], [1 / 32, '’'], [1 / 8, '’']]) {
  const raw = answer(density, wide);
  const out = {};
  for (const [kind, text] of [['raw', raw], ['escaped', esc(raw)]]) {
    fs.writeFileSync('/tmp/s16/density.json', text);
    const transport = new StdioClientTransport({ command: process.execPath, args: ['test/bench/reply-server.mjs', '/tmp/s16/density.json'], stderr: 'ignore' });
    const client = new Client({ name: 'd', version: '1' }); await client.connect(transport);
    await client.callTool({ name: 'x', arguments: {} });
    const t = [];
    for (let i = 0; i < 9; i++) { const s = performance.now(); await client.callTool({ name: 'x', arguments: {} }); t.push(performance.now() - s); }
    await client.close();
    out[kind] = `${(Buffer.byteLength(text) / 1e6).toFixed(2)} MB ${med(t).toFixed(1)} ms`;
  }
  console.log(`density 1/${Math.round(1 / density)} ${wide}: raw ${out.raw} | escaped ${out.escaped}`);
}
