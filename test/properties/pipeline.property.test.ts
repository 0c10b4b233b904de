/**
 * Property tests: for arbitrary transcripts (test/properties/arbitraries.ts: every message and
 * block shape of the spec, well-formed and broken), the pipeline's output for each representative
 * policy
 * 1. breaks none of the route's provider rules (lib/invariants): no violation is tolerated;
 * 2. is produced without throwing, except the documented `invalid_replay_transcript` of the
 *    OpenAI Responses replay invariant;
 * 3. is a fixed point: running the pipeline on its own output gives the same output, except where
 *    a cause harness.ts lists applies.
 *
 * Runs: PROPERTY_RUNS per policy (default 2000). Seed: PROPERTY_SEED (a number, or `random`;
 * default fixed, so CI is reproducible); the seed and the shrunk counterexample are printed on
 * failure, and `PROPERTY_SEED=<seed>` replays it. Longer run: `npm run test:props -- --runs 100000`.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { transcriptArbitrary } from './arbitraries.ts';
import { KNOWN_NON_IDEMPOTENCE, POLICIES, isDocumentedRejection, knownNonIdempotenceOf, providerViolations, runPipeline, type PropertyPolicy } from './harness.ts';
import type { Message } from '../../lib/types.ts';
import { isValidToolNameSyntax } from '../../transforms/tool-call-shapes.ts';

const RUNS = positiveInteger(process.env.PROPERTY_RUNS, 2000);
const SEED = seedOf(process.env.PROPERTY_SEED);

function positiveInteger(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new Error(`PROPERTY_RUNS must be a positive integer, got ${JSON.stringify(value)}`);
  return parsed;
}

function seedOf(value: string | undefined): number {
  if (value === undefined || value === '') return 20270101;
  if (value === 'random') return (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new Error(`PROPERTY_SEED must be an integer or "random", got ${JSON.stringify(value)}`);
  return parsed;
}

/** What the known non-idempotence classes absorbed over the whole run, for the summary. */
const idempotenceTally = new Map<string, number>();
let documentedRejections = 0;
/**
 * How often outputs show our answered-call rule (issue 20): a call kept with a name outside the
 * reference's name check (Claude takes it), and a result noted with its call's original name.
 */
const nameRuleTally = { keptMalformedNames: 0, notedResults: 0 };

function tallyNameRule(output: readonly Message[]): void {
  for (const message of output) {
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content) if ((block as { type?: unknown }).type === 'toolCall' && !isValidToolNameSyntax((block as { name?: unknown }).name)) nameRuleTally.keptMalformedNames++;
    } else if (message.role === 'toolResult' && JSON.stringify(message.content ?? null).includes('[tool name: ')) {
      nameRuleTally.notedResults++;
    }
  }
}

const show = (messages: readonly unknown[]): string => JSON.stringify(messages);

async function checkOne(policy: PropertyPolicy, messages: Message[], thinking: boolean): Promise<void> {
  const route = { ...policy.route, thinking };
  const withThinking: PropertyPolicy = { ...policy, route };
  let once: Message[];
  try {
    once = await runPipeline(structuredClone(messages), route);
  } catch (error) {
    if (isDocumentedRejection(error, policy)) {
      documentedRejections++;
      return;
    }
    throw new Error(`the pipeline threw (only invalid_replay_transcript is documented): ${(error as Error).stack ?? String(error)}`);
  }

  const unexpected = providerViolations(withThinking, once);
  assert.deepEqual(unexpected, [], `output breaks ${policy.name} provider rules:\n${unexpected.map((v) => `  ${v.index} ${v.rule}: ${v.message}`).join('\n')}\noutput: ${show(once)}`);
  tallyNameRule(once);

  let twice: Message[] | undefined;
  let secondError: unknown;
  try {
    twice = await runPipeline(structuredClone(once), route);
  } catch (error) {
    secondError = error;
  }
  if (twice !== undefined && isDeepStrictEqual(twice, once)) return;
  const known = knownNonIdempotenceOf(withThinking, once, messages);
  if (known !== undefined) {
    idempotenceTally.set(known.name, (idempotenceTally.get(known.name) ?? 0) + 1);
    return;
  }
  assert.fail(
    secondError === undefined
      ? `not idempotent for ${policy.name}:\nonce:  ${show(once)}\ntwice: ${show(twice!)}`
      : `the pipeline accepted this input but threw on its own output: ${String(secondError)}\nonce: ${show(once)}`,
  );
}

describe(`pipeline properties (${RUNS} transcripts per policy, seed ${SEED})`, () => {
  for (const policy of POLICIES) {
    test(policy.name, async () => {
      await fc.assert(
        fc.asyncProperty(transcriptArbitrary(), fc.boolean(), (messages, thinking) => checkOne(policy, messages, thinking)),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );
    });
  }

  test('the transcripts reach the answered-call rule: malformed names kept for Claude, renamed calls noted elsewhere', () => {
    if (RUNS < 200) return;
    assert.ok(nameRuleTally.keptMalformedNames > 0, 'no call with a malformed name was kept');
    assert.ok(nameRuleTally.notedResults > 0, 'no result carries a renamed call\'s original name');
  });

  after(() => {
    // The tolerated non-idempotence classes, so they stay visible (and a class that no longer occurs can be removed).
    const lines = [
      `property seed ${SEED}, ${RUNS} runs per policy; documented invalid_replay_transcript rejections: ${documentedRejections}`,
      `  answered-call rule: ${nameRuleTally.keptMalformedNames} malformed names kept, ${nameRuleTally.notedResults} results noted with their call's original name`,
    ];
    for (const known of KNOWN_NON_IDEMPOTENCE) lines.push(`  known non-idempotence (${idempotenceTally.get(known.name) ?? 0}): ${known.name}`);
    if (process.env.PROPERTY_SUMMARY !== '0') console.log(lines.join('\n'));
  });
});
