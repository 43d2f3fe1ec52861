// What every tool, resource and prompt shares: the guarded file access, listings, search and the editor bridge.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import path from 'node:path';
import type { NotesConfig } from '../../src/core/config/schema';
import { FileAccess } from '../../src/core/workspace/file-access';
import { NoteAnalyser } from '../../src/core/notes/analyser';
import { LinkResolver } from '../../src/core/notes/links';
import { isNoteFile, noteExtensions } from '../../src/core/workspace/file-types';
import { listWorkspaceFiles } from '../../src/core/workspace/listing';
import { PathGuard } from '../../src/core/workspace/path-guard';
import { IndexedSearch } from '../../src/core/workspace/index-search';
import { locateRipgrep } from '../../src/core/workspace/ripgrep';
import { RipgrepUse, ScanSearch, type SearchBackend } from '../../src/core/workspace/search';
import { statNotes, type NoteStat } from '../../src/core/workspace/stats';
import { WorkspaceIndex } from '../../src/core/workspace/workspace-index';
import { rememberListingSize } from '../../src/core/workspace/listing-hint';
import { discardPrestartedWorker, indexBytes, prestartedWorkerWaiting } from '../../src/core/workspace/worker-boot';
import { EditorBridgeClient } from '../editor-bridge-client';
import type { EncodedAnswer } from '../structured-json';
import { listAnswer } from './list-page';

/** Longer than any operation may run (30 s timeout), so that a replaced index is never disposed under one. */
const INDEX_RETIRE_MS = 120_000;

/** The settings the workspace index and its search are built from. */
function indexSettings(config: NotesConfig): string {
  const { files, search, security, performance } = config;
  return JSON.stringify([files.excludePatterns, files.showHiddenFiles, files.fileExtension, files.watchForChanges, search.excludePatterns, search.indexOnStartup, security.maxFileSize, performance.cacheSize]);
}

export type LogFn = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface ContextDeps {
  workspaceRoot: string;
  config: NotesConfig;
  configPath: string;
  log: LogFn;
  env?: NodeJS.ProcessEnv;
  /** Resolves once the replies already sent have been written out: the index's background work waits for it. */
  waitForOutput?: () => Promise<void>;
  /** Aborted when the client's input has ended: requests sent to the client (sampling) stop waiting for an answer. */
  inputEnded?: AbortSignal;
  /** Largest reply the transport sends (see maxSendBytes; default 10 MiB less 64 KiB): search_files and list_files cut their answers to fit. */
  maxResultBytes?: number;
  /** The note analysis worker; default: note-worker.js beside the server bundle (large notes are parsed inline without it). */
  noteWorkerFile?: string;
}

export class NotesContext {
  private bridgeClient: EditorBridgeClient | undefined;
  /** The category (`integrations.mcp.tools` key) of each tool, by name. */
  readonly toolCategories = new Map<string, string>();
  /** Metadata, tasks and summaries of notes: large notes are parsed in a worker thread. */
  readonly analyser: NoteAnalyser;
  private guardPromise: Promise<PathGuard> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly fileListeners = new Set<() => void>();
  private readonly touchListeners = new Set<() => void>();
  private indexPromise: Promise<WorkspaceIndex | undefined> | undefined;
  private indexedSearch: IndexedSearch | undefined;
  private scan: { settings: string; search: ScanSearch } | undefined;
  private resolver: { index: WorkspaceIndex; key: string; resolver: LinkResolver } | undefined;
  /** The index's notes for one listing and note extension (the same array while both stay, see noteStats()). */
  private indexedNotes: { index: WorkspaceIndex; key: string; notes: readonly string[] } | undefined;
  /** The file access of the current settings; rebuilt only when they change (it compiles the exclude globs). */
  private fileAccess: { settings: string; access: FileAccess } | undefined;
  /** ripgrep, found on first use (NOTESAPP_RIPGREP, else PATH): searches without every text in memory use it. */
  private ripgrepUse: { use: RipgrepUse | undefined } | undefined;

