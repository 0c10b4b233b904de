/**
 * The `redact` option: validated into plain, comparable data, and the scanner it builds (one
 * per distinct option value in a process: building one loads secretlint and compiles its gate).
 */
import { HygieneError } from '../errors.ts';
import { createSecretScanner, type SecretScanner, type SecretScannerOptions } from './scanner.ts';

/** A user pattern: `/source/flags` (or a RegExp), optionally named; the name makes the rule id `user:<name>`. */
export type RedactPatternOption = string | RegExp | { name?: string; pattern: string | RegExp };

export interface RedactOptions {
  /** secretlint's recommended rules and the generic `NAME=value` detector. */
  secrets?: boolean;
  /** The generic high-entropy `NAME=value` detector, with `secrets` (default true). */
  generic?: boolean;
  /** The user's patterns, run whether or not `secrets` is on. */
  patterns?: readonly RedactPatternOption[];
  /** Values never redacted: an exact string, or `/source/flags` (or a RegExp) tested against the value. */
  allow?: readonly (string | RegExp)[];
}

/** What the scanner is built from, every field given. */
export interface ResolvedRedactOptions extends Readonly<Required<SecretScannerOptions>> {
  /** A canonical text of the above: equal for equal options (the export's options hash, the scanner cache). */
  readonly key: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const SLASHED = /^\/(.*)\/([a-z]*)$/s;

function invalid(message: string): HygieneError {
  return new HygieneError('invalid_option', `Invalid option \`redact\`: ${message}`);
}

/** `/source/flags` as a RegExp; undefined when the text is not of that form. */
export function parseSlashed(text: string): RegExp | undefined {
  const match = SLASHED.exec(text);
  if (match === null) return undefined;
  try {
    return new RegExp(match[1]!, match[2]!);
  } catch (error) {
    throw invalid(`${JSON.stringify(text)} is not a valid regular expression (${(error as Error).message})`);
  }
}

function toRegExp(value: string | RegExp, where: string): RegExp {
  if (value instanceof RegExp) return value;
  if (typeof value !== 'string' || value === '') throw invalid(`${where} must be a regular expression or a non-empty string, got ${JSON.stringify(value)}`);
  const slashed = parseSlashed(value);
  if (slashed !== undefined) return slashed;
  try {
    return new RegExp(value);
  } catch (error) {
    throw invalid(`${where} ${JSON.stringify(value)} is not a valid regular expression (${(error as Error).message})`);
  }
}

function patternOf(option: RedactPatternOption, index: number): { name: string; pattern: RegExp } {
  const where = `patterns[${index}]`;
  const named = typeof option === 'object' && !(option instanceof RegExp) && option !== null;
  const name = named ? (option.name ?? `pattern-${index + 1}`) : `pattern-${index + 1}`;
  if (typeof name !== 'string' || !NAME.test(name)) throw invalid(`${where}.name must be 1-64 letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);
  const pattern = toRegExp(named ? option.pattern : option, where);
  if (pattern.test('')) throw invalid(`${where} ${pattern} matches the empty string`);
  return { name, pattern };
}

function allowOf(entry: string | RegExp, index: number): string | RegExp {
  if (entry instanceof RegExp) return entry;
  if (typeof entry !== 'string' || entry === '') throw invalid(`allow[${index}] must be a non-empty string or a RegExp, got ${JSON.stringify(entry)}`);
  return parseSlashed(entry) ?? entry;
}

/** Undefined when nothing is to be redacted. */
export function resolveRedactOptions(value: unknown): ResolvedRedactOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`expected an object, got ${JSON.stringify(value)}`);
  const raw = value as RedactOptions;
  for (const key of Object.keys(raw)) {
    if (!['secrets', 'generic', 'patterns', 'allow'].includes(key)) throw invalid(`unknown field "${key}" (allowed: secrets, generic, patterns, allow)`);
  }
  for (const key of ['secrets', 'generic'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'boolean') throw invalid(`${key} must be a boolean, got ${JSON.stringify(raw[key])}`);
  }
  if (raw.patterns !== undefined && !Array.isArray(raw.patterns)) throw invalid('patterns must be an array');
  if (raw.allow !== undefined && !Array.isArray(raw.allow)) throw invalid('allow must be an array');
  const patterns = (raw.patterns ?? []).map(patternOf);
  const names = new Set<string>();
  for (const { name } of patterns) {
    if (names.has(name)) throw invalid(`two patterns are named ${JSON.stringify(name)}`);
    names.add(name);
  }
  const secrets = raw.secrets ?? false;
  if (!secrets && patterns.length === 0) return undefined;
  const allow = (raw.allow ?? []).map(allowOf);
  const generic = raw.generic ?? true;
  const key = JSON.stringify({
    secrets,
    generic: secrets && generic,
    patterns: patterns.map((p) => [p.name, String(p.pattern)]),
    allow: allow.map((a) => (typeof a === 'string' ? a : String(a))),
  });
  return Object.freeze({ secrets, generic: secrets && generic, patterns: Object.freeze(patterns), allow: Object.freeze(allow), key });
}

const scanners = new Map<string, SecretScanner>();

/** The scanner for these options, built on first use and kept for the process. */
export function scannerFor(options: ResolvedRedactOptions): SecretScanner {
  let scanner = scanners.get(options.key);
  if (scanner === undefined) {
    scanner = createSecretScanner(options);
    scanners.set(options.key, scanner);
  }
  return scanner;
}
