/**
 * Finds secrets in a text and replaces each with `[REDACTED:<rule id>]`.
 *
 * Detectors: secretlint's recommended rules (lib/secrets/secretlint.ts), the user's patterns,
 * and a generic `NAME=value` detector for high-entropy values assigned to names that say
 * key, secret, token or password. Every detector sits behind a gate: literals its matches must
 * contain (found for all detectors at once by lib/secrets/native-gate.ts), or for the generic
 * detector a quick pattern of its shape; a text that opens no gate (most of a transcript) costs
 * those scans and nothing more.
 *
 * A text is scanned whole, as one string: however the input's bytes were cut into chunks and
 * lines were decoded, a secret inside one JSON string value is contiguous here.
 */
import { requiredLiterals } from './required-literals.ts';
import { ASSIGNMENT_SHAPE, secretlintDetectors, type SecretDetector, type SecretSpan } from './secretlint.ts';
import { NativeGate, type GateLiteral } from './native-gate.ts';
import type { RequiredLiterals } from './required-literals.ts';

export type { SecretSpan, SecretDetector };

/** A user pattern: a name (it becomes the rule id `user:<name>`) and a regular expression. */
export interface RedactPattern {
  name: string;
  pattern: RegExp;
}

export interface SecretScannerOptions {
  /** secretlint's recommended rules (default true). */
  secrets?: boolean;
  /** The generic high-entropy `NAME=value` detector (default true). */
  generic?: boolean;
  patterns?: readonly RedactPattern[];
  /** Values never redacted: a string is an exact value, a RegExp is tested against it. */
  allow?: readonly (string | RegExp)[];
}

export interface SecretScanner {
  /** The ids of the detectors in use, in order. */
  readonly rules: readonly string[];
  /** The secrets found in `text`, sorted and without overlaps (overlapping finds are merged into the first). */
  find(text: string): SecretSpan[];
  /** `text` with every secret replaced, or the same string when it holds none; `onRedacted` is called once per replacement. */
  redact(text: string, onRedacted?: (rule: string) => void): string;
}

export const REDACTED_PREFIX = '[REDACTED:';

const USER_PREFIX = 'user:';
export const GENERIC_RULE_ID = 'generic-assignment';

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a name that says what the value is, then a
 * value of 16-4096 token characters (a JWT is long). Which of these are secrets is decided by `isLikelySecret`.
 */
