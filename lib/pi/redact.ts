/**
 * Redaction in the pi extension: off by default, since a runner sends its secrets to its own
 * provider on purpose (the key it was given, the `.env` it was asked to read). On for a pi
 * process started with `TRANSCRIPT_HYGIENE_REDACT=secrets` (secretlint's rules and the generic
 * detector); `TRANSCRIPT_HYGIENE_REDACT_CONFIG=FILE` adds the user's patterns and allowed values
 * (the JSON of `--redact-config`). Read once, when pi loads the extension.
 */
import { readFileSync } from 'node:fs';
import { resolveRedactOptions, type RedactOptions } from '../secrets/redact-options.ts';

export const REDACT_ENV = 'TRANSCRIPT_HYGIENE_REDACT';
export const REDACT_CONFIG_ENV = 'TRANSCRIPT_HYGIENE_REDACT_CONFIG';

export interface PiRedaction {
  /** Undefined: the context goes out unredacted. */
  readonly redact: RedactOptions | undefined;
  /** What was wrong with the settings, to tell the user once; what could be used is used. */
  readonly problem: string | undefined;
}

export function redactionFromEnv(env: NodeJS.ProcessEnv): PiRedaction {
  const mode = env[REDACT_ENV];
  if (mode === undefined || mode === '') return { redact: undefined, problem: undefined };
  if (mode !== 'secrets') return { redact: undefined, problem: `${REDACT_ENV} takes 'secrets', got ${JSON.stringify(mode)}: nothing is redacted` };
  const file = env[REDACT_CONFIG_ENV];
  if (file === undefined || file === '') return { redact: { secrets: true }, problem: undefined };
  try {
    const config = JSON.parse(readFileSync(file, 'utf8')) as Omit<RedactOptions, 'secrets'>;
    const redact: RedactOptions = { ...config, secrets: true };
    resolveRedactOptions(redact);
    return { redact, problem: undefined };
  } catch (error) {
    return { redact: { secrets: true }, problem: `${REDACT_CONFIG_ENV} ${file}: ${(error as Error).message}; redacting with the built-in rules only` };
  }
}