  constructor(
    readonly server: McpServer,
    readonly deps: ContextDeps,
  ) {
    this.analyser = new NoteAnalyser(deps.noteWorkerFile ?? path.join(__dirname, 'note-worker.js'), deps.log);
  }

  /**
   * The client of the editor bridge, made when an editor tool is first called: its module, with the bridge
   * protocol's schemas, loads then and not at every start (see LAZY_FILES in lazy-modules.mjs).
   */
  get bridge(): EditorBridgeClient {
    return (this.bridgeClient ??= new EditorBridgeClient({ workspaceRoot: this.deps.workspaceRoot, configDir: path.dirname(this.deps.configPath), env: this.deps.env }));
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
    const limits = {
      maxFileSize: security.maxFileSize,
      validateFileTypes: security.validateFileTypes,
      fileExtension: files.fileExtension,
      excludePatterns: files.excludePatterns,
    };
    const settings = JSON.stringify(limits);
    if (this.fileAccess?.settings !== settings) this.fileAccess = { settings, access: new FileAccess(await this.guard(), limits) };
    return this.fileAccess.access;
  }

  /**
   * The in-memory index (file list and note texts), created on first use. None when files.watchForChanges is off:
   * without watchers it could not stay fresh, so every listing and search reads the disk then.
   */
  workspaceIndex(): Promise<WorkspaceIndex | undefined> {
    const made: Promise<WorkspaceIndex | undefined> = (this.indexPromise ??= (async () => {
      const { files, security, performance } = this.config;
      if (!files.watchForChanges) return undefined;
      const guard = await this.guard();
      const index = new WorkspaceIndex({
        root: guard.realRoot,
        excludePatterns: files.excludePatterns,
        showHiddenFiles: files.showHiddenFiles,
        fileExtension: files.fileExtension,
        maxFileSize: security.maxFileSize,
        maxFiles: performance.cacheSize,
        maxBytes: indexBytes({ NOTESAPP_INDEX_MB: this.deps.env?.NOTESAPP_INDEX_MB ?? process.env.NOTESAPP_INDEX_MB }),
        log: this.deps.log,
        waitForOutput: this.deps.waitForOutput,
      });
      // Only the index in use reports: one replaced by a settings change watches by the old settings until disposed.
      index.onFilesChanged(() => {
        if (this.indexPromise === made) for (const listener of this.fileListeners) listener();
      });
      index.onChangesApplied(() => {
        if (this.indexPromise === made) for (const listener of this.touchListeners) listener();
      });
      return index;
    })());
    return made;
  }

  /**
   * Called when a watcher changed the list of files of the index in use, whichever index that is: a change of the
   * file settings replaces it (see applyConfig).
   */
  onFilesChanged(listener: () => void): void {
    this.fileListeners.add(listener);
  }

  /**
   * Called when a watcher of the index in use reported changes, to the list of files or only to files in it (an
   * edit): sizes and times may differ.
   */
  onFilesTouched(listener: () => void): void {
    this.touchListeners.add(listener);
  }

  /**
   * While the handshake is going on, when the loader booted a text worker (to list the workspace early, see
   * early-start.ts): take it over and boot the other text worker threads, so that they are ready when the listing
   * starts (their start-up runs on other cores; this thread only creates them); when texts are not indexed, stop it.
   * Without such a worker, the index boots its workers once the handshake is done (see startBackgroundWork): here
   * they cost the handshake the loading of node:worker_threads and the creating of a thread (4-8 ms), and they had
   * nothing to read before the listing.
   */
  prepareBackgroundWork(): void {
    if (!this.config.search.indexOnStartup) return discardPrestartedWorker();
    if (!prestartedWorkerWaiting()) return;
    void this.workspaceIndex().then(
      (index) => (index ? index.prepareTexts() : discardPrestartedWorker()),
      (err: Error) => this.backgroundFailed('preparing the workspace index', err),
    );
  }

  /**
   * Work started in the background that fails is logged instead of ending the process. The index is kept as made
   * (workspaceIndex): requests that need it answer the same error until a settings change makes another.
   */
  private backgroundFailed(what: string, err: Error): void {
    this.deps.log('error', `${what} failed (requests that need it answer this error until the settings change): ${err.message}`);
  }

