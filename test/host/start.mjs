// `npm start`: build, then open the demo notes workspace in VS Code with the extension loaded — desktop `code`
// when it is on PATH, otherwise the browser-hosted VS Code server on 127.0.0.1 (prints the URL to open).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { codeServerArgs } from './browser-runner.mjs';
import { ensureRuntime } from './runtime.mjs';
import { repoRoot } from './workspace.mjs';

const demoSource = path.join(repoRoot, 'media', 'demo-notes');
// A working copy, so that playing with the demo never changes the repository's demo notes.
const demo = path.join(repoRoot, '.demo-workspace');

function onPath(cmd) {
  const r = spawnSync(process.platform === 'win32' ? 'where' : 'which', [cmd], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

function fail(message) {
  console.error(`[start] ${message}`);
  process.exit(1);
}

/** Resolves true when nothing listens on 127.0.0.1:port, false when something does. */
function portFree(port) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

const desktop = onPath('code') && !process.argv.includes('--browser');
let port;
let runtime;
// The browser-hosted server's prerequisites are checked before anything is built or copied, so that a taken port
// or a runtime that cannot be installed is reported at once, without a stack trace.
if (!desktop) {
  const raw = process.env.PORT || '8080';
  port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) fail(`PORT must be a port number from 1 to 65535, got "${raw}".`);
  if (!(await portFree(port))) {
    const other = port === 65535 ? 8081 : port + 1;
    fail(
      `port ${port} on 127.0.0.1 is already in use, perhaps by another \`npm start\` (Ctrl+C in its terminal stops it).\n` +
        `[start] To use another port: PORT=${other} npm start`,
    );
  }
  try {
    runtime = ensureRuntime();
  } catch (err) {
    fail(
      `${err.message}\n` +
        "[start] With desktop VS Code's `code` command on PATH, npm start opens the demo notes there instead and needs no runtime.",
    );
  }
}

const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
if (!fs.existsSync(demo) || process.argv.includes('--fresh')) {
  fs.rmSync(demo, { recursive: true, force: true });
  fs.cpSync(demoSource, demo, { recursive: true });
  console.log(`[start] demo notes copied to ${path.relative(repoRoot, demo)}/ (npm start -- --fresh resets it)`);
}

if (desktop) {
  console.log('[start] opening the demo notes in desktop VS Code');
  const r = spawnSync('code', ['--new-window', `--extensionDevelopmentPath=${repoRoot}`, demo], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 0);
}

const dataDir = path.join(repoRoot, '.demo-workspace-vscode');
const args = codeServerArgs(runtime, port, {
  userData: path.join(dataDir, 'user-data'),
  extensions: path.join(dataDir, 'extensions'),
  workspace: demo,
});
const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${repoRoot}`], ['skipWelcome', 'true']];
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(demo)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
const child = spawn(runtime.nodeBin, args, {
  cwd: repoRoot,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery' }) },
});
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  if (d.toString().includes('HTTP server listening')) {
    console.log(
      `\n[start] VS Code with the notes extension is ready. Open this URL in a browser (the bare http://127.0.0.1:${port}/ opens VS Code without the extension):\n\n  ${url}\n\n[start] Ctrl+C stops it.`,
    );
  }
});
const stop = () => child.kill('SIGTERM');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// npm runs this through a shell that does not pass on a SIGTERM sent to npm itself (`kill <npm>`, `timeout npm
// start`): when the process that started this one is gone, VS Code is stopped too instead of keeping the port.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 1000).unref();
child.on('exit', (code) => process.exit(code ?? 0));
