// The launcher a copied MCP client configuration names: it must keep starting the server after the extension is
// updated (VS Code removes the old version's folder), and say what to do once no version is left.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientNode } from '../../../src/vscode/mcp/client-config';
import { LAUNCHER_FILE, refreshLauncher, writeLauncher } from '../../../src/vscode/mcp/launcher';

const repoRoot = path.resolve(__dirname, '../../..');
const ID = 'notesapp.notesapp';

/** Runs a script with Node; resolves to its exit code, standard output and standard error. */
function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as NodeJS.ErrnoException & { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('the MCP server launcher in the extension storage', function () {
  this.timeout(30_000);
  let dir: string;
  let extensions: string;
  let storage: string;

  /** An installed version whose dist/server.js prints which version ran and with what arguments. */
  const install = (folder: string): string => {
    const server = path.join(extensions, folder, 'dist', 'server.js');
    fs.mkdirSync(path.dirname(server), { recursive: true });
    fs.writeFileSync(server, `console.log(JSON.stringify({ ran: ${JSON.stringify(folder)}, args: process.argv.slice(2) }));\n`);
    return server;
  };

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-launcher-')));
    extensions = path.join(dir, 'extensions');
    storage = path.join(dir, 'globalStorage', ID);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the version that wrote it, with the arguments the client gives', async () => {
    const server = install(`${ID}-0.1.0`);
    install(`${ID}-0.2.0`);
    const launcher = await writeLauncher(storage, server, ID);
    assert.equal(launcher, path.join(storage, LAUNCHER_FILE));
    const { code, stdout } = await run(launcher, ['--workspace', '/my notes', '--config', '/c.json']);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), { ran: `${ID}-0.1.0`, args: ['--workspace', '/my notes', '--config', '/c.json'] });
  });

  it('runs the newest other installed version once its own is gone, never one VS Code is about to remove', async () => {
    const server = install(`${ID}-0.1.0`);
    const launcher = await writeLauncher(storage, server, ID);
    fs.rmSync(path.join(extensions, `${ID}-0.1.0`), { recursive: true });
    install(`${ID}-0.2.0`);
    install(`${ID}-0.10.0-linux-x64`); // compared as numbers, with a platform suffix
    install(`${ID}-0.11.0`);
    install('other.notesapp-9.0.0');
    fs.writeFileSync(path.join(extensions, '.obsolete'), JSON.stringify({ [`${ID}-0.11.0`]: true }));
    const { code, stdout } = await run(launcher, ['--workspace', '/n']);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), { ran: `${ID}-0.10.0-linux-x64`, args: ['--workspace', '/n'] });
  });

  it('exits with a message saying what to do when no version is installed', async () => {
    const server = install(`${ID}-0.1.0`);
    const launcher = await writeLauncher(storage, server, ID);
    fs.rmSync(extensions, { recursive: true });
    const { code, stdout, stderr } = await run(launcher, []);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /^notesapp: the MCP server is not installed any more: .*server\.js is gone .*Install the notesapp extension in VS Code again/);
  });

  it('is pointed at the running version when the extension starts, and made only by a copy', async () => {
    const old = install(`${ID}-0.1.0`);
    const current = install(`${ID}-0.2.0`);
    assert.equal(await refreshLauncher(storage, current, ID), false, 'no launcher was made before: none is made');
    assert.equal(fs.existsSync(path.join(storage, LAUNCHER_FILE)), false);
    const launcher = await writeLauncher(storage, old, ID);
    assert.equal(await refreshLauncher(storage, current, ID), true);
    assert.equal(JSON.parse((await run(launcher, [])).stdout).ran, `${ID}-0.2.0`);
    assert.deepEqual(fs.readdirSync(storage), [LAUNCHER_FILE], 'no temporary file is left');
  });

  it('starts the real server, which answers an MCP client', async () => {
    const launcher = await writeLauncher(storage, path.join(repoRoot, 'dist', 'server.js'), ID);
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, '{}');
    const { LineClient } = await import('../../bench/line-client.mjs');
    const client = await LineClient.start(process.execPath, [launcher, '--workspace', path.join(repoRoot, 'media', 'demo-notes'), '--config', config], process.env);
    try {
      const { result } = await client.timedCall('get_workspace_info', {});
      const info = JSON.parse((result as { content: { text: string }[] }).content[0].text) as { name: string };
      assert.equal(info.name, 'demo-notes');
    } finally {
      client.close();
    }
  });
});

describe('the Node a copied MCP client configuration runs', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-node-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A `node` on a PATH of its own that reports `version`. */
  const nodeReporting = (version: string): string => {
    const bin = path.join(dir, 'node');
    fs.writeFileSync(bin, `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
    return bin;
  };

  it('takes the node on PATH when it runs the server, and not an older one (VS Code runs it then)', async function () {
    if (process.platform === 'win32') this.skip(); // a shell script stands for node
    const bin = nodeReporting('v20.19.0');
    assert.deepEqual(await clientNode({ nodePath: undefined, envPath: dir }), { node: bin });
    nodeReporting('v18.20.4');
    assert.deepEqual(await clientNode({ nodePath: undefined, envPath: dir }), {
      skipped: `${bin} (on PATH) is Node 18.20.4, and the server needs 20.19 or later`,
    });
    nodeReporting('v20.18.9');
    assert.equal((await clientNode({ nodePath: undefined, envPath: dir })).node, undefined);
    nodeReporting('v22.0.0');
    assert.equal((await clientNode({ nodePath: undefined, envPath: dir })).node, bin);
    fs.writeFileSync(bin, '#!/bin/sh\nexit 3\n');
    assert.deepEqual(await clientNode({ nodePath: undefined, envPath: dir }), { skipped: `${bin} (on PATH) did not answer --version` });
    // The setting is the user's choice, taken as given.
    assert.deepEqual(await clientNode({ nodePath: '/opt/node/bin/node', envPath: dir }), { node: '/opt/node/bin/node' });
    assert.deepEqual(await clientNode({ nodePath: undefined, envPath: path.join(dir, 'none') }), {});
  });
});
