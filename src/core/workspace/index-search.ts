// search_files served from the workspace index: same engine and same results as the disk scan, texts from memory.
import { isAllowedTextFile } from './file-types';
import { createPathFilter, pathListed } from './listing';
import { compileQuery, RegexWorker, searchTexts, type SearchBackend, type SearchOutcome, type SearchQuery } from './search';
import type { WorkspaceIndex } from './workspace-index';

export interface IndexedSearchOptions {
  fileExtension: string;
  /** security.maxFileSize: no larger text reaches the regex worker. */
  maxFileSize: number;
  /** search.excludePatterns (the index already leaves out files.excludePatterns and hidden files). */
  searchExcludePatterns: readonly string[];
  regexBudgetMs?: number;
  /** Used when the index cannot be trusted (a folder could not be watched). */
  fallback: () => Promise<SearchBackend>;
}

export class IndexedSearch implements SearchBackend {
  /** Kept between searches: starting a worker costs tens of milliseconds. */
  private readonly worker: RegexWorker;
  private readonly searchFilter;
  private searchable: { version: number; files: string[] } | undefined;

  constructor(
    private readonly index: WorkspaceIndex,
    private readonly options: IndexedSearchOptions,
  ) {
    this.worker = new RegexWorker(options.regexBudgetMs ?? 1500, options.maxFileSize);
    this.searchFilter = options.searchExcludePatterns.length ? createPathFilter({ excludePatterns: options.searchExcludePatterns, showHiddenFiles: true }) : undefined;
  }

  async search(q: SearchQuery): Promise<SearchOutcome> {
    compileQuery(q); // a bad pattern fails before anything else
    if (!(await this.index.fresh(true))) return (await this.options.fallback()).search(q);
    return searchTexts(q, this.files(), (f) => this.index.text(f), q.regex ? this.worker : undefined);
  }

  /** The files a scan would search, derived again only when the list of files changed. */
  private files(): string[] {
    if (this.searchable?.version !== this.index.version) {
      const filter = this.searchFilter;
      this.searchable = {
        version: this.index.version,
        files: this.index.listFiles().filter((f) => isAllowedTextFile(f, this.options.fileExtension) && (!filter || pathListed(f, filter))),
      };
    }
    return this.searchable.files;
  }

  dispose(): void {
    this.worker.close();
  }
}
