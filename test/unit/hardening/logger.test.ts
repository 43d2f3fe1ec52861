// Server logs: stderr and a bounded, rotated file; request outcomes at info; secrets never written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectSecrets, Logger } from '../../../server/logger';
import { RawServer } from './raw-server';

describe('Logger', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-log-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const sink = () => {
    const lines: string[] = [];
    return { lines, write: (t: string) => lines.push(t) };
  };

  it('writes each line to stderr and the file, at or above its level', () => {
    const err = sink();
    const file = path.join(dir, 'logs', 'mcp-server.log');
    const logger = new Logger({ file, stderr: err, level: 'info' });
    logger.log('debug', 'hidden detail');
    logger.log('info', 'tools/call read_file ok in 3 ms');
    logger.log('error', 'boom');
    logger.close();
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /^\S+Z \[info\] tools\/call read_file ok in 3 ms\n\S+Z \[error\] boom\n$/);
    assert.equal(err.lines.join(''), text);
  });

  it('rotates at the size bound and keeps a fixed number of old files', () => {
    const file = path.join(dir, 'mcp-server.log');
    const logger = new Logger({ file, stderr: sink(), maxBytes: 1000, maxFiles: 2 });
    for (let i = 0; i < 200; i++) logger.log('info', `line ${i} ${'x'.repeat(30)}`);
    logger.close();
    assert.deepEqual(fs.readdirSync(dir).sort(), ['mcp-server.log', 'mcp-server.log.1', 'mcp-server.log.2']);
    for (const f of fs.readdirSync(dir)) assert.ok(fs.statSync(path.join(dir, f)).size <= 1000, f);
    assert.match(fs.readFileSync(file, 'utf8'), /line 199 x+\n$/);
    assert.match(fs.readFileSync(`${file}.1`, 'utf8'), /line \d+/);
  });

  it('writes the file again after it was deleted, from the next rotation on', () => {
    const file = path.join(dir, 'mcp-server.log');
    const logger = new Logger({ file, stderr: sink(), maxBytes: 1000 });
    logger.log('info', 'before the file was deleted');
    fs.rmSync(file);
    for (let i = 0; i < 50; i++) logger.log('info', `line ${i} ${'x'.repeat(30)}`);
    logger.close();
    assert.ok(fs.existsSync(file), 'a new log file was started');
    assert.match(fs.readFileSync(file, 'utf8'), /line 49 x+\n$/);
  });

  it('never writes a secret, in the message or in fields', () => {
    const err = sink();
    const file = path.join(dir, 'mcp-server.log');
    const logger = new Logger({ file, stderr: err, secrets: ['sk-live-0123456789'] });
    logger.log('info', 'plugin said sk-live-0123456789 twice: sk-live-0123456789');
    logger.log('info', 'settings', { plugin: 'ai', apiKey: 'abc-short', nested: { Authorization: 'Bearer x', ok: 1 } });
    logger.close();
    const text = fs.readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /sk-live|abc-short|Bearer/);
    assert.match(text, /plugin said \[redacted\] twice: \[redacted\]/);
    assert.match(text, /"apiKey":"\[redacted\]","nested":\{"Authorization":"\[redacted\]","ok":1\}/);
    assert.doesNotMatch(err.lines.join(''), /sk-live|abc-short|Bearer/);
  });

  it('keeps running on stderr alone when the log folder cannot be created', () => {
    const err = sink();
    fs.writeFileSync(path.join(dir, 'blocker'), '');
    const logger = new Logger({ file: path.join(dir, 'blocker', 'logs', 'x.log'), stderr: err });
    logger.log('info', 'still here');
    assert.match(err.lines.join(''), /cannot write the log file[\s\S]*still here/);
  });

  it('finds secrets in plugin settings and under secret-named keys', () => {
    const secrets = collectSecrets({
      plugins: { settings: { ai: { apiKey: 'k1', model: 'a-long-model-name', retries: 3 }, other: { region: 'eu' } } },
      integrations: { mail: { password: 'hunter2' } },
    } as { plugins: { settings: unknown } });
    assert.deepEqual(secrets.sort(), ['a-long-model-name', 'hunter2', 'k1'].sort());
  });
});

describe('server logs over real stdio', function () {
  this.timeout(20_000);
  const SECRET = 'sk-test-SECRET-0123456789';
  let server: RawServer;
  let home: string;
  afterEach(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('logs method, duration and outcome to ~/.notesapp/logs/mcp-server.log and stderr, never stdout, never the apiKey', async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-cfg-'));
    const config = path.join(home, 'config.json');
    fs.writeFileSync(
      config,
      JSON.stringify({ plugins: { enabled: [], settings: { 'ai-helper': { apiKey: SECRET } } }, development: { debugLogging: true } }),
    );
    server = new RawServer({ args: ['--config', config] });
    await server.initialize();
    await server.request('p1', 'ping');
    await server.request('m1', 'no/such-method', { note: `the key is ${SECRET}` });
    server.write('not json\n');
    await server.request('p2', 'ping');
    await server.waitForStderr(/ping ok in \d+ ms[\s\S]*ping ok in \d+ ms/);
    const log = fs.readFileSync(server.logFile, 'utf8');
    assert.match(log, /\[info\] initialize ok in \d+ ms/);
    assert.match(log, /\[info\] ping ok in \d+ ms \{"id":"p1"\}/);
    assert.match(log, /\[warn\] no\/such-method error -32601 in \d+ ms \{"id":"m1"\}/);
    assert.match(log, /\[warn\] bad input: line of 8 bytes is not JSON/);
    assert.ok(!log.includes(SECRET) && !server.stderr.includes(SECRET), 'the apiKey is never logged');
    assert.deepEqual(server.strayStdout, []);
  });
  it('logs a burst of bad lines as the first one and, a second later, how many more came', async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-cfg-'));
    server = new RawServer();
    await server.initialize();
    server.write('not json\n'.repeat(100));
    await server.waitForStderr(/bad input: line of 8 bytes is not JSON\n/);
    // Nothing more comes: the other 99 are logged once the second is over, not only at the next bad line.
    await server.waitForStderr(/bad input: 99 bad messages since the last report, the last: line of 8 bytes is not JSON/, 5000);
    assert.equal(server.messages.filter((m) => m.error?.code === -32700).length, 100, 'each line was answered');
    assert.equal(server.stderr.match(/bad input/g)?.length, 2, 'two log lines for the burst');
  });
});
