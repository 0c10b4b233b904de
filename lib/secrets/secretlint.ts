/**
 * secretlint's recommended rules as synchronous detectors, compiled once per scanner.
 *
 * secretlint's own API (`lintSource` of @secretlint/core) is made for files: one call builds a
 * line index of the text, registers every rule through event emitters and resolves a promise.
 * On the mixed bench workload's strings that is 370-950 µs a string (0.6-1.7 MB/s; `npm run
 * bench:redact -- --secretlint-api N`), far too slow for a stream. So the preset's rules are created here once, through
 * the same preset entry point and a minimal rule context of ours (report, ignore, translator),
 * and each rule's `file(source)` handler is called directly and synchronously on a text.
 *
 * Running all the handlers on every string is still one regular-expression pass per pattern
 * (about 10 MB/s on the same workload), so each rule is also put behind a gate: its handler is
 * called once at start-up on a recording text whose `matchAll` keeps the regular expressions the
 * rule uses, and `requiredLiterals` derives from them substrings without which none of them can
 * match. The handler then runs only on the texts that contain one (lib/secrets/native-gate.ts
 * finds them). A rule whose patterns yield no such literal would run on every text.
 * test/secrets/scanner.test.ts holds the findings to `lintSource`'s on the fixture corpora.
 *
 * The preset is loaded only when redaction is asked for (about 60 ms), with `require`, so
 * pipelines stay synchronous to build.
 */
import { createRequire } from 'node:module';
import { requiredLiterals, type RequiredLiterals } from './required-literals.ts';

/** One secret found in a text: [start, end) and the detector that found it. */
export interface SecretSpan {
  start: number;
  end: number;
  rule: string;
  /** Values the detector reported as the secret itself (secretlint's message data), for allow-listing. */
  values?: readonly string[];
}

/** A detector of one kind of secret, behind a gate of literals. */
export interface SecretDetector {
  /** The short rule id written into `[REDACTED:<id>]` and the counters. */
  readonly id: string;
  /** Any of these present in a text means the detector must look at it. */
  readonly gate: readonly RequiredLiterals[] | undefined;
  /** A quick pattern: a text it matches must be looked at too. With neither, every text is. */
  readonly probe?: RegExp;
  find(text: string, out: SecretSpan[]): void;
}

/** The slice of secretlint's rule interface this module uses (its types package is not a dependency). */
interface SecretlintRuleCreator {
  meta: { id: string; type?: string };
  create(context: SecretlintRuleContext, options: Record<string, unknown>): { file?: (source: SecretlintSource) => unknown };
}

interface SecretlintReport {
  range: readonly [number, number];
  message: { messageId?: string; data?: Record<string, unknown> };
}

interface SecretlintRuleContext {
  sharedOptions: Record<string, unknown>;
  createTranslator(messages: unknown): (messageId: string, data?: Record<string, unknown>) => { message: string; messageId: string; data?: Record<string, unknown> };
  report(descriptor: SecretlintReport): void;
  ignore(descriptor: unknown): void;
}

interface SecretlintSource {
  content: string;
  filePath: string | undefined;
  ext: string;
  contentType: 'text';
}

interface SecretlintPreset {
  meta: { id: string };
  create(context: { sharedOptions: Record<string, unknown>; registerRule(rule: SecretlintRuleCreator): void }, options: unknown): void;
}

const PRESET = '@secretlint/secretlint-rule-preset-recommend';
const RULE_PREFIX = '@secretlint/secretlint-rule-';

/**
 * Rules of the preset left out, with why:
 * - filter-comments reads `secretlint-disable` comments: in a transcript anyone (the model, a
 *   file a tool read) could write one, and a redaction must not be switched off by its input.
 * - gcp looks only at files named *.p12 (a key store it decrypts) and *.json (a service-account
 *   key file as a whole); a transcript's strings are neither, and the private key inside such a
 *   file is the privatekey rule's.
 */
const LEFT_OUT = new Set(['@secretlint/secretlint-rule-filter-comments', '@secretlint/secretlint-rule-gcp']);

/**
 * Options given to rules of the preset: the AWS rule scans access key ids (`AKIA...`) only with
 * `enableIDScanRule`; an id with its secret is what leaks in `env` dumps, so it is on here.
 */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

/**
 * What every match of an assignment pattern holds: `:` or `=` (also the first of `=>`), then
 * `>`, blanks or a quote, then 12 characters of a value. V8 scans for this far quicker than for
 * the words of these patterns (`secret`, `account`, in three cases each).
 */
