// The literal text a JavaScript regular expression cannot match without: from `\b(TODO|FIXME)\b.*deadline`, "TODO" or
// "FIXME" (or "deadline"). ripgrep looks for that text to narrow down the files a search reads (see ripgrep.ts).
import { RegExpParser, type AST } from '@eslint-community/regexpp';

/** Most strings in one set (a class or an alternation spelled out). */
const MAX_SET = 16;
/** Longest string kept, in UTF-16 code units. */
const MAX_LENGTH = 256;

/**
 * What is known of the texts a node matches: `exact`, every one of them (when few and known), and `must`, strings one
 * of which every one of them contains (empty strings never; null when nothing is known).
 */
interface Known {
  exact: string[] | null;
  must: string[] | null;
}

const NOTHING: Known = { exact: null, must: null };
/** Assertions match the empty string. */
const EMPTY: Known = { exact: [''], must: null };

/** `a` followed by `b`, every way; null when that makes too many strings or too long ones. */
function product(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length * b.length > MAX_SET) return null;
  const out = new Set<string>();
  for (const x of a) {
    for (const y of b) {
      if (x.length + y.length > MAX_LENGTH) return null;
      out.add(x + y);
    }
  }
  return [...out];
}

function union(sets: ReadonlyArray<readonly string[] | null>): string[] | null {
  const out = new Set<string>();
  for (const set of sets) {
    if (!set) return null;
    for (const s of set) out.add(s);
  }
  return out.size > MAX_SET ? null : [...out];
}

/** A set usable as a requirement: not empty, and no empty string (which every text contains). */
function requirement(set: readonly string[] | null): string[] | null {
  return set && set.length > 0 && !set.includes('') ? [...set] : null;
}

/** The stronger requirement: the one whose weakest string is longer; then the one with fewer strings. */
function stronger(a: string[] | null, b: string[] | null, weight: (s: string) => number): string[] | null {
  if (!a || !b) return a ?? b;
  const wa = Math.min(...a.map(weight));
  const wb = Math.min(...b.map(weight));
  if (wa !== wb) return wa > wb ? a : b;
  return a.length <= b.length ? a : b;
}

class Extractor {
  constructor(private readonly weight: (s: string) => number) {}

  alternatives(alternatives: readonly AST.Alternative[]): Known {
    const known = alternatives.map((a) => this.sequence(a.elements));
    const exact = union(known.map((k) => k.exact));
    const must = union(known.map((k) => k.must));
    return { exact, must: stronger(requirement(must), requirement(exact), this.weight) };
  }

  /** Elements one after the other: their exact texts multiply; any element's requirement, or a run of exact ones, holds for the whole. */
  sequence(elements: readonly AST.Element[]): Known {
    let exact: string[] | null = [''];
    let run: string[] = [''];
    let must: string[] | null = null;
    for (const element of elements) {
      const k = this.element(element);
      must = stronger(must, requirement(k.must), this.weight);
      exact = exact && k.exact && product(exact, k.exact);
      if (k.exact) {
        const longer = product(run, k.exact);
        if (longer) run = longer;
        else {
          must = stronger(must, requirement(run), this.weight);
          run = k.exact;
        }
      } else {
        must = stronger(must, requirement(run), this.weight);
        run = [''];
      }
    }
    must = stronger(must, requirement(run), this.weight);
    return { exact, must };
  }

  element(node: AST.Element): Known {
    switch (node.type) {
      case 'Character': {
        const ch = String.fromCodePoint(node.value);
        return { exact: [ch], must: [ch] };
      }
      case 'CharacterClass':
        return this.characterClass(node);
      case 'Assertion':
        return EMPTY;
      case 'Quantifier': {
        const inner = this.element(node.element);
        if (node.max === 0) return EMPTY;
        if (node.min === 0) return NOTHING;
        let exact: string[] | null = null;
        if (node.min === node.max && inner.exact) {
          exact = [''];
          for (let i = 0; i < node.min && exact; i++) exact = product(exact, inner.exact);
        }
        return { exact, must: stronger(requirement(inner.must), requirement(inner.exact), this.weight) };
      }
      case 'Group':
        // A group that turns case-insensitivity on or off inside: not worth spelling out.
        if (node.modifiers && (node.modifiers.add.ignoreCase || node.modifiers.remove?.ignoreCase)) return NOTHING;
        return this.alternatives(node.alternatives);
      case 'CapturingGroup':
        return this.alternatives(node.alternatives);
      default:
        return NOTHING; // character sets, back-references, Unicode-sets expressions
    }
  }

  private characterClass(node: AST.CharacterClass): Known {
    if (node.negate) return NOTHING;
    const chars = new Set<string>();
    for (const e of node.elements) {
      if (e.type === 'Character') chars.add(String.fromCodePoint(e.value));
      else if (e.type === 'CharacterClassRange' && e.max.value - e.min.value < MAX_SET) {
        for (let c = e.min.value; c <= e.max.value; c++) chars.add(String.fromCodePoint(c));
      } else return NOTHING;
      if (chars.size > MAX_SET) return NOTHING;
    }
    return chars.size ? { exact: [...chars], must: [...chars] } : NOTHING;
  }
}

/**
 * Strings one of which every match of the JavaScript regular expression `source` (with `flags`) contains, compared
 * case-insensitively when the flags hold `i`; undefined when none is found. `weight` rates a string (how few
 * texts it is likely to be in); the set whose weakest string rates highest is chosen.
 */
export function requiredLiterals(source: string, flags: string, weight: (s: string) => number): string[] | undefined {
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser().parsePattern(source, 0, source.length, { unicode: flags.includes('u'), unicodeSets: flags.includes('v') });
  } catch {
    return undefined; // JavaScript took it, so a newer syntax than the parser knows: no narrowing
  }
  const known = new Extractor(weight).alternatives(pattern.alternatives);
  return stronger(requirement(known.must), requirement(known.exact), weight) ?? undefined;
}
