/**
 * The literals a regular expression cannot match without: a cheap gate in front of it.
 *
 * `requiredLiterals(/sk-ant-api0\d-[A-Za-z0-9_-]{90,128}AA/)` is `["sk-ant-api0"]`: a text
 * without that substring has no match, so the expensive pattern need not run on it. For an
 * alternation the answer is one literal per branch (any of them may be the one present). The
 * analysis is conservative: whatever it does not understand (a character class, a
 * backreference, an optional part, a lookaround) contributes no literal, and a pattern with no
 * provable literal gives `undefined` (the caller then runs it on every text). It never answers
 * a literal that some match could lack; that is all the gate's soundness rests on.
 */

export interface RequiredLiterals {
  /** Every match contains at least one of these. */
  readonly literals: readonly string[];
  /** The pattern has the `i` flag: the literals are lower case, to be looked for case-insensitively. */
  readonly ignoreCase: boolean;
}

/** A branch's best set of alternatives (undefined: nothing provable) and, when it is one fixed string set, that set. */
interface Analysis {
  required: string[] | undefined;
  /** The branch matches exactly one of these strings and nothing else (a literal, or a group of literals). */
  exact: string[] | undefined;
}

class Unsupported extends Error {}

/** More alternatives than this in one set are not worth combining (the gate gets no better). */
const MAX_ALTERNATIVES = 64;

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', '0': '\0' };
/** Escapes that stand for a class of characters or a position, not a character. */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B']);

/**
 * Characters a gate finds cheaply: rare in prose, so a scan that stops at each of them stops
 * seldom (lib/secrets/native-gate.ts).
 */
export const ANCHOR_CHARS = '_-:.';

/** A set of 3 or more characters each of whose literals holds an anchor character. */
export function isAnchoredSet(set: readonly string[]): boolean {
  return set.every((s) => s.length >= 3 && [...ANCHOR_CHARS].some((c) => s.includes(c)));
}

/**
 * Prefers an anchored set (cheap to look for), then the set whose shortest literal is longest
 * (rarer in text), then the smaller set.
 */
function better(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const anchoredA = isAnchoredSet(a);
  if (anchoredA !== isAnchoredSet(b)) return anchoredA ? a : b;
  const minA = Math.min(...a.map((s) => s.length));
  const minB = Math.min(...b.map((s) => s.length));
  if (minA !== minB) return minA > minB ? a : b;
  return a.length <= b.length ? a : b;
}

class Parser {
  private at = 0;
  constructor(
    private readonly source: string,
    private readonly unicode: boolean,
  ) {}

  parse(): Analysis {
    const result = this.disjunction();
    if (this.at !== this.source.length) throw new Unsupported(`unexpected ${this.source[this.at]}`);
    return result;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private disjunction(): Analysis {
    const branches: Analysis[] = [this.alternative()];
    while (this.peek() === '|') {
      this.at++;
      branches.push(this.alternative());
    }
    if (branches.length === 1) return branches[0]!;
    const required = branches.every((b) => b.required !== undefined) ? [...new Set(branches.flatMap((b) => b.required!))] : undefined;
    const exact = branches.every((b) => b.exact !== undefined) ? [...new Set(branches.flatMap((b) => b.exact!))] : undefined;
    return { required, exact };
  }

  private alternative(): Analysis {
    let best: string[] | undefined;
    // The literal text read since the last break: one string, or several after a group of
    // alternatives (`(?:ghp|gho)_` gives "ghp_" and "gho_").
    let runs: string[] = [''];
    // The whole branch as a set of fixed strings, while it stays one.
    let exact: string[] | undefined = [''];
    const closeRun = (): void => {
      if (runs.every((r) => r !== '')) best = better(best, runs);
      runs = [''];
    };
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      const atom = this.atom();
      const { min, max } = this.quantifier();
      if (atom.kind === 'char' && min === 1 && max === 1) {
        runs = runs.map((r) => r + atom.char);
        exact = exact?.map((s) => s + atom.char);
        continue;
      }
      if (atom.kind === 'group' && min === 1 && max === 1 && atom.analysis.exact !== undefined && runs.length * atom.analysis.exact.length <= MAX_ALTERNATIVES) {
        const parts = atom.analysis.exact;
        best = better(best, atom.analysis.required);
        runs = runs.flatMap((r) => parts.map((p) => r + p));
        exact = exact !== undefined && exact.length * parts.length <= MAX_ALTERNATIVES ? exact.flatMap((s) => parts.map((p) => s + p)) : undefined;
        continue;
      }
      // `ab+`: "ab" is required, and what follows is not adjacent to it.
      if (atom.kind === 'char' && min >= 1) runs = runs.map((r) => r + atom.char);
      closeRun();
      if (atom.kind === 'group' && min >= 1) best = better(best, atom.analysis.required);
      if (atom.kind !== 'empty') exact = undefined;
    }
    closeRun();
    if (exact !== undefined && exact.every((s) => s !== '')) best = better(best, exact);
    return { required: best, exact };
  }

