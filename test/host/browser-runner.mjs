// Runs the integration suite inside a real VS Code extension host served by code-server, driven by Chromium.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import util from 'node:util';
import { ensureRuntime } from './runtime.mjs';
import { cleanup, hostEnv, prepareRun, repoRoot } from './workspace.mjs';

const SERVER_START_TIMEOUT_MS = Number(process.env.NOTESAPP_SERVER_START_TIMEOUT_MS || 60_000);
const WORKBENCH_TIMEOUT_MS = Number(process.env.NOTESAPP_WORKBENCH_TIMEOUT_MS || 120_000);
// Chatter of the workbench itself (connection set-up, chat and sign-in services, the disabled extension gallery);
// NOTESAPP_TEST_VERBOSE=1 shows it.
const WORKBENCH_NOISE = process.env.NOTESAPP_TEST_VERBOSE
  ? /^$/
  : /^(\[(AgentHost[^\]]*|ChatModelSelection|ChatSessions?|LanguageModels?|AccountPolicyGate|reconnection-grace-time|Service Worker)\]|Resolv(ing|ed) connection token|Creating a socket|Updating additional builtin|Timed out waiting for authentication provider|connect ECONNREFUSED 127\.0\.0\.1:9\b)/;
const SUITE_TIMEOUT_MS = Number(process.env.NOTESAPP_SUITE_TIMEOUT_MS || 20 * 60_000);

export function findChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  return candidates.find((p) => p && fs.existsSync(p));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}

/** Starts code-server and resolves once it listens; rejects with its output if it exits or times out. */
/** User settings that keep the workbench quiet and away from any network service during tests. */
function writeUserSettings(run) {
  const dir = path.join(run.userData, 'User');
  fs.mkdirSync(dir, { recursive: true });
  const settings = {
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'workbench.enableExperiments': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'git.enabled': false,
  };
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
}

/** The command line of a code-server on 127.0.0.1:port that honours the development payload. */
function codeServerArgs(runtime, port, { userData, extensions, workspace, extraArgs = [] }) {
  return [
    runtime.codeServerEntry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--vscode-option', 'enable-smoke-test-driver',
    '--user-data-dir', userData,
    '--extensions-dir', extensions,
    ...extraArgs,
    workspace,
  ];
}

function startCodeServer(runtime, port, run, extraArgs = []) {
  writeUserSettings(run);
  const args = codeServerArgs(runtime, port, { ...run, extraArgs });
  const child = spawn(runtime.nodeBin, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...hostEnv(run),
      // No extension gallery: nothing is installed from outside, and nothing tries to reach one.
      EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items' }),
      PATH: `${path.dirname(runtime.nodeBin)}${path.delimiter}${process.env.PATH}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
  });
  let output = '';
  const ready = new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk.toString();
      if (output.includes('HTTP server listening')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`code-server exited early (code ${code}):\n${output.slice(-4000)}`)));
    child.on('error', reject);
  });
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  return {
    child,
    stop,
    ready: withTimeout(ready, SERVER_START_TIMEOUT_MS, `code-server did not start listening within ${SERVER_START_TIMEOUT_MS} ms`),
    output: () => output,
  };
}

async function launchBrowser() {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium not found: install Debian\'s "chromium" package or set CHROMIUM_PATH.');
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

function workbenchUrl(port, run, testsIndex) {
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(repoRoot)],
    ['extensionTestsPath', remote(testsIndex)],
    ['skipWelcome', 'true'],
  ];
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(run.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/**
 * Runs the compiled suite index inside the extension host. Resolves with the suite's exit code (0 passed,
 * non-zero failed); rejects when the environment itself fails (no runtime, no browser, no workbench).
 */
export async function runBrowserHosted({ testsIndex, log = (line) => process.stdout.write(`${line}\n`) }) {
  let runtime;
  try {
    runtime = ensureRuntime();
  } catch (err) {
    if (process.platform !== 'linux') err.message += ' Run the tests in desktop VS Code instead: NOTESAPP_TEST_RUNNER=electron.';
    throw err;
  }
  const run = prepareRun();
  const port = await freePort();
  const server = startCodeServer(runtime, port, run);
  let browser;
  let page;
  const screenshotPath = path.join(repoRoot, 'test-results', 'workbench-failure.png');
  try {
    await server.ready;
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let sawHost = false;
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationLog', (_type, args) => {
      sawHost = true;
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      if (!WORKBENCH_NOISE.test(line)) log(line);
    });
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(Number(code)));
    page.on('pageerror', (err) => log(`[workbench] ${err.message}`));
    await page.goto(workbenchUrl(port, run, testsIndex));
    await withTimeout(
      page.waitForSelector('.monaco-workbench', { timeout: WORKBENCH_TIMEOUT_MS }),
      WORKBENCH_TIMEOUT_MS + 1000,
      `the VS Code workbench did not come up within ${WORKBENCH_TIMEOUT_MS} ms`,
    );
    const started = Date.now();
    const hostUp = new Promise((resolve) => {
      const iv = setInterval(() => {
        if (sawHost) {
          clearInterval(iv);
          resolve();
        }
      }, 200);
      exited.then(() => clearInterval(iv));
    });
    await withTimeout(Promise.race([hostUp, exited]), WORKBENCH_TIMEOUT_MS, `the extension host produced no output within ${WORKBENCH_TIMEOUT_MS} ms of the workbench loading`);
    const code = await withTimeout(exited, SUITE_TIMEOUT_MS - (Date.now() - started), `the integration suite did not finish within ${SUITE_TIMEOUT_MS} ms`);
    if (code !== 0) await saveScreenshot(page, screenshotPath, log);
    return code;
  } catch (err) {
    if (page) await saveScreenshot(page, screenshotPath, log);
    const tail = server.output().split('\n').slice(-30).join('\n');
    throw new Error(`${err.message}\n--- code-server output (last lines) ---\n${tail}`, { cause: err });
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.stop();
    cleanup(run);
  }
}

async function saveScreenshot(page, file, log) {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    log(`[host] screenshot of the workbench saved to ${path.relative(repoRoot, file)}`);
  } catch (err) {
    log(`[host] could not save a screenshot: ${err.message}`);
  }
}

export { codeServerArgs, freePort, launchBrowser, startCodeServer, workbenchUrl };
