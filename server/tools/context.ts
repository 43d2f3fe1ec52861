// What every tool, resource and prompt shares: the guarded file access, listings, search and the editor bridge.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import path from 'node:path';
import type { NotesConfig } from '../../src/core/config/schema';
import { FileAccess } from '../../src/core/workspace/file-access';
import { isNoteFile } from '../../src/core/workspace/file-types';
import { listWorkspaceFiles } from '../../src/core/workspace/listing';
import { PathGuard } from '../../src/core/workspace/path-guard';
import { ScanSearch, type SearchBackend } from '../../src/core/workspace/search';
import { EditorBridgeClient } from '../editor-bridge-client';

export type LogFn = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface ContextDeps {
  workspaceRoot: string;
  config: NotesConfig;
  configPath: string;
  log: LogFn;
  env?: NodeJS.ProcessEnv;
}

export class NotesContext {
  readonly bridge: EditorBridgeClient;
  private guardPromise: Promise<PathGuard> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly server: McpServer,
    readonly deps: ContextDeps,
  ) {
    this.bridge = new EditorBridgeClient({ workspaceRoot: deps.workspaceRoot, configDir: path.dirname(deps.configPath), env: deps.env });
  }

  get config(): NotesConfig {
    return this.deps.config;
  }

  /** The guard is created on first use so that building the server has no side effects. */
  guard(): Promise<PathGuard> {
    this.guardPromise ??= PathGuard.create(this.deps.workspaceRoot);
    return this.guardPromise;
  }

  async files(): Promise<FileAccess> {
    const { security, files } = this.config;
    return new FileAccess(await this.guard(), {
      maxFileSize: security.maxFileSize,
      validateFileTypes: security.validateFileTypes,
      fileExtension: files.fileExtension,
      excludePatterns: files.excludePatterns,
    });
  }

  /** Every file list_files shows (files.excludePatterns, files.showHiddenFiles). */
  async listFiles(): Promise<string[]> {
    const guard = await this.guard();
    return listWorkspaceFiles(guard.realRoot, { excludePatterns: this.config.files.excludePatterns, showHiddenFiles: this.config.files.showHiddenFiles });
  }

  async listNotes(): Promise<string[]> {
    return (await this.listFiles()).filter((f) => isNoteFile(f, this.config.files.fileExtension));
  }

  async search(): Promise<SearchBackend> {
    const guard = await this.guard();
    const { search, files, security } = this.config;
    return new ScanSearch({
      root: guard.realRoot,
      // search.excludePatterns on top of the file tree's own exclusions.
      listFiles: () =>
        listWorkspaceFiles(guard.realRoot, { excludePatterns: [...files.excludePatterns, ...search.excludePatterns], showHiddenFiles: files.showHiddenFiles }),
      maxFileSize: security.maxFileSize,
      fileExtension: files.fileExtension,
    });
  }

  /** Tools that create or delete notes call this; the resource layer turns it into list_changed. */
  notesChanged(): void {
    for (const listener of this.listeners) listener();
  }

  onNotesChanged(listener: () => void): void {
    this.listeners.add(listener);
  }
}
