// Owns the MCP server child process and the MCP client on it: start, stop, restart, health, crash recovery.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as vscode from 'vscode';
import { childEnvironment, launchCommand, notesFolderProblem, runtimeProblem, type LaunchOptions } from './server-process';
import { stdioUrl, type ServerStatus } from './status';

export interface ServerManagerOptions {
  /** Read at every start, so configuration changes apply to the next start. */
  launch: () => LaunchOptions;
  /** `integrations.mcp.port` from the configuration. */
  configuredPort: () => number;
  log: vscode.LogOutputChannel;
  /** Shows a crash to the user. */
  notify: (message: string) => void;
  clientVersion: string;
  /** Connect (spawn + initialize) must finish within this. */
  startTimeoutMs?: number;
  /** Graceful stop (close stdin, SIGTERM) gets this long before the child is killed. */
  stopTimeoutMs?: number;
  /** Delays before automatic restarts after crashes; their count bounds the attempts. */
  restartDelaysMs?: readonly number[];
  /** A run this long counts as healthy again and resets the restart budget. */
  stableAfterMs?: number;
  /**
   * The server did not start from the start-up snapshot `blob` but started without it: the snapshot is at fault
   * (`reason`: what the failed start said), and is not to be used again.
   */
  snapshotFailed?: (blob: string, reason: string) => void;
}

interface Running {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  /** The port the server was started with: the configuration's port is read only at start. */
  port: number;
  /** The notes folder the server was started on (its --workspace). */
  folder: string | undefined;
  startedAt: number;
  stderrTail: string[];
}

const STDERR_LINES_KEPT = 20;

const LOG_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z \[(\w+)\] /;

/**
 * The line of the server's last stderr lines that says what went wrong, or undefined when none does. The server's
 * own info, debug and warn lines are its ordinary log, not a reason; of an uncaught error Node prints the message, the
 * stack and its version last: the message is the reason. Log prefixes (time and level) are left out.
 */