  private quantifier(): { min: number; max: number } {
    const c = this.peek();
    let min = 1;
    let max = 1;
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
    } else if (c === '{') {
      const match = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.source.slice(this.at));
      if (match === null) return { min, max }; // a literal brace (not in unicode mode)
      this.at += match[0].length;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    } else {
      return { min, max };
    }
    if (this.peek() === '?') this.at++; // lazy
    return { min, max };
  }

  private atom(): { kind: 'char'; char: string } | { kind: 'group'; analysis: Analysis } | { kind: 'other' } | { kind: 'empty' } {
    const c = this.source[this.at++]!;
    if (c === '(') {
      let lookaround = false;
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (this.source.startsWith('?=', this.at) || this.source.startsWith('?!', this.at)) {
        this.at += 2;
        lookaround = true;
      } else if (this.source.startsWith('?<=', this.at) || this.source.startsWith('?<!', this.at)) {
        this.at += 3;
        lookaround = true;
      } else if (this.source.startsWith('?<', this.at)) {
        const end = this.source.indexOf('>', this.at);
        if (end < 0) throw new Unsupported('group name');
        this.at = end + 1;
      } else if (this.peek() === '?') throw new Unsupported('group modifier');
      const analysis = this.disjunction();
      if (this.source[this.at++] !== ')') throw new Unsupported('unclosed group');
      // A lookaround matches no text of its own: nothing it names is part of the match.
      return lookaround ? { kind: 'empty' } : { kind: 'group', analysis };
    }
    if (c === '[') {
      this.skipClass();
      return { kind: 'other' };
    }
    if (c === '\\') return this.escape();
    if (c === '^' || c === '$') return { kind: 'empty' };
    if (c === '.') return { kind: 'other' };
    if (c === '*' || c === '+' || c === '?') throw new Unsupported('nothing to repeat');
    return { kind: 'char', char: c };
  }

  private skipClass(): void {
    if (this.peek() === ']') this.at++; // `[]...]` is not valid JS, but `[^]]` never reaches here either
    while (this.at < this.source.length) {
      const c = this.source[this.at++];
      if (c === '\\') this.at++;
      else if (c === ']') return;
    }
    throw new Unsupported('unclosed class');
  }

  private escape(): { kind: 'char'; char: string } | { kind: 'other' } | { kind: 'empty' } {
    const c = this.source[this.at++];
    if (c === undefined) throw new Unsupported('trailing backslash');
    if (c === 'b' || c === 'B') return { kind: 'empty' };
    if (CLASS_ESCAPES.has(c)) return { kind: 'other' };
    if (c === 'p' || c === 'P') {
      if (this.peek() === '{') {
        const end = this.source.indexOf('}', this.at);
        if (end < 0) throw new Unsupported('property escape');
        this.at = end + 1;
      }
      return { kind: 'other' };
    }
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined && !(c === '0' && /\d/.test(this.peek() ?? ''))) return { kind: 'char', char: simple };
    if (c === 'x') {
      const hex = /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.at));
      if (hex === null) return { kind: 'char', char: 'x' };
      this.at += 2;
      return { kind: 'char', char: String.fromCharCode(parseInt(hex[0], 16)) };
    }
    if (c === 'u') {
      const braced = this.unicode ? /^\{([0-9a-fA-F]+)\}/.exec(this.source.slice(this.at)) : null;
      if (braced !== null) {
        this.at += braced[0].length;
        return { kind: 'char', char: String.fromCodePoint(parseInt(braced[1]!, 16)) };
      }
      const hex = /^[0-9a-fA-F]{4}/.exec(this.source.slice(this.at));
      if (hex === null) return { kind: 'char', char: 'u' };
      this.at += 4;
      return { kind: 'char', char: String.fromCharCode(parseInt(hex[0], 16)) };
    }
    if (c === 'k' || c === 'c' || /[1-9]/.test(c)) {
      // Backreferences and control escapes: treat as unknown text (skip a `<name>` or the digits).
      if (c === 'k' && this.peek() === '<') this.at = this.source.indexOf('>', this.at) + 1;
      else if (c === 'c') this.at++;
      else while (/\d/.test(this.peek() ?? '')) this.at++;
      return { kind: 'other' };
    }
    return { kind: 'char', char: c }; // identity escape: `\/`, `\.`, `\-`, ...
  }
}

/** The literals every match of `pattern` contains one of, or undefined when none can be proven. */
export function requiredLiterals(pattern: RegExp): RequiredLiterals | undefined {
  if (pattern.flags.includes('v')) return undefined; // set notation in classes: not parsed here
  let analysis: Analysis;
  try {
    analysis = new Parser(pattern.source, pattern.flags.includes('u')).parse();
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
  const literals = analysis.required;
  if (literals === undefined || literals.length === 0 || literals.some((s) => s === '')) return undefined;
  const ignoreCase = pattern.flags.includes('i');
  return { literals: ignoreCase ? [...new Set(literals.map((s) => s.toLowerCase()))] : literals, ignoreCase };
}
