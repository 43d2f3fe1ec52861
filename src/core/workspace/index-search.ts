// search_files served from the workspace index: the same matching as the disk scan, over texts the worker keeps.
import { createPathFilter, pathListed } from './listing';
import { compileQuery, type RipgrepUse, type SearchBackend, type SearchOutcome, type SearchQuery } from './search';
import type { WalkRules } from './text-worker';
import type { WorkspaceIndex } from './workspace-index';

export interface IndexedSearchOptions {
  /** search.excludePatterns (the index already leaves out files.excludePatterns and hidden files). */
  searchExcludePatterns: readonly string[];
  /** Used when the index cannot be trusted (a folder could not be watched). */
  fallback: () => Promise<SearchBackend>;
  /** Narrows down the lines searches match while not every text is in memory (see ripgrep.ts). */
  ripgrep?: RipgrepUse;
}

export class IndexedSearch implements SearchBackend {
  private readonly searchFilter;
  private searchable: { version: number; files: readonly string[] } | undefined;
  private rules: WalkRules | undefined;
  /** Only the first search walks: later ones wait for the listing, which a walk would hold up again. */
  private walked = false;
  /** Set once a search went to ripgrep without waiting for the index (see search()). */
  private uncached = false;

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly options: IndexedSearchOptions,
  ) {
    this.searchFilter = options.searchExcludePatterns.length ? createPathFilter({ excludePatterns: options.searchExcludePatterns, showHiddenFiles: true }) : undefined;
  }

  async search(q: SearchQuery): Promise<SearchOutcome> {
    compileQuery(q); // a bad pattern fails before anything else
    if (this.index.stillListing() && !this.walked) {
      // The first search after start: the text worker matches the lines ripgrep found, or lists and reads the
      // workspace itself, instead of reading only once the index's listing (paused meanwhile) is complete.
      this.walked = true;
      void this.index.listing();
      this.rules ??= this.index.walkRules(this.options.searchExcludePatterns);
      const found = this.options.ripgrep && (await this.index.ripgrepSearch(this.options.ripgrep, this.rules, q));
      if (found) return found;
      const walked = this.index.stillListing() ? await this.index.walkSearch(this.rules, q) : undefined;
      if (walked) return walked;
    }
    let triedRipgrep = false;
    if (this.options.ripgrep && !this.uncached) {
      // The first search after start that finds the index listed (an early listing is listed before most first
      // searches arrive): ripgrep reads the files as they are now, so it need not wait for the index's watchers.
      this.uncached = true;
      triedRipgrep = true;
      this.rules ??= this.index.walkRules(this.options.searchExcludePatterns);
      const found = await this.index.searchUncached(this.options.ripgrep, this.rules, q);
      if (found) return found;
    }
    if (!(await this.index.fresh())) return (await this.options.fallback()).search(q);
    if (this.options.ripgrep && !triedRipgrep) {
      // A search while the workers are still reading the texts, or in a workspace whose texts do not all fit the
      // budget.
      this.rules ??= this.index.walkRules(this.options.searchExcludePatterns);
      const found = await this.index.searchUncached(this.options.ripgrep, this.rules, q);
      if (found) return found;
    }
    return this.index.search(this.files(), q);
  }

  /** The files a scan would search, derived again only when the list of files changed. */
  private files(): readonly string[] {
    if (this.searchable?.version !== this.index.version) {
      const filter = this.searchFilter;
      this.searchable = {
        version: this.index.version,
        files: filter ? this.index.textFiles().filter((f) => pathListed(f, filter)) : this.index.textFiles(),
      };
    }
    return this.searchable.files;
  }
}
