// Spawn -> initialize response, measured on the raw pipe (no client library in the timed path).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const INIT = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/** Milliseconds from spawn to the first complete line on stdout that answers id 1. */
/** lingerMs keeps the process alive after the response (lets it finish start-up work such as its code cache). */
export function timeInitialize(command, args, { cwd, env, timeoutMs = 15_000, lingerMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no initialize response within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n').slice(0, -1)) {
        try {
          const msg = JSON.parse(line);
          if (msg.id === 1 && msg.result) {
            const elapsed = performance.now() - started;
            clearTimeout(timer);
            setTimeout(() => {
              child.kill('SIGKILL');
              resolve(elapsed);
            }, lingerMs);
            return;
          }
        } catch {
          // not a complete JSON line yet
        }
      }
    });
    child.on('error', reject);
    child.stdin.write(INIT);
  });
}
