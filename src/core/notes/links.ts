// Resolves the targets of markdown links and [[wikilinks]] to workspace-relative note paths.
import path from 'node:path';
import { NOTE_EXTENSIONS } from '../workspace/file-types';
import { comparePaths } from '../workspace/listing';
import type { RawLink } from './structure';

export interface ResolvedLink extends RawLink {
  /** Workspace-relative POSIX path of the target; null for external links and targets that do not exist. */
  path: string | null;
  external: boolean;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function addTo(map: Map<string, string[]>, key: string, file: string): void {
  const list = map.get(key) ?? [];
  list.push(file);
  map.set(key, list);
}

export class LinkResolver {
  private readonly byPath = new Map<string, string>();
  /** Notes by their name without the note extension ("v1.2 notes" for "v1.2 notes.md"). */
  private readonly byName = new Map<string, string[]>();
  /** Every file by its full name ("diagram.png", "plan.md"), for targets written with their extension. */
  private readonly byFileName = new Map<string, string[]>();

  /** `files`: every workspace-relative POSIX file path; `extensions`: the note extensions (file-types' noteExtensions). */
  constructor(
    files: readonly string[],
    private readonly extensions: readonly string[] = NOTE_EXTENSIONS,
  ) {
    for (const file of files) {
      this.byPath.set(file.toLowerCase(), file);
      const base = path.posix.basename(file);
      addTo(this.byFileName, base.toLowerCase(), file);
      const ext = path.posix.extname(base).toLowerCase();
      // Only a note extension is stripped: in "v1.2 notes" the ".2 notes" is part of the name.
      if (this.extensions.includes(ext)) addTo(this.byName, base.slice(0, base.length - ext.length).toLowerCase(), file);
    }
    for (const map of [this.byName, this.byFileName]) {
      for (const list of map.values()) list.sort((a, b) => a.split('/').length - b.split('/').length || comparePaths(a, b));
    }
  }

  resolve(link: RawLink, fromNote: string): ResolvedLink {
    if (link.type === 'markdown' && SCHEME.test(link.target)) return { ...link, path: null, external: true };
    if (link.target === '') return { ...link, path: fromNote, external: false }; // [text](#heading), [[#heading]]
    return { ...link, path: link.type === 'wikilink' ? this.wikilink(link.target, fromNote) : this.markdown(link.target, fromNote), external: false };
  }

  private lookup(candidate: string): string | null {
    if (candidate.startsWith('../') || candidate === '..') return null;
    const exact = this.byPath.get(candidate.toLowerCase());
    if (exact) return exact;
    for (const ext of this.extensions) {
      const withExt = this.byPath.get(`${candidate}${ext}`.toLowerCase());
      if (withExt) return withExt;
    }
    return null;
  }

  private markdown(target: string, fromNote: string): string | null {
    let decoded = target;
    try {
      decoded = decodeURIComponent(target);
    } catch {
      // keep it as written
    }
    const base = decoded.startsWith('/') ? decoded.slice(1) : path.posix.join(path.posix.dirname(fromNote), decoded);
    return this.lookup(path.posix.normalize(base));
  }

  /**
   * [[Name]] matches a note of that name anywhere (same folder first, then the shallowest). A target with a slash
   * is a path: `[[/a/b]]` from the workspace root, `[[./b]]` and `[[../a/b]]` from the note's folder, `[[a/b]]` from
   * the root, else from the note's folder, else the shallowest note whose path ends with it (`[[b/Plan]]` finds
   * `x/b/Plan.md`, as Foam and Obsidian resolve partial paths).
   */
  private wikilink(target: string, fromNote: string): string | null {
    const folder = path.posix.dirname(fromNote);
    if (target.startsWith('/')) return this.lookup(path.posix.normalize(target.slice(1)));
    if (/^\.\.?\//.test(target)) return this.lookup(path.posix.join(folder, target));
    if (target.includes('/')) {
      return this.lookup(path.posix.normalize(target)) ?? this.lookup(path.posix.join(folder, target)) ?? this.bySuffix(path.posix.normalize(target));
    }
    const key = target.toLowerCase();
    const candidates = this.byName.get(key) ?? this.byFileName.get(key);
    if (!candidates?.length) return null;
    return candidates.find((c) => path.posix.dirname(c) === folder) ?? candidates[0];
  }

  /** The shallowest file whose path ends with `/target`, with or without its note extension. */
  private bySuffix(target: string): string | null {
    const tail = `/${target.toLowerCase()}`;
    const name = path.posix.basename(target).toLowerCase();
    for (const file of [...(this.byName.get(name) ?? []), ...(this.byFileName.get(name) ?? [])]) {
      const lower = `/${file.toLowerCase()}`;
      const ext = path.posix.extname(lower);
      if (lower.endsWith(tail) || (this.extensions.includes(ext) && lower.slice(0, -ext.length).endsWith(tail))) return file;
    }
    return null;
  }
}