  /**
   * After the initialize handshake: list and watch the workspace, and cache note texts if search.indexOnStartup.
   * Once listed, the number of files is remembered for the next start's loader (see listing-hint.ts).
   */
  startBackgroundWork(): void {
    void this.workspaceIndex()
      .then((index) => {
        if (!index) return;
        // Ahead of the listing, unless prepareBackgroundWork did it.
        if (this.config.search.indexOnStartup) index.prepareTexts();
        void index
          .listing()
          .then(async () => {
            if (index.listed()) await rememberListingSize(this.deps.workspaceRoot, index.stats().files);
          })
          .catch((err: Error) => this.backgroundFailed('listing the workspace', err));
        return this.config.search.indexOnStartup ? index.caching() : index.listing();
      })
      .catch((err: Error) => this.backgroundFailed('indexing the workspace', err));
  }

  /**
   * Every file list_files shows (files.excludePatterns, files.showHiddenFiles). `background`: not for a request
   * (the first listing may then wait for a search that is walking the workspace).
   */
  async listFiles(background = false): Promise<string[]> {
    const index = await this.workspaceIndex();
    if (index && (await index.fresh(background))) return [...index.listFiles()];
    return this.scanFiles();
  }

  /**
   * list_files' answer (see listAnswer): from the index when it can be trusted, with the bytes of its whole listing
   * kept between answers while the listing is unchanged; else from a fresh listing.
   */
  async listAnswer(options: { cursor?: string; limit?: number; maxBytes: number }): Promise<EncodedAnswer> {
    const index = await this.workspaceIndex();
    const whole = options.cursor === undefined && options.limit === undefined;
    // Synchronous once fresh: the index's list cannot change while the answer is made.
    if (index && (await index.fresh(false, whole))) return listAnswer(index.listFiles(), options, index.encodedFiles());
    return listAnswer(await this.scanFiles(), options);
  }

  private async scanFiles(): Promise<string[]> {
    const guard = await this.guard();
    return listWorkspaceFiles(guard.realRoot, { excludePatterns: this.config.files.excludePatterns, showHiddenFiles: this.config.files.showHiddenFiles });
  }

  /**
   * Resolves links against every listed file. Built once per version of the index's listing (building it over 50 000
   * files takes tens of milliseconds); without a trusted index, built from a fresh listing each time.
   */
  async linkResolver(): Promise<LinkResolver> {
    const index = await this.workspaceIndex();
    const extensions = noteExtensions(this.config.files.fileExtension);
    if (!index || !(await index.fresh())) return new LinkResolver(await this.listFiles(), extensions);
    const key = `${index.version}\n${extensions.join('\n')}`;
    if (this.resolver?.index !== index || this.resolver.key !== key) this.resolver = { index, key, resolver: new LinkResolver(index.listFiles(), extensions) };
    return this.resolver.resolver;
  }

  /** Size and modification time of every note: from the index when it can be trusted, else from the disk. */
  async noteStats(): Promise<readonly NoteStat[]> {
    const index = await this.workspaceIndex();
    const ext = this.config.files.fileExtension;
    if (index && (await index.fresh())) {
      const key = `${index.version}\n${ext}`;
      if (this.indexedNotes?.index !== index || this.indexedNotes.key !== key) {
        this.indexedNotes = { index, key, notes: index.listFiles().filter((f) => isNoteFile(f, ext)) };
      }
      // The index answers the same list again from what it keeps, until a change is reported.
      return index.noteStats(this.indexedNotes.notes);
    }
    const guard = await this.guard();
    return statNotes(guard.realRoot, await this.listNotes());
  }

  async listNotes(background = false): Promise<string[]> {
    return (await this.listFiles(background)).filter((f) => isNoteFile(f, this.config.files.fileExtension));
  }

