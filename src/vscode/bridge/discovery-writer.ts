// Keeps this window's bridge discovery files (mode 0600), one per open workspace folder, and removes them on dispose.
import fs from 'node:fs';
import path from 'node:path';
import type * as vscode from 'vscode';
import { discoveryDir, discoveryDirProblem, discoveryFilePath, parseDiscoveryFileName, processAlive } from '../../core/bridge/discovery';
import { BRIDGE_PROTOCOL_VERSION, discoveryFile, type DiscoveryFile } from '../../core/bridge/protocol';
import type { BridgeEndpoint } from './bridge-server';

export class DiscoveryFiles implements vscode.Disposable {
  /** Folder → the file written for it. */
  private readonly written = new Map<string, string>();

  constructor(
    private readonly configDir: string,
    private readonly endpoint: BridgeEndpoint,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'>,
    private readonly pid = process.pid,
  ) {}

  /**
   * Makes the files match the open folders: writes one for each folder that has none yet, and removes the file of
   * each folder no longer open, so a server of a removed folder does not reach this window.
   */
  sync(workspaceFolders: readonly string[]): void {
    const open = new Set(workspaceFolders.map((f) => path.resolve(f)));
    for (const [folder, file] of this.written) {
      if (open.has(folder)) continue;
      this.remove(file);
      this.written.delete(folder);
    }
    for (const folder of open) {
      if (!this.written.has(folder)) this.write(folder);
    }
  }

  /**
   * Marks this window as the one used last (the file's modification time): when several windows have the folder
   * open, a server connecting picks the one focused most recently.
   */
  touch(): void {
    const now = new Date();
    for (const file of this.written.values()) {
      try {
        fs.utimesSync(file, now, now);
      } catch {
        // Removed by hand meanwhile: the next sync does not bring it back, and nothing else depends on it.
      }
    }
  }

  private write(folder: string): void {
    const file = discoveryFilePath(this.configDir, folder, this.pid);
    const record: DiscoveryFile = {
      protocolVersion: BRIDGE_PROTOCOL_VERSION,
      address: this.endpoint.address,
      token: this.endpoint.token,
      workspaceFolder: folder,
      pid: this.pid,
      createdAt: new Date().toISOString(),
    };
    try {
      const dir = path.dirname(file);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // A folder made by hand, or by something with a looser umask before: servers take no file from it until it
      // is private again. One of another user's is left alone, and no token goes there.
      const problem = discoveryDirProblem(dir);
      if (problem && !problem.fixable) throw new Error(`the folder ${dir} is ${problem.why}`);
      if (problem) {
        fs.chmodSync(dir, 0o700);
        this.log.info(`Made the editor bridge discovery folder ${dir} private (0700): it was ${problem.why}`);
      }
      this.removeStale(folder);
      // Write to a private temp name first so no reader ever sees a half-written or world-readable token. Made anew
      // ('wx': a link or file found at that name, which someone else may have put there, is removed, never written
      // through), so the token goes into a file of this user's only.
      const tmp = `${file}.tmp`;
      fs.rmSync(tmp, { force: true });
      fs.writeFileSync(tmp, JSON.stringify(record, null, 2), { mode: 0o600, flag: 'wx' });
      fs.chmodSync(tmp, 0o600);
      fs.renameSync(tmp, file);
      this.written.set(folder, file);
      this.log.info(`Editor bridge discovery file for ${folder}: ${file}`);
    } catch (err) {
      this.log.error(`Could not write the editor bridge discovery file ${file}: ${(err as Error).message}`);
    }
  }

  /**
   * Files of windows that ended without removing theirs (a crash, a kill), and the temporary files of writes they
   * did not finish: their process is gone.
   */
  private removeStale(folder: string): void {
    const dir = discoveryDir(this.configDir);
    for (const name of fs.readdirSync(dir)) {
      const pid = parseDiscoveryFileName(name, folder)?.pid;
      if (pid !== undefined && pid !== this.pid && !processAlive(pid)) {
        fs.rmSync(path.join(dir, name), { force: true });
        this.log.info(`Removed the editor bridge discovery file of a window that is gone: ${name}`);
      }
    }
  }

  /** Removes the file only while it still carries our token: it is ours by name, but check before deleting. */
  private remove(file: string): void {
    try {
      const current = discoveryFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
      if (current.success && current.data.token === this.endpoint.token) fs.rmSync(file, { force: true });
    } catch {
      // Already gone or unreadable: nothing of ours to remove.
    }
  }

  dispose(): void {
    for (const file of this.written.values()) this.remove(file);
    this.written.clear();
  }
}
