// A minimal MCP client over stdio for the benchmarks: frames replies by newline and parses each once. The SDK's
// Client copies its whole read buffer for every chunk the pipe delivers, so a large answer costs it time that
// grows with the square of the answer's size; this client shows how much of a measured time is the server's.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export class LineClient {
  /** Spawns `command args` and completes the initialize handshake; `stderr: 'pipe'` gives the server's log to read. */
  static async start(command, args, env = process.env, { stderr = 'ignore' } = {}) {
    const client = new LineClient(spawn(command, args, { env, stdio: ['pipe', 'pipe', stderr] }));
    await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-line-client', version: '1' } });
    client.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return client;
  }

  constructor(child) {
    this.child = child;
    this.nextId = 1;
    this.waiting = new Map();
    this.chunks = [];
    child.stdout.on('data', (chunk) => this.onData(chunk));
    child.on('exit', () => {
      for (const { reject } of this.waiting.values()) reject(new Error('the server exited'));
      this.waiting.clear();
    });
  }

  onData(chunk) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      start = nl + 1;
      const message = JSON.parse(line);
      const waiter = this.waiting.get(message.id);
      if (!waiter) continue;
      this.waiting.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve({ result: message.result, line });
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  async request(method, params) {
    return (await this.requestWithLine(method, params)).result;
  }

  /** The result, and the whole reply line as the server wrote it (its bytes, decoded). */
  requestWithLine(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Milliseconds from sending tools/call to its parsed result, the result, and the reply line as written. */
  async timedCall(name, args) {
    const t = performance.now();
    const { result, line } = await this.requestWithLine('tools/call', { name, arguments: args });
    if (result.isError) throw new Error(result.content?.[0]?.text ?? 'tool error');
    return { ms: performance.now() - t, result, line };
  }

  close() {
    this.child.stdin.end();
    this.child.kill();
  }
}
