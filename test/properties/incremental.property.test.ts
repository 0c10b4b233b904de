/**
 * Property test of the incremental runner path (lib/incremental/incremental-sanitizer.ts): a
 * session grows call by call (test/properties/growing-sessions.ts: appended turns, with edits,
 * compactions, branch switches, model switches, thinking, tools and limit switches in between),
 * each call a fresh deep copy as pi hands it, and on EVERY call the incremental result equals a
 * full `sanitizeInMemory` run of the same messages: the messages, `changed`, which outputs are the
 * caller's own objects, the stats (the status line reads them), and the error when one is thrown.
 *
 * Runs: INCREMENTAL_PROPERTY_RUNS sessions (default 100, for CI time; 2000 or more before a change
 * to lib/incremental, lib/fork-state.ts or a rule's state). Seed: PROPERTY_SEED (default fixed).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { sanitizeInMemory, type InMemoryOptions, type InMemoryResult } from '../../lib/in-memory.ts';
import { IncrementalSanitizer } from '../../lib/incremental/incremental-sanitizer.ts';
import type { Message } from '../../lib/types.ts';
import { POLICIES, PROPERTY_NOW } from './harness.ts';
import { applyStep, growingSessionArbitrary, type CallSettings } from './growing-sessions.ts';

const RUNS = positiveInteger(process.env.INCREMENTAL_PROPERTY_RUNS, 100);
const SEED = process.env.PROPERTY_SEED === undefined || process.env.PROPERTY_SEED === '' ? 20261202 : Number(process.env.PROPERTY_SEED);
const MAX_STEPS = 24;

function positiveInteger(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new Error(`INCREMENTAL_PROPERTY_RUNS must be a positive integer, got ${JSON.stringify(value)}`);
  return parsed;
}

/** One clock for every run: synthetic messages are stamped with it, so two runs can be compared. */
const now = (): number => PROPERTY_NOW;

/** The options the extension would build for these settings. */
function optionsFor(settings: CallSettings): InMemoryOptions {
  const policy = POLICIES[settings.policy % POLICIES.length]!;
  return {
    ...policy.route,
    reasoning: true,
    thinking: settings.thinking,
    ...(settings.tools ? {} : { tools: false }),
    ...(settings.limit ? { maxToolResultBytes: 120 } : {}),
    now,
  };
}

type Outcome = { result: InMemoryResult; input: readonly unknown[] } | { error: unknown };

async function outcomeOf(run: (input: unknown[]) => InMemoryResult | Promise<InMemoryResult>, history: readonly Message[]): Promise<Outcome> {
  const input = structuredClone(history) as unknown[];
  try {
    return { result: await run(input), input };
  } catch (error) {
    return { error };
  }
}

/** For each output message: the index of the input object it is, or -1 for a message a rule made. */
function identities(result: InMemoryResult, input: readonly unknown[]): number[] {
  const index = new Map(input.map((message, i) => [message, i]));
  return result.messages.map((message) => index.get(message) ?? -1);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Edits every object and array the caller got, in place (a kept object given out would throw
 * here, being frozen, or change the next call's result).
 */
function vandalize(value: unknown, seen = new Set<object>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const item of value) vandalize(item, seen);
    value.push('vandalized');
    return;
  }
  for (const key of Object.keys(value)) vandalize((value as Record<string, unknown>)[key], seen);
  (value as Record<string, unknown>).vandalized = true;
}

const tally = { calls: 0, incremental: 0, full: 0, errors: 0 };
/** Why calls ran in full, for the summary. */
const fullReasons = new Map<string, number>();

test(`the incremental path equals a full run on every call (${RUNS} growing sessions, seed ${SEED})`, async () => {
  await fc.assert(
    fc.asyncProperty(growingSessionArbitrary(MAX_STEPS), async (session) => {
      const sanitizer = new IncrementalSanitizer();
      const history = structuredClone(session.start);
      const settings: CallSettings = { policy: session.policy, thinking: true, tools: true, limit: false };
      const clock = { now: 1000 };
      const calls = [{ kind: 'start' }, ...session.steps];
      for (let call = 0; call < calls.length; call++) {
        if (call > 0) applyStep(history, settings, session.steps[call - 1]!, clock);
        const options = optionsFor(settings);
        const full = await outcomeOf((input) => sanitizeInMemory(input, options), history);
        const fullBefore = sanitizer.counts.full;
        const incremental = await outcomeOf((input) => sanitizer.sanitize(input, options), history);
        if (sanitizer.counts.full > fullBefore) fullReasons.set(sanitizer.lastFullReason ?? '?', (fullReasons.get(sanitizer.lastFullReason ?? '?') ?? 0) + 1);
        const where = `call ${call} (${calls[call]!.kind}), ${history.length} messages, ${POLICIES[settings.policy % POLICIES.length]!.name}, thinking ${settings.thinking}, tools ${settings.tools}, limit ${settings.limit}`;
        if ('error' in full) {
          assert.ok('error' in incremental, `${where}: the full run threw ${describeError(full.error)}, the incremental one did not`);
          assert.equal(describeError(incremental.error), describeError(full.error), `${where}: different errors`);
          tally.errors++;
          continue;
        }
        assert.ok(!('error' in incremental), `${where}: the incremental run threw ${'error' in incremental ? describeError(incremental.error) : ''}`);
        assert.ok(isDeepStrictEqual(incremental.result.messages, full.result.messages), `${where}: different messages\nfull:        ${JSON.stringify(full.result.messages)}\nincremental: ${JSON.stringify(incremental.result.messages)}`);
        assert.equal(incremental.result.changed, full.result.changed, `${where}: different changed`);
        assert.deepEqual(identities(incremental.result, incremental.input), identities(full.result, full.input), `${where}: different messages are the caller's own objects`);
        assert.deepEqual(incremental.result.stats, full.result.stats, `${where}: different stats`);
        // A caller (pi's next extension) may edit what it got: that must not reach what the next call reuses.
        vandalize(incremental.result.messages);
      }
      tally.calls += calls.length;
      tally.incremental += sanitizer.counts.incremental;
      tally.full += sanitizer.counts.full;
      sanitizer.reset();
    }),
    { numRuns: RUNS, seed: SEED },
  );
  // A test of the incremental path that never took it would prove nothing.
  assert.ok(tally.incremental > tally.calls / 4, `only ${tally.incremental} of ${tally.calls} calls ran incrementally`);
});

after(() => {
  console.log(`# incremental property: ${tally.calls} calls, ${tally.incremental} incremental, ${tally.full} full, ${tally.errors} equal errors`);
  for (const [reason, n] of [...fullReasons].sort((a, b) => b[1] - a[1])) console.log(`#   full: ${n} x ${reason}`);
});
