// Spawn -> initialize response (and, for MCP servers, -> first tools/list response), measured on the raw pipe (no
// client library in the timed path).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const line = (msg) => `${JSON.stringify(msg)}\n`;
// Numbered from 0, as the MCP SDK's clients (the Inspector, Claude Desktop) number their requests.
const INIT = line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});
// What a client sends right after the initialize response.
const AFTER_INIT = line({ jsonrpc: '2.0', method: 'notifications/initialized' }) + line({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/**
 * The minor page faults a process has taken so far, all its threads together (Linux: /proc/PID/stat); undefined where
 * that cannot be read.
 */
function minorFaults(pid) {
  try {
    // The fields after the command name, which is in parentheses and may hold spaces: minflt is the 8th of them.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    const faults = Number(fields[7]);
    return Number.isInteger(faults) ? faults : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `{ init, toolsList, faults }`: milliseconds from spawn to the first complete stdout line answering id 0
 * (`initialize`); with `toolsList`, to the answer of a tools/list sent right after it (else undefined); and the minor
 * page faults the process had taken when its initialize answer arrived (undefined where they cannot be read).
 * lingerMs keeps the process alive after the response (lets it finish start-up work such as its code cache). `env` is
 * the child's whole environment (default: this process's).
 */
export function timeInitialize(command, args, { cwd, env = process.env, timeoutMs = 15_000, lingerMs = 0, toolsList = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    let init;
    let faults;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no ${init === undefined ? 'initialize' : 'tools/list'} response within ${timeoutMs} ms`));
    }, timeoutMs);
    // Resolves once the process is gone, so that the next one timed does not start while this one is torn down.
    const finish = (value) => {
      clearTimeout(timer);
      setTimeout(() => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(value);
        child.once('exit', () => resolve(value));
        child.kill('SIGKILL');
      }, lingerMs);
    };
    child.stdout.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const text of lines) {
        let msg;
        try {
          msg = JSON.parse(text);
        } catch {
          continue; // not JSON-RPC
        }
        const elapsed = performance.now() - started;
        if (msg.id === 0 && msg.result && init === undefined) {
          init = elapsed;
          faults = minorFaults(child.pid);
          if (!toolsList) return finish({ init, faults });
          child.stdin.write(AFTER_INIT);
        } else if (msg.id === 1 && init !== undefined) {
          return finish({ init, toolsList: elapsed, faults });
        }
      }
    });
    child.on('error', reject);
    child.stdin.write(INIT);
  });
}
