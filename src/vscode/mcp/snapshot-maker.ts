// Makes the MCP server's start-up snapshot for the runtime the extension starts it with (see
// core/startup-snapshot.ts), in the background, once per runtime and server version: the next start uses it, unless
// servers started from it answered later than servers started from the code cache on this machine.
import type * as vscode from 'vscode';
import { buildStartupSnapshot, snapshotState, startsEach, type BuildResult } from '../../core/startup-snapshot';
import { serverRuntime } from './server-process';

export class SnapshotMaker {
  private readonly making = new Map<string, Promise<string>>();

  constructor(
    private readonly distDir: string,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>,
    private readonly build: typeof buildStartupSnapshot = buildStartupSnapshot,
  ) {}

  /**
   * Makes the snapshot for `nodePath` (else VS Code's own runtime) unless there is one, or that runtime could not
   * make one from this server; says what it found or did. Calls for the same runtime while one is made share it.
   */
  prepare(nodePath: string | undefined): Promise<string> {
    const { command: runtime, env } = serverRuntime(nodePath);
    const pending = this.making.get(runtime);
    if (pending) return pending;
    const job = this.run(runtime, env).finally(() => this.making.delete(runtime));
    this.making.set(runtime, job);
    return job;
  }

  private async run(runtime: string, runtimeEnv: Record<string, string>): Promise<string> {
    const state = snapshotState(this.distDir, runtime);
    if (state.state === 'ready') return `start-up snapshot for ${runtime}: ${state.blob}`;
    if (state.state === 'off') return `no start-up snapshot: ${state.reason}`;
    if (state.state === 'failed' || state.state === 'slower') return `no start-up snapshot for ${runtime}: ${state.reason}`;
    let result: BuildResult;
    try {
      result = await this.build({ distDir: this.distDir, runtime, runtimeEnv });
    } catch (err) {
      result = { ok: false, reason: (err as Error).message };
    }
    const times = result.startMs;
    if (result.ok) {
      const sooner = times ? `; servers started from it answered in ${times.snapshot.toFixed(1)} ms against ${times.codeCache.toFixed(1)} ms from the code cache (${startsEach(times.starts)})` : '';
      const said = `Made a start-up snapshot of the MCP server for ${runtime} in ${result.ms} ms: the next start uses it (${result.blob})${sooner}`;
      this.log.info(said);
      return said;
    }
    const said = `No start-up snapshot of the MCP server for ${runtime}: ${result.reason}. The server starts from its code cache.`;
    // Slower here is what was measured, not a fault.
    if (times) this.log.info(said);
    else this.log.warn(said);
    return said;
  }
}
