// Test helper: the built server as a child process spoken to in raw bytes, its stdout parsed line by line.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const serverJs = path.resolve(__dirname, '../../../dist/server.js');

export interface RpcMessage {
  jsonrpc: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  method?: string;
}

export interface RawServerOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Workspace folder; a fresh temporary one when omitted. */
  workspace?: string;
  /** Written as config.json before the server starts; absent: no config file (the defaults). */
  config?: Record<string, unknown>;
}

export class RawServer {
  readonly messages: RpcMessage[] = [];
  /** Lines on stdout that were not JSON: must stay empty (stdout is for protocol only). */
  readonly strayStdout: string[] = [];
  stderr = '';
  readonly home: string;
  readonly workspace: string;
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  private readonly events = new EventEmitter();
  private pending = '';

  constructor(options: RawServerOptions = {}) {
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-home-'));
    this.workspace = options.workspace ?? fs.mkdtempSync(path.join(os.tmpdir(), 'notes-ws-'));
    assert.ok(fs.existsSync(serverJs), 'dist/server.js is built (npm run build)');
    if (options.config) fs.writeFileSync(path.join(this.home, 'config.json'), JSON.stringify(options.config));
    this.child = spawn(
      process.execPath,
      [serverJs, '--workspace', this.workspace, '--config', path.join(this.home, 'config.json'), ...(options.args ?? [])],
      { env: { ...process.env, HOME: this.home, USERPROFILE: this.home, ...options.env }, stdio: 'pipe' },
    );
    this.events.setMaxListeners(0);
    this.child.setMaxListeners(0);
    this.child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.events.emit('stderr');
    });
    this.child.stdin.on('error', () => undefined); // writes after a kill
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  get logFile(): string {
    return path.join(this.home, '.notesapp', 'logs', 'mcp-server.log');
  }

  write(data: Buffer | string): void {
    this.child.stdin.write(data);
  }

  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and resolves with the response carrying its id. */
  request(id: string | number, method: string, params?: unknown): Promise<RpcMessage> {
    const reply = this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined));
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return reply;
  }

  /** The handshake; `id`: the initialize request's (the MCP SDK's clients send 0). */
  async initialize(id: string | number = 'init'): Promise<void> {
    const r = await this.request(id, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '1.0.0' },
    });
    assert.ok(r.result, JSON.stringify(r));
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Resolves with the first message (already received or coming) that matches. */
  waitFor(match: (m: RpcMessage) => boolean, from = 0): Promise<RpcMessage> {
    return new Promise((resolve, reject) => {
      let scanned = from;
      const check = (): boolean => {
        let found: RpcMessage | undefined;
        while (found === undefined && scanned < this.messages.length) {
          const m = this.messages[scanned++];
          if (match(m)) found = m;
        }
        if (found) {
          this.events.off('message', check);
          this.child.off('exit', onExit);
          resolve(found);
        }
        return found !== undefined;
      };
      const onExit = (): void => {
        this.events.off('message', check);
        reject(new Error(`server exited before the expected message; stderr:\n${this.stderr.slice(-2000)}`));
      };
      if (check()) return;
      this.events.on('message', check);
      this.child.once('exit', onExit);
    });
  }

  /** Resolves when stderr contains `pattern`; rejects after `ms` (stderr and stdout are separate pipes, in any order). */
  waitForStderr(pattern: RegExp, ms = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('stderr', check);
        reject(new Error(`stderr did not show ${pattern} within ${ms} ms; stderr:\n${this.stderr.slice(-2000)}`));
      }, ms);
      const check = (): void => {
        if (pattern.test(this.stderr)) {
          clearTimeout(timer);
          this.events.off('stderr', check);
          resolve();
        }
      };
      this.events.on('stderr', check);
      check();
    });
  }

  /** Ends its input, waits for it to exit, and removes its home and (unless kept for another start) its workspace. */
  async stop({ keepWorkspace = false } = {}): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
      await this.exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.home, { recursive: true, force: true });
    if (!keepWorkspace) fs.rmSync(this.workspace, { recursive: true, force: true });
  }

  private onStdout(chunk: Buffer): void {
    this.pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) !== -1) {
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      try {
        this.messages.push(JSON.parse(line) as RpcMessage);
      } catch {
        this.strayStdout.push(line);
      }
      this.events.emit('message');
    }
  }
}
