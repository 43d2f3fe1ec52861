// Screenshot for the README: the demo notes in the browser-hosted workbench, with the "Notes MCP" status bar item
// and the "Run MCP Tool" quick pick open. Usage: node test/host/screenshot.mjs [--note Inbox.md] [--out FILE]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, launchBrowser, startCodeServer } from './browser-runner.mjs';
import { ensureRuntime } from './runtime.mjs';
import { cleanup, prepareRun, repoRoot } from './workspace.mjs';
import fs from 'node:fs';

const { values } = parseArgs({ options: { note: { type: 'string', default: 'Inbox.md' }, out: { type: 'string', default: 'media/screenshots/run-mcp-tool.png' } } });
const runtime = ensureRuntime();
const run = prepareRun('notesapp-shot-');
// The README shows the demo notes, not the test fixture.
fs.rmSync(run.workspace, { recursive: true, force: true });
fs.cpSync(path.join(repoRoot, 'media', 'demo-notes'), run.workspace, { recursive: true });
const port = await freePort();
const server = startCodeServer(runtime, port, run);
let browser;
try {
  await server.ready;
  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${repoRoot}`], ['skipWelcome', 'true']];
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(run.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 120_000 });
  await page.getByText(/Notes MCP: \d+ tools/).first().waitFor({ timeout: 60_000 });
  await page.keyboard.press('Control+P');
  await page.keyboard.type(values.note);
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .view-lines').first().waitFor();
  await page.keyboard.press('F1');
  await page.keyboard.type('Notes: Run MCP Tool');
  await page.getByText('Run MCP Tool').first().waitFor();
  await page.keyboard.press('Enter');
  await page.getByText('get_editor_content').first().waitFor({ timeout: 20_000 });
  const out = path.resolve(repoRoot, values.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`saved ${path.relative(repoRoot, out)}`);
} finally {
  if (browser) await browser.close();
  server.stop();
  cleanup(run);
}