export function failureLine(tail: readonly string[]): string | undefined {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i].trim();
    if (!line || /^at /.test(line) || /^Node\.js v\d/.test(line) || /^\^+$/.test(line)) continue;
    const level = LOG_LINE.exec(line);
    if (!level) return line;
    if (level[1] === 'error') return line.slice(level[0].length);
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class ServerManager implements vscode.Disposable {
  private running: Running | undefined;
  private port: number | undefined;
  private lastError: string | null = null;
  private tools: Tool[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private restartAttempts = 0;
  private disposed = false;
  /** Operations run one at a time so a crash restart never races a user's stop. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<ServerStatus>();
  readonly onDidChangeStatus = this.changed.event;

  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private readonly restartDelaysMs: readonly number[];
  private readonly stableAfterMs: number;

  constructor(private readonly o: ServerManagerOptions) {
    this.startTimeoutMs = o.startTimeoutMs ?? 15000;
    this.stopTimeoutMs = o.stopTimeoutMs ?? 5000;
    this.restartDelaysMs = o.restartDelaysMs ?? [1000, 3000, 9000];
    this.stableAfterMs = o.stableAfterMs ?? 60000;
  }

  status(): ServerStatus {
    const r = this.running;
    return {
      is_running: r !== undefined,
      port: r ? r.port : this.nextPort(),
      pid: r ? r.pid : null,
      url: r ? stdioUrl(this.o.launch().serverScript) : null,
      last_error: this.lastError,
    };
  }

  /** The port the next start uses: the one given to the last start or restart, else the configuration's. */
  private nextPort(): number {
    return this.port ?? this.o.configuredPort();
  }

  /** The tools of the running server, as last listed. */
  toolList(): readonly Tool[] {
    return this.tools;
  }

  /** The MCP client on the running server, for "Run MCP Tool". */
  client(): Client | undefined {
    return this.running?.client;
  }

  /** Starting a running server changes nothing; restart applies a new port. */
  start(port?: number): Promise<ServerStatus> {
    return this.serialize(async () => {
      this.cancelPendingRestart();
      this.restartAttempts = 0;
      if (this.running) return this.status();
      if (port !== undefined) this.port = port;
      await this.spawn().catch(() => undefined); // the failure is in last_error
      return this.status();
    });
  }

  stop(): Promise<ServerStatus> {
    return this.serialize(async () => {
      this.cancelPendingRestart();
      await this.shutdown();
      this.lastError = null;
      this.emit();
      return this.status();
    });
  }

  restart(port?: number): Promise<ServerStatus> {
    return this.serialize(async () => {
      this.cancelPendingRestart();
      this.restartAttempts = 0;
      await this.shutdown();
      if (port !== undefined) this.port = port;
      await this.spawn().catch(() => undefined); // the failure is in last_error
      return this.status();
    });
  }

  /**
   * Keeps a running server on the folder the launch options name now: restarted on it when it serves another one,
   * stopped when they name none (a server started without a folder would serve whatever folder it falls back to).
   * A stopped server is left stopped.
   */
  followFolder(): Promise<ServerStatus> {
    return this.serialize(async () => {
      const r = this.running;
      const folder = this.o.launch().workspaceFolder;
      if (!r || r.folder === folder) return this.status();
      this.cancelPendingRestart();
      this.restartAttempts = 0;
      if (folder === undefined) {
        this.o.log.info(`No notes folder any more: stopping the MCP server, which served ${r.folder}`);
        await this.shutdown();
        this.lastError = null;
        this.emit();
        return this.status();
      }
      this.o.log.info(`The notes folder is now ${folder}: restarting the MCP server on it (it served ${r.folder})`);
      await this.shutdown();
      await this.spawn().catch(() => undefined); // the failure is in last_error
      return this.status();
    });
  }

  /** An MCP ping round trip within the timeout. */
  async healthCheck(timeoutMs = 5000): Promise<boolean> {
    const client = this.running?.client;
    if (!client) return false;
    try {
      await client.ping({ timeout: timeoutMs });
      return true;
    } catch (err) {
      this.o.log.warn(`Health check failed: ${(err as Error).message}`);
      return false;
    }
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private emit(): void {
    if (!this.disposed) this.changed.fire(this.status());
  }

  /**
   * `keepError`: an automatic restart leaves the crash visible in last_error until the user starts or stops.
   * `withoutSnapshot`: a start that failed from the start-up snapshot is tried once without it.
   */
  private async spawn(keepError = false, withoutSnapshot = false): Promise<void> {
    if (this.disposed) throw new Error('The Notes extension is shutting down');
    const port = this.nextPort();
    const launch = withoutSnapshot ? { ...this.o.launch(), snapshot: undefined } : this.o.launch();
    // A folder that is not there would make the spawn itself fail ("spawn node ENOENT"): say which folder instead.
    // No folder at all (gone during an automatic restart's wait) is refused too: without --workspace the server
    // would serve its working folder, the extension's own.
    const folderProblem =
      launch.workspaceFolder === undefined
        ? 'there is no notes folder (open a local folder, or set workspace.defaultPath in the configuration)'
        : notesFolderProblem(launch.workspaceFolder);
    if (folderProblem) {
      this.lastError = `The MCP server did not start: ${folderProblem}`;
      this.o.log.error(this.lastError);
      this.emit();
      throw new Error(this.lastError);
    }
    const cmd = launchCommand(launch);
    this.o.log.info(`Starting MCP server: ${cmd.command} ${cmd.args.join(' ')}`);
    const transport = new StdioClientTransport({
      command: cmd.command,
      args: cmd.args,
      env: childEnvironment(cmd.env),
      cwd: cmd.cwd,
      stderr: 'pipe',
    });
    const stderrTail: string[] = [];
    let partial = '';
    const keep = (line: string) => {
      if (!line.trim()) return;
      this.o.log.debug(`[server] ${line}`);
      stderrTail.push(line);
      if (stderrTail.length > STDERR_LINES_KEPT) stderrTail.shift();
    };
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split(/\r?\n/);
      partial = lines.pop() ?? '';
      lines.forEach(keep);
    });
    // A last line without a newline (a process killed mid-write) still counts.
    transport.stderr?.on('end', () => {
      keep(partial);
      partial = '';
    });
    const client = new Client({ name: 'notesapp-vscode', version: this.o.clientVersion });
    try {
      await withTimeout(client.connect(transport), this.startTimeoutMs, 'Starting the MCP server');
    } catch (err) {
      await client.close().catch(() => undefined);
      const pid = transport.pid;
      if (pid !== null && isAlive(pid)) process.kill(pid, 'SIGKILL');
      if (launch.snapshot && !this.disposed) {
        // A snapshot the runtime cannot use (changed on disk, say) ends the process before it runs anything. Only
        // when the server then starts without it is the snapshot at fault; otherwise the second failure is reported.
        const said = failureLine(stderrTail) ?? (err as Error).message;
        this.o.log.warn(`The MCP server did not start from its start-up snapshot ${launch.snapshot} (${said}); starting it without`);
        await this.spawn(keepError, true);
        this.o.snapshotFailed?.(launch.snapshot, said);
        return;
      }
      const runtime = runtimeProblem(launch.nodePath, err);
      const reason = failureLine(stderrTail);
      const detail = reason ? ` (${reason})` : '';
      this.lastError = `The MCP server did not start: ${runtime ?? `${(err as Error).message}${detail}`}`;
      this.o.log.error(this.lastError);
      this.emit();
      throw new Error(this.lastError, { cause: err });
    }
    const pid = transport.pid;
    if (pid === null) throw new Error('The MCP server started without a process id');
    if (this.disposed) {
      // Disposed while the server was starting: dispose() found no process to end, so this one is ended here.
      this.o.log.info(`Stopping MCP server, pid ${pid}: the extension is shutting down`);
      void client.close().catch(() => undefined);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await this.waitForExit(pid, 2000);
      throw new Error('The Notes extension is shutting down');
    }
    const running: Running = { client, transport, pid, port, folder: launch.workspaceFolder, startedAt: Date.now(), stderrTail };
    this.running = running;
    if (!keepError) this.lastError = null;
    client.onclose = () => this.onClosed(running);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshTools(running));
    await this.refreshTools(running);
    this.o.log.info(`MCP server running, pid ${pid}, ${this.tools.length} tools`);
    this.emit();
  }

  private async refreshTools(r: Running): Promise<void> {
    try {
      const { tools } = await r.client.listTools(undefined, { timeout: 10000 });
      if (this.running === r) this.tools = tools;
    } catch (err) {
      this.o.log.warn(`Could not list the server's tools: ${(err as Error).message}`);
    }
    if (this.running === r) this.emit();
  }

  /** Closes the client (stdin end, then SIGTERM, then SIGKILL inside the SDK) and makes sure the pid is gone. */
  private async shutdown(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    this.tools = [];
    this.o.log.info(`Stopping MCP server, pid ${r.pid}`);
    try {
      await withTimeout(r.client.close(), this.stopTimeoutMs, 'Stopping the MCP server');
    } catch (err) {
      this.o.log.warn(`${(err as Error).message}; killing pid ${r.pid}`);
    }
    if (isAlive(r.pid)) {
      try {
        process.kill(r.pid, 'SIGKILL');
      } catch {
        // Exited in the meantime.
      }
    }
    await this.waitForExit(r.pid, 2000);
  }

  // The SDK does not expose the child's exit event, so after SIGKILL the reaping is observed by polling.
  private async waitForExit(pid: number, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  private onClosed(r: Running): void {
    if (this.running !== r) return; // an orderly stop: shutdown() already let go of it
    this.running = undefined;
    this.tools = [];
    const reason = failureLine(r.stderrTail);
    this.lastError = `The MCP server (pid ${r.pid}) exited unexpectedly${reason ? `: ${reason}` : ''}`;
    this.o.log.error(this.lastError);
    if (Date.now() - r.startedAt >= this.stableAfterMs) this.restartAttempts = 0;
    const delay = this.restartDelaysMs[this.restartAttempts];
    if (delay === undefined || this.disposed) {
      if (!this.disposed) this.lastError += ` (no automatic restart: already restarted ${this.restartAttempts} times)`;
      this.o.notify(`${this.lastError}. Use "Notes: Start MCP Server" to try again.`);
    } else {
      this.restartAttempts += 1;
      this.o.notify(`${this.lastError}. Restarting in ${Math.round(delay / 1000)} s (attempt ${this.restartAttempts} of ${this.restartDelaysMs.length}).`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        void this.serialize(async () => {
          if (this.running || this.disposed) return;
          try {
            await this.spawn(true);
          } catch {
            // spawn() recorded the failure; a failed restart does not schedule another one.
          }
        });
      }, delay);
    }
    this.emit();
  }

  private cancelPendingRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** For deactivate: stops the server and waits until the child is gone. */
  async shutdownForDeactivate(): Promise<void> {
    this.cancelPendingRestart();
    await this.serialize(() => this.shutdown());
    this.disposed = true;
  }

  /** Last resort when VS Code disposes without awaiting deactivate: never leave the child behind. */
  dispose(): void {
    this.disposed = true;
    this.cancelPendingRestart();
    const r = this.running;
    this.running = undefined;
    if (r) {
      void r.client.close().catch(() => undefined);
      if (isAlive(r.pid)) {
        try {
          process.kill(r.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    this.changed.dispose();
  }
}
