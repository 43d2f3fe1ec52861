// Writes the bridge discovery file of each open workspace folder (mode 0600) and removes it again on dispose.
import fs from 'node:fs';
import path from 'node:path';
import type * as vscode from 'vscode';
import { discoveryFilePath } from '../../core/bridge/discovery';
import { BRIDGE_PROTOCOL_VERSION, discoveryFile, type DiscoveryFile } from '../../core/bridge/protocol';
import type { BridgeEndpoint } from './bridge-server';

export class DiscoveryFiles implements vscode.Disposable {
  private readonly written = new Set<string>();

  constructor(
    private readonly configDir: string,
    private readonly endpoint: BridgeEndpoint,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Writes one file per folder; a later window on the same folder overwrites, which is what a server should find. */
  write(workspaceFolders: readonly string[]): void {
    for (const folder of workspaceFolders) {
      const file = discoveryFilePath(this.configDir, folder);
      const record: DiscoveryFile = {
        protocolVersion: BRIDGE_PROTOCOL_VERSION,
        address: this.endpoint.address,
        token: this.endpoint.token,
        workspaceFolder: path.resolve(folder),
        pid: process.pid,
        createdAt: new Date().toISOString(),
      };
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        // Write to a private temp name first so no reader ever sees a half-written or world-readable token.
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(record, null, 2), { mode: 0o600 });
        fs.chmodSync(tmp, 0o600);
        fs.renameSync(tmp, file);
        this.written.add(file);
        this.log.info(`Editor bridge discovery file for ${folder}: ${file}`);
      } catch (err) {
        this.log.error(`Could not write the editor bridge discovery file ${file}: ${(err as Error).message}`);
      }
    }
  }

  /** Removes only files that still carry our token: another window may have taken the folder over since. */
  dispose(): void {
    for (const file of this.written) {
      try {
        const current = discoveryFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
        if (current.success && current.data.token === this.endpoint.token) fs.rmSync(file, { force: true });
      } catch {
        // Already gone or unreadable: nothing of ours to remove.
      }
    }
    this.written.clear();
  }
}
