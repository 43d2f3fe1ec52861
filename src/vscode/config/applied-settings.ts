// Writes the configuration's VS Code settings ([markdown] or workspace scope only) and takes them back exactly.
import { isDeepStrictEqual } from 'node:util';
import * as vscode from 'vscode';
import type { NotesConfig } from '../../core/config/schema';
import { joinSetting, unjoinSetting, vscodeSettingsFor, type SettingJoin, type SettingScope, type SettingWrite } from './settings-map';
import { SerialQueue } from '../../core/config/serial-queue';

/** What we wrote, and what was there before, so that removal restores the folder's own value. */
interface AppliedEntry {
  scope: SettingScope;
  key: string;
  /** Our part of the value (see SettingWrite.join). */
  value: unknown;
  join?: SettingJoin;
  /** The folder's value before we first wrote. */
  previous: unknown;
}

const STATE_KEY = 'notesapp.appliedSettings';
const ENABLED_KEY = 'notesapp.applySettings';

function id(scope: SettingScope, key: string): string {
  return `${scope}:${key}`;
}

/**
 * Applies and removes the mapped settings. Only the opened folder's settings are written (the `[markdown]`
 * block and plain keys of `.vscode/settings.json`); with no folder open nothing is written, because the
 * only other place is the user's own settings. The record of what was written lives in workspace state.
 */
export class AppliedSettings {
  private readonly queue = new SerialQueue();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    /** Extra settings that are not part of the mapping (the JSON schema association of an overridden path). */
    private readonly extra: () => SettingWrite[] = () => [],
  ) {}

  /** true: applied in this folder; false: the user said no or removed them; undefined: not asked yet. */
  get enabled(): boolean | undefined {
    return this.state.get<boolean>(ENABLED_KEY);
  }

  async decline(): Promise<void> {
    await this.state.update(ENABLED_KEY, false);
  }

  /** Keys currently written by us, e.g. `markdown:editor.fontSize`. */
  appliedKeys(): string[] {
    return Object.keys(this.record());
  }

  /**
   * Makes the folder's settings match `config`; keys that the config no longer asks for are taken back. A setting
   * the user changed since it was applied stays theirs unless the config's value for it changed; `enable` (the
   * "Apply" command, the first-run answer) applies every value again.
   */
  apply(config: NotesConfig, { enable = false } = {}): Promise<void> {
    return this.queue.run(async () => {
      if (enable) await this.state.update(ENABLED_KEY, true);
      if (this.enabled !== true) return;
      if (!vscode.workspace.workspaceFolders?.length) {
        this.log.info('No folder is open: the configuration is not applied to VS Code settings (only folder settings are ever written).');
        return;
      }
      const record = this.record();
      const wanted = [...vscodeSettingsFor(config), ...this.extra()];
      const wantedIds = new Set(wanted.map((w) => id(w.scope, w.key)));
      for (const [entryId, entry] of Object.entries(record)) {
        // A removal VS Code refused stays on record, to be tried again next time.
        if (!wantedIds.has(entryId) && (await this.restore(entry)) !== 'failed') delete record[entryId];
      }
      for (const write of wanted) {
        const entryId = id(write.scope, write.key);
        const current = this.current(write.scope, write.key);
        const entry = record[entryId] ?? { ...write, previous: current };
        // What we wrote last time tells a value the user changed since (theirs) from ours; `enable` writes over it.
        const target = joinSetting(write.join ?? 'replace', current, write.value, entry.previous, record[entryId]?.value, { overUsers: enable });
        // A write VS Code refused left the earlier value in place: the record keeps what is really there (ours of
        // last time, or nothing of ours), so that removal still finds it and the next apply tries again.
        if (!isDeepStrictEqual(current, target) && !(await this.write(write.scope, write.key, target))) continue;
        record[entryId] = { ...entry, value: write.value, join: write.join };
      }
      await this.state.update(STATE_KEY, record);
    });
  }

  /**
   * Takes back every setting we wrote (restoring the folder's earlier value) and stops applying until
   * `apply(config, { enable: true })`. A setting the user has changed since is theirs and stays. A setting whose
   * write VS Code refused stays on record (`appliedKeys()`), for the next removal to take back.
   */
  remove(): Promise<string[]> {
    return this.queue.run(async () => {
      const removed: string[] = [];
      const record = this.record();
      for (const [entryId, entry] of Object.entries(record)) {
        const outcome = await this.restore(entry);
        if (outcome === 'restored') removed.push(entryId);
        if (outcome !== 'failed') delete record[entryId];
      }
      await this.state.update(STATE_KEY, record);
      await this.state.update(ENABLED_KEY, false);
      return removed;
    });
  }

  private record(): Record<string, AppliedEntry> {
    return structuredClone(this.state.get<Record<string, AppliedEntry>>(STATE_KEY, {}));
  }

  /** Puts the folder's earlier value back: `theirs` when the user changed it since (it stays), `failed` when VS Code refused. */
  private async restore(entry: AppliedEntry): Promise<'restored' | 'theirs' | 'failed'> {
    const current = this.current(entry.scope, entry.key);
    const restored = unjoinSetting(entry.join ?? 'replace', current, entry.value, entry.previous);
    if (restored === 'unchanged') {
      this.log.info(`Leaving ${entry.key} (${entry.scope}) alone: it was changed after it was applied`);
      return 'theirs';
    }
    if (isDeepStrictEqual(current, restored.value)) return 'restored';
    return (await this.write(entry.scope, entry.key, restored.value)) ? 'restored' : 'failed';
  }

  private current(scope: SettingScope, key: string): unknown {
    const inspected =
      scope === 'markdown'
        ? vscode.workspace.getConfiguration(undefined, { languageId: 'markdown' }).inspect(key)
        : vscode.workspace.getConfiguration().inspect(key);
    return scope === 'markdown' ? inspected?.workspaceLanguageValue : inspected?.workspaceValue;
  }

  private async write(scope: SettingScope, key: string, value: unknown): Promise<boolean> {
    try {
      if (scope === 'markdown') {
        await vscode.workspace
          .getConfiguration(undefined, { languageId: 'markdown' })
          .update(key, value, vscode.ConfigurationTarget.Workspace, true);
      } else {
        await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Workspace);
      }
      return true;
    } catch (err) {
      // A setting unknown to this VS Code (an extension that is not installed) must not stop the others.
      this.log.warn(`Could not write ${scope === 'markdown' ? '[markdown] ' : ''}${key}: ${(err as Error).message}`);
      return false;
    }
  }
}