const GENERIC_ASSIGNMENT =
  /(?:key|secret|token|passw(?:or)?d|pwd|credential)[A-Za-z0-9_.-]*["']?[ \t]*(?::|=|=>)[ \t]*["']?([A-Za-z0-9+/=_~.-]{16,4096})(?![A-Za-z0-9+/=_~.-])/dgi;
// Every GENERIC_ASSIGNMENT match has ASSIGNMENT_SHAPE (an operator, then blanks or a quote, then
// 16 value characters): the detector's gate, far quicker to scan for than its six name words.

const HEX = /^[0-9a-fA-F]+$/;
const HAS_DIGIT = /[0-9]/;
const HAS_LETTER = /[A-Za-z]/;

/** Shannon entropy of the text's characters, in bits per character. */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * A value that looks generated rather than written: letters and digits mixed, at least 3.5 bits
 * of entropy a character, and not hexadecimal, dashes aside (hashes, UUIDs and ids are assigned to `key` names far
 * more often than hex secrets are; the provider rules catch the hex tokens they know).
 */
export function isLikelySecret(value: string): boolean {
  if (!HAS_DIGIT.test(value) || !HAS_LETTER.test(value)) return false;
  if (HEX.test(value.replaceAll('-', ''))) return false; // hashes, UUIDs
  return shannonEntropy(value) >= 3.5;
}

function regexDetector(id: string, pattern: RegExp, accept?: (value: string) => boolean, group = 0, probe?: RegExp): SecretDetector {
  const flags = pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g';
  const global = new RegExp(pattern.source, group > 0 && !flags.includes('d') ? flags + 'd' : flags);
  const literals = probe === undefined ? requiredLiterals(pattern) : undefined;
  return {
    id,
    gate: literals === undefined ? undefined : [literals],
    ...(probe === undefined ? {} : { probe }),
    find(text, out) {
      global.lastIndex = 0;
      for (let match = global.exec(text); match !== null; match = global.exec(text)) {
        if (match[0] === '') {
          global.lastIndex++;
          continue;
        }
        const value = match[group];
        const at = group === 0 ? [match.index, match.index + match[0].length] : match.indices?.[group];
        if (value === undefined || at === undefined) continue;
        if (accept !== undefined && !accept(value)) continue;
        out.push({ start: at[0], end: at[1], rule: id, values: [value] });
      }
    },
  };
}

function gateHit(gate: readonly RequiredLiterals[], text: string, lower: () => string): boolean {
  for (const set of gate) {
    const haystack = set.ignoreCase ? lower() : text;
    for (const literal of set.literals) if (haystack.includes(literal)) return true;
  }
  return false;
}

function isAllowed(span: SecretSpan, text: string, allow: readonly (string | RegExp)[]): boolean {
  const candidates = [text.slice(span.start, span.end), ...(span.values ?? [])];
  for (const entry of allow) {
    for (const candidate of candidates) {
      if (typeof entry === 'string' ? candidate === entry : (entry.lastIndex = 0, entry.test(candidate))) return true;
    }
  }
  return false;
}

export function createSecretScanner(options: SecretScannerOptions = {}): SecretScanner {
  const detectors: SecretDetector[] = [];
  if (options.secrets ?? true) detectors.push(...secretlintDetectors());
  if (options.generic ?? true) detectors.push(regexDetector(GENERIC_RULE_ID, GENERIC_ASSIGNMENT, isLikelySecret, 1, ASSIGNMENT_SHAPE));
  for (const { name, pattern } of options.patterns ?? []) detectors.push(regexDetector(USER_PREFIX + name, pattern));
  const allow = options.allow ?? [];
  const literals: GateLiteral[] = detectors.flatMap((d) => (d.gate ?? []).flatMap((set) => set.literals.map((text) => ({ text, ignoreCase: set.ignoreCase }))));
  const gate = new NativeGate(literals);

  const find = (text: string): SecretSpan[] => {
    const spans: SecretSpan[] = [];
    // Detectors run in their order, so that of two finds of the same span the first detector's id is kept.
    let open: boolean | undefined;
    let lowered: string | undefined;
    const lower = (): string => (lowered ??= text.toLowerCase());
    // Each probe is tried once per text, however many detectors share it.
    const probed = new Map<RegExp, boolean>();
    const probeHit = (probe: RegExp): boolean => {
      let hit = probed.get(probe);
      if (hit === undefined) probed.set(probe, (hit = probe.test(text)));
      return hit;
    };
    for (const detector of detectors) {
      const { gate: literals, probe } = detector;
      if (literals !== undefined || probe !== undefined) {
        const byProbe = probe !== undefined && probeHit(probe);
        const byLiterals = !byProbe && literals !== undefined && (open ??= gate.test(text)) && gateHit(literals, text, lower);
        if (!byProbe && !byLiterals) continue;
      }
      detector.find(text, spans);
    }
    if (spans.length === 0) return spans;
    const kept = allow.length === 0 ? spans : spans.filter((span) => !isAllowed(span, text, allow));
    kept.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: SecretSpan[] = [];
    for (const span of kept) {
      const last = merged[merged.length - 1];
      if (last !== undefined && span.start < last.end) {
        if (span.end > last.end) last.end = span.end;
        continue;
      }
      merged.push({ start: span.start, end: span.end, rule: span.rule });
    }
    return merged;
  };

  return {
    rules: detectors.map((d) => d.id),
    find,
    redact(text, onRedacted) {
      const spans = find(text);
      if (spans.length === 0) return text;
      let out = '';
      let cursor = 0;
      for (const span of spans) {
        out += text.slice(cursor, span.start) + REDACTED_PREFIX + span.rule + ']';
        cursor = span.end;
        onRedacted?.(span.rule);
      }
      return out + text.slice(cursor);
    },
  };
}
