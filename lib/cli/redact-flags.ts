/**
 * The redaction flags `sanitize` and `export` share: `--redact secrets`, `--redact-pattern
 * [NAME=]/REGEX/FLAGS` and `--redact-allow VALUE` (both repeatable), `--redact-config FILE`
 * (JSON: `{"patterns": [...], "allow": [...], "generic": false}`, the library's option shape).
 */
import { readFile } from 'node:fs/promises';
import type { ParseArgsConfig } from 'node:util';
import type { RedactOptions, RedactPatternOption } from '../secrets/redact-options.ts';
import { UsageError } from './args.ts';

export const REDACT_OPTIONS = {
  redact: { type: 'string' },
  'redact-pattern': { type: 'string', multiple: true },
  'redact-allow': { type: 'string', multiple: true },
  'redact-config': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

interface RedactFlagValues {
  redact?: string;
  'redact-pattern'?: string[];
  'redact-allow'?: string[];
  'redact-config'?: string;
}

const NAMED = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})=(\/.*\/[a-z]*)$/s;

/** `NAME=/REGEX/FLAGS` or `/REGEX/FLAGS`. */
export function patternFlag(text: string): RedactPatternOption {
  const named = NAMED.exec(text);
  if (named !== null) return { name: named[1]!, pattern: named[2]! };
  if (/^\/.*\/[a-z]*$/s.test(text)) return text;
  throw new UsageError(`--redact-pattern takes /REGEX/FLAGS or NAME=/REGEX/FLAGS, got ${JSON.stringify(text)}`);
}

async function readConfig(file: string): Promise<RedactOptions> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--redact-config ${file}: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--redact-config ${file}: expected a JSON object with "patterns", "allow" or "generic"`);
  const config = value as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!['patterns', 'allow', 'generic'].includes(key)) throw new UsageError(`--redact-config ${file}: unknown field "${key}" (allowed: patterns, allow, generic)`);
  }
  return config as RedactOptions;
}

/** The `redact` option of the flags, or undefined when none is given. */
export async function redactOf(values: RedactFlagValues): Promise<RedactOptions | undefined> {
  if (values.redact !== undefined && values.redact !== 'secrets') throw new UsageError(`--redact takes 'secrets', got ${JSON.stringify(values.redact)}`);
  const config = values['redact-config'] === undefined ? {} : await readConfig(values['redact-config']);
  const patterns = [...(config.patterns ?? []), ...(values['redact-pattern'] ?? []).map(patternFlag)];
  const allow = [...(config.allow ?? []), ...(values['redact-allow'] ?? [])];
  const secrets = values.redact === 'secrets';
  if (!secrets && patterns.length === 0) {
    if (allow.length > 0 || values['redact-config'] !== undefined) throw new UsageError('--redact-allow and --redact-config need --redact secrets or a --redact-pattern');
    return undefined;
  }
  return { secrets, ...(config.generic === undefined ? {} : { generic: config.generic }), ...(patterns.length > 0 ? { patterns } : {}), ...(allow.length > 0 ? { allow } : {}) };
}
