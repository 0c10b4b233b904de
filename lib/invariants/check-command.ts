/**
 * The body of `transcript-hygiene check`: read a transcript, optionally run the pipeline over it,
 * check the result against the route's provider rules and print the violations. Argument parsing
 * stays in lib/cli.ts with the other commands; this module gets the parsed values.
 *
 * The check needs the whole list (pairing looks one turn ahead, Responses pairing looks back over
 * the whole input), so the messages are held in memory.
 */
import type { Readable, Writable } from 'node:stream';
import { createPipeline } from '../pipeline.ts';
import { readTranscript, type Transcript } from '../read-transcript.ts';
import { inputWarnings } from '../input-warnings.ts';
import type { HygieneOptions } from '../options.ts';
import { imageCensusIfImages } from '../image-census.ts';
import type { Message } from '../types.ts';
import { checkTranscript, invariantsFor } from './index.ts';
import type { Violation } from './types.ts';
import { foreignRoleViolations, type RoleViolation } from './foreign-roles.ts';
import { describeMessageless, fileHead, recordHead } from '../session/input-check.ts';
import { isRecord } from '../types.ts';

type RoleOrRuleViolation = Violation | RoleViolation;

/** Exit code of `check` when the transcript breaks a provider rule (the issue fixes it at 1). */
export const EXIT_VIOLATIONS = 1;

export interface CheckCommandParams {
  /** A readable file path, or undefined for `stdin`. */
  file: string | undefined;
  stdin: Readable;
  stdout: Writable;
  /** Where the warnings about skipped input go (as sanitize prints them). */
  stderr: Writable;
  options: HygieneOptions;
  format: 'auto' | 'jsonl' | 'json';
  afterHygiene: boolean;
  json: boolean;
  /** The transcript, already read (a database session): the file is then only named. */
  transcript?: Transcript;
}

/** The pipeline's output for the messages, as `sanitize` writes it (request-time steps included). */
export async function hygieneOutput(messages: readonly Message[], options: HygieneOptions): Promise<Message[]> {
  const out: Message[] = [];
  const pipeline = createPipeline({ imageCensus: imageCensusIfImages(messages), ...options }, (message) => out.push(message));
  try {
    for (const message of messages) {
      const wait = pipeline.write(message);
      if (wait !== undefined) await wait;
    }
    await pipeline.end();
  } finally {
    pipeline.dispose();
  }
  return out;
}

function describe(violation: RoleOrRuleViolation & { line?: number; seq?: number }): string {
  const at = violation.line !== undefined ? ` (line ${violation.line})` : violation.seq !== undefined ? ` (seq ${violation.seq})` : '';
  const where = `message ${violation.index}${at}`;
  const detail = [violation.id === undefined ? undefined : `id ${JSON.stringify(violation.id)}`, violation.block === undefined ? undefined : `block ${violation.block}`].filter(Boolean);
  return `${where}: ${violation.rule}${detail.length > 0 ? ` [${detail.join(', ')}]` : ''}: ${violation.message}`;
}

/** Runs the check; returns the exit code (0 clean, EXIT_VIOLATIONS when anything is reported). */
export async function runCheckCommand(params: CheckCommandParams): Promise<number> {
  const source = params.file ?? '<stdin>';
  let transcript = params.transcript;
  let given: Message[];
  if (transcript === undefined) {
    const recorded = params.file === undefined ? recordHead(params.stdin) : undefined;
    transcript = await readTranscript({ file: params.file, stdin: recorded?.input ?? params.stdin, source, format: params.format }, params.options);
    given = transcript.messages;
    // An input that holds no message is not a clean transcript: say what it holds (as sanitize does).
    if (!given.some((message) => isRecord(message) && Boolean(message.role))) throw describeMessageless(source, recorded?.head() ?? (await fileHead(params.file!)));
    for (const warning of inputWarnings(source, { session: transcript.session, invalidUtf8: transcript.invalidUtf8 })) params.stderr.write(`transcript-hygiene: warning: ${warning}\n`);
  } else given = transcript.messages;
  const checked = params.afterHygiene ? await hygieneOutput(given, transcript.options) : given;
  const route = { ...params.options };
  const { families } = invariantsFor(route);
  const violations = [...checkTranscript(checked, route), ...foreignRoleViolations(checked)].sort((a, b) => a.index - b.index).map((violation) => {
    const message = checked[violation.index];
    const line = params.afterHygiene || message === undefined || message === null || typeof message !== 'object' ? undefined : transcript.lineOf(message);
    if (line === undefined) return violation;
    return transcript.lineKind === 'seq' ? { ...violation, seq: line } : { ...violation, line };
  });

  const what = params.afterHygiene ? 'after hygiene' : 'as given';
  if (params.json) {
    const report = {
      route: { provider: route.provider, modelApi: route.modelApi, modelId: route.modelId, reasoning: route.reasoning ?? false, thinking: route.thinking ?? false },
      checked: params.afterHygiene ? 'after-hygiene' : 'input',
      families,
      messages: checked.length,
      violations,
    };
    params.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else if (families.length === 0) {
    params.stdout.write(`${source}: no provider rules are known for this route; nothing to check (${checked.length} messages, ${what})\n`);
  } else {
    const rules = families.join(', ');
    const lines = violations.map(describe);
    const head =
      violations.length === 0
        ? `${source}: no violations of the ${rules} rules (${checked.length} messages, ${what})`
        : `${source}: ${violations.length} violation${violations.length === 1 ? '' : 's'} of the ${rules} rules (${checked.length} messages, ${what}):`;
    params.stdout.write([head, ...lines.map((line) => `  ${line}`)].join('\n') + '\n');
  }
  return violations.length === 0 ? 0 : EXIT_VIOLATIONS;
}
