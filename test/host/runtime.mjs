// Installs (once) and locates the offline extension-host runtime: Node 24 and code-server from npm packages.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CODE_SERVER_VERSION = process.env.NOTESAPP_CODE_SERVER_VERSION || '4.139.1';
export const NODE_VERSION = process.env.NOTESAPP_HOST_NODE_VERSION || '24';

function cacheRoot() {
  if (process.env.NOTESAPP_RUNTIME_CACHE) return path.resolve(process.env.NOTESAPP_RUNTIME_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'notesapp-test-runtime');
}

export function runtimeDir() {
  return path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}-${process.platform}-${process.arch}`);
}

// Node and code-server live in separate npm prefixes: one npm install would prune the other's package.
function layout(dir) {
  const nodeHome = path.join(dir, 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
  return {
    dir,
    nodeHome,
    nodeBin: path.join(nodeHome, 'bin', 'node'),
    codeServerEntry: path.join(dir, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    marker: path.join(dir, '.complete'),
  };
}

export function findRuntime() {
  const l = layout(runtimeDir());
  return fs.existsSync(l.marker) && fs.existsSync(l.nodeBin) && fs.existsSync(l.codeServerEntry) ? l : undefined;
}

function run(cmd, args, opts, log) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
}

/**
 * Returns the runtime, installing it first when the cache has none. The install goes into a fresh temporary
 * folder that is renamed into place only when it succeeded, so a failed install never poisons the cache.
 */
export function ensureRuntime(log = (m) => console.log(`[runtime] ${m}`)) {
  const found = findRuntime();
  if (found) return found;
  if (process.platform !== 'linux') {
    // The callers say what to do instead: the tests name their other runner, npm start desktop VS Code.
    throw new Error('The browser-hosted VS Code server is installed on Linux only.');
  }
  const finalDir = runtimeDir();
  fs.mkdirSync(path.dirname(finalDir), { recursive: true });
  const tmp = fs.mkdtempSync(`${finalDir}.tmp-`);
  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION} into ${finalDir} (a few minutes, once)`);
  try {
    for (const sub of ['node', 'code-server']) {
      fs.mkdirSync(path.join(tmp, sub));
      fs.writeFileSync(path.join(tmp, sub, 'package.json'), JSON.stringify({ name: `notesapp-runtime-${sub}`, private: true }));
    }
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const quiet = ['--no-audit', '--no-fund', '--loglevel=error'];
    // Under `npm test` the environment carries the outer npm's settings as npm_* variables, among them a user
    // agent naming the outer Node version, which code-server's install script reads and refuses. The installs
    // below read the user's npm configuration files themselves.
    const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    run(npm, ['install', ...quiet, `node-${process.platform}-${process.arch}@${NODE_VERSION}`], { cwd: path.join(tmp, 'node'), env: cleanEnv }, log);
    const l = layout(tmp);
    if (!fs.existsSync(l.nodeBin)) throw new Error(`Node ${NODE_VERSION} binary missing at ${l.nodeBin}`);
    // code-server's install script requires Node 24 and compiles native modules against its headers.
    const env = {
      ...cleanEnv,
      PATH: `${path.dirname(l.nodeBin)}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: l.nodeHome,
      npm_config_build_from_source: '',
    };
    run(npm, ['install', ...quiet, '--unsafe-perm', `code-server@${CODE_SERVER_VERSION}`], { cwd: path.join(tmp, 'code-server'), env }, log);
    if (!fs.existsSync(l.codeServerEntry)) throw new Error(`code-server entry missing at ${l.codeServerEntry}`);
    fs.writeFileSync(l.marker, new Date().toISOString());
    fs.rmSync(finalDir, { recursive: true, force: true });
    fs.renameSync(tmp, finalDir);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `Installing the extension-host runtime failed: ${err.message}\n` +
        'It needs the npm registry and Debian packages libkrb5-dev, build-essential, pkg-config and python3.',
      { cause: err },
    );
  }
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return layout(finalDir);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = ensureRuntime();
  console.log(JSON.stringify(r, null, 2));
}
