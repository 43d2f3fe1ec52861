// The loader's answer to initialize (server/early-initialize.ts): written only from an answer the server gave a start
// made the same way, only for requests the MCP SDK takes as they are, equal byte for byte to the server's own, and
// never a second answer to one request; the input stays whole for the server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { InitializeRequestSchema, JSONRPCRequestSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { answerBuffered, earlyAnswer, handshakeKey, keepHandshake, readKeptHandshake, type KeptHandshake } from '../../../server/early-initialize';
import { buildStartupSnapshot } from '../../../src/core/startup-snapshot';

const serverJs = path.resolve(__dirname, '../../../dist/server.js');

const RESULT = { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'notesapp', version: '1' }, instructions: 'Notes.' };

function keptFor(result: Record<string, unknown> = RESULT): KeptHandshake {
  return { v: 1, bundle: '1-1', key: 'k', config: { path: '/none', bytes: null }, workspace: '/', supported: [...SUPPORTED_PROTOCOL_VERSIONS], latest: LATEST_PROTOCOL_VERSION, result };
}

const initialize = (params: Record<string, unknown>, id: unknown = 0, extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params, ...extra });
const CLIENT = { name: 'client', version: '1.0.0' };

describe('the loader answers initialize (early-initialize.ts)', () => {
  describe('which requests', () => {
    it('answers the initialize of the usual clients, with the version the SDK would choose', () => {
      const kept = keptFor();
      for (const capabilities of [{}, { roots: { listChanged: true }, sampling: {} }, { sampling: {}, elicitation: {}, roots: { listChanged: true } }, { elicitation: { form: { applyDefaults: true }, url: {} }, experimental: { x: {} }, extensions: { 'a/b': {} } }]) {
        const answer = earlyAnswer(kept, initialize({ protocolVersion: '2025-03-26', capabilities, clientInfo: { ...CLIENT, title: 'Client' } }, 'a'));
        assert.ok(answer, JSON.stringify(capabilities));
        assert.equal(answer.id, 'a');
        assert.equal(answer.line.toString(), `${JSON.stringify({ result: { ...RESULT, protocolVersion: '2025-03-26' }, jsonrpc: '2.0', id: 'a' })}\n`);
      }
      // A version the SDK does not take: its latest, as the SDK answers.
      const later = earlyAnswer(kept, initialize({ protocolVersion: '2099-01-01', capabilities: {}, clientInfo: CLIENT }, 7));
      assert.equal(JSON.parse(later?.line.toString() ?? '{}').result.protocolVersion, LATEST_PROTOCOL_VERSION);
      assert.equal(later?.id, 7);
    });

    it('leaves the server every other request', () => {
      const kept = keptFor();
      const refused = [
        'not json',
        '[' + initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT }) + ']',
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT }, null),
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT }, 1.5),
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT }, 0, { extra: 1 }),
        initialize({ protocolVersion: '2025-06-18', capabilities: {} }),
        initialize({ protocolVersion: '2025-06-18', clientInfo: CLIENT }),
        initialize({ capabilities: {}, clientInfo: CLIENT }),
        initialize({ protocolVersion: 20250618, capabilities: {}, clientInfo: CLIENT }),
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT, _meta: {} }),
        initialize({ protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: 'yes' } }, clientInfo: CLIENT }),
        initialize({ protocolVersion: '2025-06-18', capabilities: { tasks: {} }, clientInfo: CLIENT }),
        initialize({ protocolVersion: '2025-06-18', capabilities: { sampling: { context: true } }, clientInfo: CLIENT }),
        initialize({ protocolVersion: '2025-06-18', capabilities: [], clientInfo: CLIENT }),
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c' } }),
        initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { ...CLIENT, icons: [] } }),
        JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping', params: {} }),
        JSON.stringify({ jsonrpc: '1.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT } }),
        JSON.stringify({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT } }),
      ];
      for (const line of refused) assert.equal(earlyAnswer(kept, line), undefined, line);
    });

    it('answers no request the MCP SDK would not take as it is', () => {
      // Mostly the shapes clients send, with values of every kind here and there, and fields left out.
      const leaf = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, fc.string(), fc.integer(), fc.constant(null), fc.constant([]));
      const object = fc.dictionary(fc.constantFrom('context', 'tools', 'form', 'url', 'listChanged', 'applyDefaults', 'x'), fc.oneof({ weight: 3, arbitrary: leaf }, fc.dictionary(fc.constantFrom('applyDefaults', 'x'), leaf)), { maxKeys: 3 });
      const optional = { requiredKeys: [] as never[] };
      const usual = fc.record(
        {
          roots: fc.record({ listChanged: fc.boolean() }, optional),
          sampling: fc.record({ context: fc.constant({}), tools: fc.constant({}) }, optional),
          elicitation: fc.record({ form: fc.record({ applyDefaults: fc.boolean() }, optional), url: fc.constant({}) }, optional),
          experimental: fc.dictionary(fc.string(), fc.constant({}), { maxKeys: 2 }),
          extensions: fc.dictionary(fc.string(), fc.constant({}), { maxKeys: 2 }),
        },
        optional,
      );
      const capabilities = fc.oneof(
        { weight: 12, arbitrary: usual },
        { weight: 6, arbitrary: fc.dictionary(fc.constantFrom('roots', 'sampling', 'elicitation', 'experimental', 'extensions', 'tasks', 'other'), fc.oneof({ weight: 4, arbitrary: object }, leaf), { maxKeys: 4 }) },
        leaf,
      );
      const text = fc.oneof({ weight: 6, arbitrary: fc.string() }, fc.integer(), fc.constant([]));
      /** `value`, or now and then without one of its fields, or with one more. */
      const sometimes = <T extends Record<string, unknown>>(value: T, more: Record<string, unknown>) =>
        fc.oneof({ weight: 6, arbitrary: fc.constant(value) }, fc.constantFrom(...Object.keys(value)).map((k) => Object.fromEntries(Object.entries(value).filter(([name]) => name !== k))), fc.constant({ ...value, ...more }));
      const clientInfo = fc
        .record({ name: text, version: text, title: text, websiteUrl: text, description: text }, { requiredKeys: ['name', 'version'] })
        .chain((info) => sometimes(info, { icons: [] }));
      const params = fc
        .record({ protocolVersion: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SUPPORTED_PROTOCOL_VERSIONS) }, fc.string(), fc.integer()), capabilities, clientInfo })
        .chain((p) => sometimes(p, { _meta: {} }));
      const id = fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.string(), fc.integer()) }, fc.double(), fc.constant(null));
      let answered = 0;
      fc.assert(
        fc.property(id, params, (requestId, p) => {
          const line = JSON.stringify({ jsonrpc: '2.0', id: requestId, method: 'initialize', params: p });
          const answer = earlyAnswer(keptFor(), line);
          if (!answer) return;
          answered++;
          const request = JSON.parse(line) as unknown;
          assert.ok(JSONRPCRequestSchema.safeParse(request).success, line);
          assert.ok(InitializeRequestSchema.safeParse(request).success, line);
        }),
        { numRuns: 3000 },
      );
      assert.ok(answered > 100, `answered ${answered} of the generated requests: too few to tell`);
    });
  });

  describe('the answer kept', () => {
    let dir: string;
    let workspace: string;
    let config: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'early-init-'));
      workspace = path.join(dir, 'notes');
      fs.mkdirSync(workspace);
      config = path.join(dir, 'config.json');
      fs.writeFileSync(config, '{"version": 3}');
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const keep = (over: Partial<{ key: string; bundle: string; configPath: string }> = {}) =>
      keepHandshake(path.join(dir, 'cache'), { bundle: 'b1', key: 'k1', configPath: config, workspace, supported: ['2025-06-18'], latest: '2025-06-18', result: RESULT, ...over });

    it('is used while the start, the bundle, the configuration file and the workspace are as they were', () => {
      assert.equal(keep(), true);
      const cache = path.join(dir, 'cache');
      assert.deepEqual(readKeptHandshake(cache, 'k1', 'b1')?.result, RESULT);
      assert.equal(readKeptHandshake(cache, 'k2', 'b1'), undefined, 'another start');
      assert.equal(readKeptHandshake(cache, 'k1', 'b2'), undefined, 'another bundle');
      assert.equal(readKeptHandshake(cache, 'k1', undefined), undefined, 'a bundle that cannot be read');
      fs.writeFileSync(config, '{"version": 3 }');
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'the configuration changed');
      fs.writeFileSync(config, '{"version": 3}');
      assert.ok(readKeptHandshake(cache, 'k1', 'b1'), 'and back');
      fs.rmSync(config);
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'the configuration removed');
      assert.equal(keep(), true, 'kept with no configuration file');
      assert.ok(readKeptHandshake(cache, 'k1', 'b1'));
      fs.writeFileSync(config, '{}');
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'a configuration file made since');
      fs.rmSync(config);
      fs.rmSync(workspace, { recursive: true });
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'the workspace gone');
      fs.writeFileSync(workspace, 'a file');
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'the workspace a file');
    });

    it('is not used when others may write it, or when it is not one', () => {
      assert.equal(keep(), true);
      const cache = path.join(dir, 'cache');
      const file = path.join(cache, fs.readdirSync(cache)[0]);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      fs.chmodSync(file, 0o620);
      assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, 'group-writable');
      fs.chmodSync(file, 0o600);
      const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      for (const broken of ['', '{', JSON.stringify({ ...record, v: 2 }), JSON.stringify({ ...record, result: { protocolVersion: 1 } }), JSON.stringify({ ...record, supported: '2025-06-18' })]) {
        fs.writeFileSync(file, broken);
        assert.equal(readKeptHandshake(cache, 'k1', 'b1'), undefined, broken.slice(0, 40));
      }
    });

    it('is named by every argument, the working folder and the variables the server reads, and not by the editor bridge', () => {
      const env = { HOME: '/h', NOTESAPP_CONFIG_PATH: '/c.json', PATH: '/bin', NOTESAPP_BRIDGE_TOKEN: 'secret', NOTESAPP_BRIDGE_ADDRESS: '/s' };
      const key = handshakeKey(['--workspace', '/w'], env, '/');
      assert.equal(handshakeKey(['--workspace', '/w'], { ...env, PATH: '/usr/bin', NOTESAPP_BRIDGE_TOKEN: 'other' }, '/'), key);
      assert.ok(!key.includes('secret'));
      assert.notEqual(handshakeKey(['--workspace', '/v'], env, '/'), key);
      assert.notEqual(handshakeKey(['--workspace', '/w'], env, '/tmp'), key);
      assert.notEqual(handshakeKey(['--workspace', '/w'], { ...env, HOME: '/g' }, '/'), key);
      assert.notEqual(handshakeKey(['--workspace', '/w'], { ...env, NOTESAPP_WORKSPACE: '/x' }, '/'), key);
    });
  });

  describe('the input', () => {
    it('is put back whole, and its end still comes to the server', async () => {
      const stdin = new PassThrough();
      const line = `${initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT })}\n`;
      const rest = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
      stdin.end(line + rest);
      stdin.on('readable', () => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      stdin.removeAllListeners('readable');
      const written: Buffer[] = [];
      const answer = answerBuffered(stdin, keptFor(), (bytes) => written.push(bytes));
      assert.ok(answer);
      assert.deepEqual(written, [answer.line]);
      // As the transport reads it, later.
      await new Promise((resolve) => setImmediate(resolve));
      const chunks: Buffer[] = [];
      const ended = new Promise((resolve) => stdin.on('end', resolve));
      stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
      await ended;
      assert.equal(Buffer.concat(chunks).toString(), line + rest);
    });

    it('is not read when nothing has come, so that its end is the server\'s to see', async () => {
      const stdin = new PassThrough();
      // Reading starts before anything comes (the loader listens as its script ends, before the event loop reads).
      stdin.on('readable', () => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      stdin.end();
      await new Promise((resolve) => setImmediate(resolve));
      stdin.removeAllListeners('readable');
      assert.equal(answerBuffered(stdin, keptFor(), () => assert.fail('nothing to answer')), undefined);
      const ended = new Promise((resolve) => stdin.on('end', resolve));
      stdin.on('data', () => undefined);
      await ended;
    });

    it('answers nothing for a line not whole yet, or when the answer cannot be written', async () => {
      for (const [text, write] of [
        ['{"jsonrpc":"2.0","id":0,"method":"initia', () => undefined],
        [`${initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT })}\n`, () => { throw new Error('EPIPE'); }],
      ] as Array<[string, () => void]>) {
        const stdin = new PassThrough();
        stdin.write(text);
        stdin.on('readable', () => undefined);
        await new Promise((resolve) => setImmediate(resolve));
        stdin.removeAllListeners('readable');
        assert.equal(answerBuffered(stdin, keptFor(), write), undefined);
        assert.equal(stdin.read()?.toString(), text, 'put back');
      }
    });
  });

  describe('in the built server', function () {
    this.timeout(60_000);
    let dir: string;
    let workspace: string;
    let config: string;
    let home: string;
    beforeEach(() => {
      assert.ok(fs.existsSync(serverJs), 'dist/server.js is built (npm run build)');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'early-init-server-'));
      workspace = path.join(dir, 'notes');
      home = path.join(dir, 'home');
      fs.mkdirSync(workspace);
      fs.mkdirSync(home);
      fs.writeFileSync(path.join(workspace, 'a.md'), '# A\n');
      config = path.join(dir, 'config.json');
      fs.writeFileSync(config, JSON.stringify({ version: '1.1.0', development: { debugLogging: true } }));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const INIT = `${initialize({ protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo: CLIENT })}\n`;
    const AFTER = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n';

    /** A start as a client makes it: the initialize sent at once. Resolves with the lines written and stderr once tools/list is answered and stdin ended. */
    function run(first: string, env: Record<string, string> = {}, { after = AFTER, endInput = false, nodeArgs = [] as string[] } = {}): Promise<{ lines: string[]; stderr: string; code: number | null }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [...nodeArgs, serverJs, '--workspace', workspace, '--config', config], {
          env: { PATH: process.env.PATH ?? '', HOME: home, USERPROFILE: home, NOTESAPP_CACHE_DIR: path.join(dir, 'cache'), ...env },
          stdio: 'pipe',
        });
        const lines: string[] = [];
        let out = '';
        let stderr = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`no answer; stdout ${out} stderr ${stderr}`));
        }, 30_000);
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          let nl: number;
          while ((nl = out.indexOf('\n')) >= 0) {
            const line = out.slice(0, nl);
            out = out.slice(nl + 1);
            lines.push(line);
            const id = (JSON.parse(line) as { id?: unknown }).id;
            // The first line answers initialize.
            if (lines.length === 1 && !endInput) child.stdin.write(after);
            if (id === 1) child.stdin.end();
          }
        });
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ lines, stderr, code });
        });
        child.stdin.write(first);
        if (endInput) child.stdin.end();
      });
    }
    const answeredEarly = /initialize was answered by the loader as the server started \(the same answer\)/;

    it('answers from the last start made the same way, byte for byte as the server, once', async () => {
      const first = await run(INIT);
      assert.doesNotMatch(first.stderr, answeredEarly);
      assert.equal(first.lines.length, 2);
      const second = await run(INIT);
      assert.match(second.stderr, answeredEarly);
      assert.doesNotMatch(second.stderr, /not as the server does/);
      assert.deepEqual(second.lines, first.lines, 'the same two lines: one answer to initialize, one to tools/list');
      // Another id and version: answered for them.
      const other = await run(`${initialize({ protocolVersion: '2025-03-26', capabilities: {}, clientInfo: CLIENT }, 'x')}\n`, {}, { after: AFTER });
      assert.match(other.stderr, answeredEarly);
      const reply = JSON.parse(other.lines[0]) as { id: unknown; result: { protocolVersion: string } };
      assert.equal(reply.id, 'x');
      assert.equal(reply.result.protocolVersion, '2025-03-26');
    });

    it('answers as the new configuration says once it changed, and not for other requests or with the answer turned off', async () => {
      await run(INIT);
      fs.writeFileSync(config, JSON.stringify({ version: '1.1.0', development: { debugLogging: true }, integrations: { mcp: { tools: { editor: false } } } }));
      const changed = await run(INIT);
      assert.doesNotMatch(changed.stderr, answeredEarly, 'the configuration changed: the server answers');
      assert.match(JSON.parse(changed.lines[0]).result.instructions, /Disabled tool categories/);
      const next = await run(INIT);
      assert.match(next.stderr, answeredEarly);
      assert.equal(next.lines[0], changed.lines[0]);
      const icons = await run(`${initialize({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { ...CLIENT, icons: [] } })}\n`);
      assert.doesNotMatch(icons.stderr, answeredEarly);
      assert.equal(JSON.parse(icons.lines[0]).result.protocolVersion, '2025-06-18');
      const off = await run(INIT, { NOTESAPP_EARLY_INITIALIZE: 'off' });
      assert.doesNotMatch(off.stderr, answeredEarly);
      assert.equal(off.lines[0], changed.lines[0]);
    });

    it('answers a start from the start-up snapshot as well, with the answer a start from the code cache kept', async () => {
      const made = await buildStartupSnapshot({ distDir: path.dirname(serverJs), runtime: process.execPath, env: { ...process.env, NOTESAPP_CACHE_DIR: path.join(dir, 'cache'), NOTESAPP_SNAPSHOT_STARTS: '0' } });
      assert.ok(made.ok, JSON.stringify(made));
      const fromSnapshot = { nodeArgs: ['--snapshot-blob', made.blob] };
      const first = await run(INIT, {}, fromSnapshot);
      assert.doesNotMatch(first.stderr, answeredEarly);
      const second = await run(INIT, {}, fromSnapshot);
      assert.match(second.stderr, answeredEarly);
      assert.deepEqual(second.lines, first.lines);
      const fromCodeCache = await run(INIT);
      assert.match(fromCodeCache.stderr, answeredEarly, 'the same start but for the snapshot: the same answer');
      assert.deepEqual(fromCodeCache.lines, first.lines);
    });

    it('takes a request of the same id right after its answer (the client has its answer), and logs the initialize by its client\'s id', async () => {
      await run(INIT);
      const again = await run(INIT, {}, { after: '{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":0,"method":"ping"}\n{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n' });
      assert.match(again.stderr, answeredEarly);
      assert.equal(again.lines.length, 3, again.lines.join('\n'));
      assert.equal(again.lines[1], '{"result":{},"jsonrpc":"2.0","id":0}', 'the ping answered, not refused as a duplicate');
      assert.match(again.stderr, /initialize ok in \d+ ms \{"id":0\}/, 'logged by its own id');
    });

    it('takes requests sent with it, and input that ends right after it', async () => {
      await run(INIT);
      const together = await run(INIT + AFTER, {}, { after: '' });
      assert.match(together.stderr, answeredEarly);
      assert.deepEqual(together.lines.map((l) => JSON.parse(l).id), [0, 1]);
      const ended = await run(INIT, {}, { endInput: true });
      assert.match(ended.stderr, answeredEarly);
      assert.equal(ended.lines.length, 1);
      assert.equal(ended.code, 0, 'the server saw its input end and exited');
    });

    it('says so when the answer kept was not the server\'s, and keeps the server\'s for the next start', async () => {
      await run(INIT);
      const cache = path.join(dir, 'cache');
      const file = path.join(cache, fs.readdirSync(cache).find((name) => name.startsWith('initialize-')) ?? '');
      const record = JSON.parse(fs.readFileSync(file, 'utf8')) as KeptHandshake;
      fs.writeFileSync(file, JSON.stringify({ ...record, result: { ...record.result, instructions: 'Stale.' } }));
      const stale = await run(INIT);
      assert.match(stale.stderr, /the loader answered initialize as the server started, but not as the server does/);
      assert.equal(stale.lines.filter((l) => JSON.parse(l).id === 0).length, 1, 'one answer to the request');
      assert.equal(JSON.parse(stale.lines[0]).result.instructions, 'Stale.');
      const next = await run(INIT);
      assert.match(next.stderr, answeredEarly);
      assert.notEqual(JSON.parse(next.lines[0]).result.instructions, 'Stale.');
    });
  });
});