export const ASSIGNMENT_SHAPE = /[:=][>\s"']*[A-Za-z0-9+/=_~.-]{12}/;

/**
 * The preset's patterns known to be assignments (aws's AWSSecretAccessKey, 40 characters of
 * [A-Za-z0-9/+=], and AWSAccountID, 12 digits with optional dashes, after `:`, `=` or `=>`):
 * gated by ASSIGNMENT_SHAPE instead of their literals. Keyed by the exact source, so a pattern a
 * new release changes falls back to its literals; test/secrets/required-literals.test.ts checks
 * that these still are the preset's and that every string they match has the shape.
 */
export const ASSIGNMENT_PATTERNS: ReadonlySet<string> = new Set([
  String.raw`("|')?(AWS|aws|Aws)?_?(ACCOUNT|account|Account)_?(ID|id|Id)?("|')?\s*(:|=>|=)\s*("|')?[0-9]{4}\-?[0-9]{4}\-?[0-9]{4}("|')?\b`,
  String.raw`["']?(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?\s*(?::|=>|=)\s*["']?([A-Za-z0-9/\+=]{40})["']?\b`,
]);

/** The short id of a secretlint rule: `@secretlint/secretlint-rule-aws` is `aws`. */
export function shortRuleId(id: string): string {
  return id.startsWith(RULE_PREFIX) ? id.slice(RULE_PREFIX.length) : id;
}

let presetRules: readonly SecretlintRuleCreator[] | undefined;

/** The preset's scanner rules, in its order, without the ones left out (loaded on first use). */
export function secretlintRules(): readonly SecretlintRuleCreator[] {
  if (presetRules !== undefined) return presetRules;
  const require = createRequire(import.meta.url);
  const { creator } = require(PRESET) as { creator: SecretlintPreset };
  const rules: SecretlintRuleCreator[] = [];
  creator.create({ sharedOptions: {}, registerRule: (rule) => void (LEFT_OUT.has(rule.meta.id) ? undefined : rules.push(rule)) }, {});
  presetRules = Object.freeze(rules);
  return presetRules;
}

/** The preset in use, `name@version`, for reports. */
export function secretlintPreset(): string {
  const require = createRequire(import.meta.url);
  return `${PRESET}@${(require(`${PRESET}/package.json`) as { version: string }).version}`;
}

/** The regular expressions a rule's handler passes to `matchAll`, recorded on an empty text. */
export function recordPatterns(handler: { file?: (source: SecretlintSource) => unknown }): RegExp[] {
  const patterns: RegExp[] = [];
  const content = {
    length: 0,
    matchAll(pattern: RegExp) {
      patterns.push(pattern);
      return [][Symbol.iterator]();
    },
    toString: () => '',
  };
  handler.file?.({ content: content as unknown as string, filePath: undefined, ext: '.txt', contentType: 'text' });
  return patterns;
}

/**
 * The span of a report: where the values the rule reported as the secret occur, starting within
 * the reported range, or the range itself when they do not. Some rules report a range that starts
 * at the key's name and is as long as the value (aws's AWSSecretAccessKey, npm's x-oauth-basic
 * token): the value itself is what goes, and the name stays readable.
 */
function spanOf(text: string, start: number, end: number, values: readonly string[]): [number, number] {
  let from = Infinity;
  let to = -1;
  for (const value of values) {
    if (value.length === 0) continue;
    const at = text.indexOf(value, start);
    if (at < 0 || at >= end) continue;
    from = Math.min(from, at);
    to = Math.max(to, at + value.length);
  }
  return to < 0 ? [start, end] : [from, to];
}

/** secretlint's recommended rules as detectors. */
export function secretlintDetectors(): SecretDetector[] {
  const detectors: SecretDetector[] = [];
  for (const rule of secretlintRules()) {
    const id = shortRuleId(rule.meta.id);
    let sink: SecretSpan[] = [];
    let current = '';
    const context: SecretlintRuleContext = {
      sharedOptions: {},
      // The message text would hold the secret: only the id and data are kept.
      createTranslator: () => (messageId, data) => ({ message: '', messageId, data }),
      report(descriptor) {
        const values = Object.values(descriptor.message.data ?? {}).filter((v): v is string => typeof v === 'string');
        const [start, end] = spanOf(current, descriptor.range[0], descriptor.range[1], values);
        sink.push({ start, end, rule: id, values });
      },
      ignore() {},
    };
    const handler = rule.create(context, { ...RULE_OPTIONS[rule.meta.id] });
    const patterns = recordPatterns(handler);
    const assignments = patterns.filter((pattern) => ASSIGNMENT_PATTERNS.has(pattern.source));
    const literals = patterns.filter((pattern) => !ASSIGNMENT_PATTERNS.has(pattern.source)).map((pattern) => requiredLiterals(pattern));
    const gated = patterns.length > 0 && literals.every((l) => l !== undefined);
    // A rule with a pattern of no known literal and no known shape is looked at for every text.
    const gate = gated && literals.length > 0 ? (literals as RequiredLiterals[]) : undefined;
    const probe = gated && assignments.length > 0 ? ASSIGNMENT_SHAPE : undefined;
    const source: SecretlintSource = { content: '', filePath: undefined, ext: '.txt', contentType: 'text' };
    detectors.push({
      id,
      gate: gated || probe !== undefined ? gate : undefined,
      ...(probe === undefined ? {} : { probe }),
      find(text, out) {
        sink = out;
        current = text;
        source.content = text;
        // Every handler of the preset is synchronous for a .txt source (gcp's, left out, is not).
        handler.file?.(source);
      },
    });
  }
  return detectors;
}
