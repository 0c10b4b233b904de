/**
 * Which of many literals occur in a text, with the regular-expression engine doing the scan.
 *
 * One regular expression of all the literals (`AKIA|ghp_|sk-ant-api0|...`) scanned at about
 * 110 MB/s here, and an Aho-Corasick automaton written in JavaScript at about 200: both visit
 * every character in JavaScript-speed steps. V8 scans fast for a pattern that starts with a
 * small set of characters, so the literals are split in two patterns:
 * - literals that hold one of ANCHOR_CHARS (`_-:.`, rare in prose): the pattern starts at that
 *   character and looks behind it for the rest of the literal's head (`_(?<=ghp_)`), so the
 *   engine stops only at those characters;
 * - the others, as plain alternations, one per first letter (case folded): an alternation whose
 *   branches share their first characters lets the engine skip ahead; one of all of them (the
 *   AWS key prefixes, `secret`, `account`, `dapi`) was twice as slow as three.
 * A hit only says some literal may be present; the detectors then check their own literals.
 */
import { ANCHOR_CHARS } from './required-literals.ts';

export interface GateLiteral {
  readonly text: string;
  readonly ignoreCase: boolean;
}

const SPECIAL = /[.*+?^${}()|[\]\\/-]/g;

/** `text` as a pattern: escaped, and each letter as `[xX]` when case does not matter. */
function literalPattern(text: string, ignoreCase: boolean): string {
  let out = '';
  for (const c of text) {
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if (ignoreCase && lower !== upper) out += `[${lower}${upper}]`;
    else out += c.replace(SPECIAL, '\\$&');
  }
  return out;
}

/** `_(?<=ghp_)` for `ghp_`: the anchor first, then the head behind it, then the tail. */
function anchoredPattern(literal: GateLiteral, at: number): string {
  const head = literal.text.slice(0, at + 1);
  const tail = literal.text.slice(at + 1);
  const anchor = literalPattern(literal.text[at]!, false);
  const behind = at === 0 ? '' : `(?<=${literalPattern(head, literal.ignoreCase)})`;
  return anchor + behind + literalPattern(tail, literal.ignoreCase);
}

function anchorOf(text: string): number {
  let best = -1;
  for (const c of ANCHOR_CHARS) {
    const at = text.indexOf(c);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

export class NativeGate {
  private readonly patterns: readonly RegExp[];

  constructor(literals: readonly GateLiteral[]) {
    const anchored: string[] = [];
    const plain = new Map<string, string[]>();
    for (const literal of literals) {
      const at = anchorOf(literal.text);
      if (at >= 0) {
        anchored.push(anchoredPattern(literal, at));
        continue;
      }
      const first = literal.text.charAt(0).toLowerCase();
      plain.set(first, [...(plain.get(first) ?? []), literalPattern(literal.text, literal.ignoreCase)]);
    }
    this.patterns = [anchored, ...plain.values()].filter((list) => list.length > 0).map((list) => new RegExp([...new Set(list)].join('|')));
  }

  /** Whether any literal may occur in `text` (never false when one does). */
  test(text: string): boolean {
    for (const pattern of this.patterns) if (pattern.test(text)) return true;
    return false;
  }
}