  async search(): Promise<SearchBackend> {
    const index = await this.workspaceIndex();
    if (!index) return this.scanSearch();
    this.indexedSearch ??= new IndexedSearch(index, {
      searchExcludePatterns: this.config.search.excludePatterns,
      fallback: () => this.scanSearch(),
      ripgrep: this.ripgrep(),
    });
    return this.indexedSearch;
  }

  /**
   * The disk scan: every search reads every file. Kept while the settings it was built from hold, so that its
   * worker threads are started once; one replaced by a settings change is disposed after the longest operation.
   */
  async scanSearch(): Promise<SearchBackend> {
    const guard = await this.guard();
    const settings = indexSettings(this.config);
    if (this.scan?.settings !== settings) {
      const old = this.scan?.search;
      if (old) setTimeout(() => old.dispose(), INDEX_RETIRE_MS).unref();
      const { search, files, security } = this.config;
      const scan = new ScanSearch({
        root: guard.realRoot,
        // search.excludePatterns on top of the file tree's own exclusions.
        files: { excludePatterns: files.excludePatterns, searchExcludePatterns: search.excludePatterns, showHiddenFiles: files.showHiddenFiles, fileExtension: files.fileExtension },
        maxFileSize: security.maxFileSize,
        ripgrep: this.ripgrep(),
      });
      this.scan = { settings, search: scan };
    }
    return this.scan.search;
  }

  private ripgrep(): RipgrepUse | undefined {
    if (!this.ripgrepUse) {
      const program = locateRipgrep(this.deps.env ?? process.env);
      this.deps.log('info', program ? `search: ripgrep ${program} narrows down the files searches read while not every note text is in memory` : 'search: no ripgrep found (NOTESAPP_RIPGREP, PATH): searches while not every note text is in memory read every file');
      this.ripgrepUse = { use: program ? new RipgrepUse(program, this.deps.log) : undefined };
    }
    return this.ripgrepUse.use;
  }

  /** Stops the watchers, the text workers and the note analysis worker. */
  dispose(): void {
    this.bridgeClient?.dispose();
    void this.indexPromise?.then((index) => index?.dispose());
    this.scan?.search.dispose();
    this.analyser.dispose();
  }

  // --- Live configuration: the server watches its config file and hands every change to applyConfig. ---
  private readonly configListeners = new Set<(config: NotesConfig, previous: NotesConfig) => void>();

  /** Called with every new configuration, e.g. to enable or disable a tool category. */
  onConfigChanged(listener: (config: NotesConfig, previous: NotesConfig) => void): void {
    this.configListeners.add(listener);
  }

  /**
   * A changed config file: every tool reads the new values from its next call on. The workspace index and its
   * search are built from file settings, so when those change they are rebuilt on next use; the old ones are
   * disposed only after the longest an operation may still be using them.
   */
  applyConfig(next: NotesConfig): void {
    const previous = this.deps.config;
    this.deps.config = next;
    if (indexSettings(previous) !== indexSettings(next) && this.indexPromise) {
      const oldIndex = this.indexPromise;
      this.indexPromise = undefined;
      this.indexedSearch = undefined;
      setTimeout(() => {
        void oldIndex.then((index) => index?.dispose());
      }, INDEX_RETIRE_MS).unref();
      this.startBackgroundWork();
    }
    // Each tool switched on or off would send its own notifications/tools/list_changed (ten for a category): the
    // client hears of the change once, after all of them.
    const send = this.server.sendToolListChanged;
    let toolsChanged = false;
    this.server.sendToolListChanged = () => {
      toolsChanged = true;
    };
    try {
      for (const listener of this.configListeners) {
        try {
          listener(next, previous);
        } catch (err) {
          this.deps.log('error', `Applying the changed configuration failed: ${(err as Error).message}`);
        }
      }
    } finally {
      this.server.sendToolListChanged = send;
    }
    if (toolsChanged) this.server.sendToolListChanged();
  }

  /** Tools that create or delete notes call this; the resource layer turns it into list_changed. */
  notesChanged(): void {
    for (const listener of this.listeners) listener();
  }

  onNotesChanged(listener: () => void): void {
    this.listeners.add(listener);
  }
}
