// The literal text a JavaScript regular expression cannot match without: from `\b(TODO|FIXME)\b.*deadline`, "TODO" or
// "FIXME" (or "deadline"); and its sieve, those texts in the order a match holds them (`(?:TODO|FIXME)` then, further
// on the line, `deadline`). ripgrep looks for either to narrow down the lines a search matches (see ripgrep.ts).
import { RegExpParser, type AST } from '@eslint-community/regexpp';

/** Most strings in one set (a class or an alternation spelled out). */
const MAX_SET = 16;
/** Longest string kept, in UTF-16 code units. */
const MAX_LENGTH = 256;

/**
 * What is known of the texts a node matches: `exact`, every one of them (when few and known), `must`, strings one
 * of which every one of them contains (empty strings never; null when nothing is known), and `sieve`, a ripgrep
 * expression that matches within every one of them (null: nothing known, as for a text that may be empty).
 */
interface Known {
  exact: string[] | null;
  must: string[] | null;
  sieve: string | null;
}

const NOTHING: Known = { exact: null, must: null, sieve: null };
/** Assertions match the empty string. */
const EMPTY: Known = { exact: [''], must: null, sieve: null };

/**
 * How the sieve spells things in ripgrep's syntax: `text`, a literal, as an expression matching wherever
 * JavaScript finds the text in a decoded line (undefined when it cannot be looked for, see searchableLiteral), and
 * `gap`, any run of bytes within a line.
 */
export interface SieveSpelling {
  text: (text: string) => string | undefined;
  gap: string;
}

/** Longest sieve, in characters (a command-line argument). */
const MAX_SIEVE = 4096;

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
  constructor(
    private readonly weight: (s: string) => number,
    private readonly spelling?: SieveSpelling,
  ) {}

  alternatives(alternatives: readonly AST.Alternative[]): Known {
    const known = alternatives.map((a) => this.sequence(a.elements));
    const exact = union(known.map((k) => k.exact));
    const must = union(known.map((k) => k.must));
    // Every branch must narrow, or the whole cannot: a branch whose sieve is null may match anything.
    const sieves = known.map((k) => k.sieve);
    const sieve = sieves.every((x) => x !== null) ? (sieves.length === 1 ? sieves[0] : `(?:${sieves.join('|')})`) : null;
    return { exact, must: stronger(requirement(must), requirement(exact), this.weight), sieve: sieve && sieve.length <= MAX_SIEVE ? sieve : null };
  }

  /**
   * Elements one after the other: their exact texts multiply; any element's requirement, or a run of exact ones,
   * holds for the whole. The sieve is theirs in order, with a gap between any two: a match is their matches one
   * after the other, each holding its element's sieve.
   */
  sequence(elements: readonly AST.Element[]): Known {
    let exact: string[] | null = [''];
    let run: string[] = [''];
    let must: string[] | null = null;
    const parts: string[] = [];
    const addPart = (part: string | null) => {
      if (part !== null) parts.push(part);
    };
    for (const element of elements) {
      const k = this.element(element);
      must = stronger(must, requirement(k.must), this.weight);
      exact = exact && k.exact && product(exact, k.exact);
      if (k.exact) {
        const longer = product(run, k.exact);
        if (longer) run = longer;
        else {
          must = stronger(must, requirement(run), this.weight);
          addPart(this.spell(run));
          run = k.exact;
        }
      } else {
        must = stronger(must, requirement(run), this.weight);
        addPart(this.spell(run));
        addPart(k.sieve);
        run = [''];
      }
    }
    must = stronger(must, requirement(run), this.weight);
    addPart(this.spell(run));
    const sieve = this.spelling && parts.length ? parts.join(this.spelling.gap) : null;
    return { exact, must, sieve: sieve && sieve.length <= MAX_SIEVE ? sieve : null };
  }

  /** One of `texts`, spelled for ripgrep; null when any cannot be (the empty text included: it narrows nothing). */
  private spell(texts: readonly string[]): string | null {
    if (!this.spelling || texts.length === 0) return null;
    const spelled: string[] = [];
    for (const t of texts) {
      const s = t === '' ? undefined : this.spelling.text(t);
      if (s === undefined) return null;
      spelled.push(s);
    }
    return spelled.length === 1 ? spelled[0] : `(?:${spelled.join('|')})`;
  }

  element(node: AST.Element): Known {
    switch (node.type) {
      case 'Character': {
        const ch = String.fromCodePoint(node.value);
        // Never found as it is in a file's bytes: a line end (results are lines), NUL, and U+FFFD (which invalid
        // bytes decode to). Taken as unknown, so that the texts around it still count.
        if (ch === '\n' || ch === '\0' || ch === '\uFFFD') return NOTHING;
        return { exact: [ch], must: [ch], sieve: this.spell([ch]) };
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
        // At least one repetition, which holds the inner sieve.
        return { exact, must: stronger(requirement(inner.must), requirement(inner.exact), this.weight), sieve: (exact && this.spell(exact)) ?? inner.sieve };
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
    return chars.size ? { exact: [...chars], must: [...chars], sieve: this.spell([...chars]) } : NOTHING;
  }
}

/**
 * Strings one of which every match of the JavaScript regular expression `source` (with `flags`) contains, compared
 * case-insensitively when the flags hold `i`; undefined when none is found. `weight` rates a string (how few
 * texts it is likely to be in); the set whose weakest string rates highest is chosen.
 */
export function requiredLiterals(source: string, flags: string, weight: (s: string) => number): string[] | undefined {
  const known = analyse(source, flags, weight);
  return (known && stronger(requirement(known.must), requirement(known.exact), weight)) ?? undefined;
}

/**
 * A ripgrep expression that matches within every line the JavaScript regular expression `source` (with `flags`)
 * matches: its literal texts in order, with gaps between them (spelled by `spelling`); undefined when none is
 * known. It narrows more than required texts alone: for `\b(TODO|FIXME)\b.*deadline`, only lines with TODO or
 * FIXME and, after it, deadline.
 */
export function regexSieve(source: string, flags: string, spelling: SieveSpelling): string | undefined {
  return analyse(source, flags, () => 1, spelling)?.sieve ?? undefined;
}

function analyse(source: string, flags: string, weight: (s: string) => number, spelling?: SieveSpelling): Known | undefined {
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser().parsePattern(source, 0, source.length, { unicode: flags.includes('u'), unicodeSets: flags.includes('v') });
  } catch {
    return undefined; // JavaScript took it, so a newer syntax than the parser knows: no narrowing
  }
  return new Extractor(weight, spelling).alternatives(pattern.alternatives);
}
