/**
 * Differential test of the thinking and assistant-replay rules
 * (spec/thinking.md: assistant replay normalization with NO_REPLY silent turns,
 * failed and length-stopped turns, delivery mirrors and runtime-context
 * wrappers; thinking-signature cleanup with compaction summaries and the
 * latest-assistant exemption; the Chat Completions reasoning drop;
 * dropThinkingBlocks; thought signatures; signed-thinking tool turns; OpenAI
 * Responses reasoning blocks) against answers recorded from the reference
 * implementation. Both sides run their whole pipeline, so every rule takes part.
 * The cases come from generate-thinking.ts; the answers are in
 * fixtures/oracle/thinking.jsonl (re-record with
 * `node --import tsx test/differential/record.ts thinking`). The oracle is not
 * needed to run this file.
 *
 * `usage` is left out of the comparison on assistants and on role-less objects
 * (which receive an assistant's usage snapshot when a merge folds it into them).
 *
 * Where the reference threw, the project must reject with a HygieneError
 * carrying the same message. A Bedrock case whose recorded answer the project's
 * Bedrock alternation rule would change (spec README, "Provider rules come
 * before the reference") is skipped; the generator is built to produce none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HygieneError, sanitizeSessionHistory } from '../../lib/index.ts';
import { breaksBedrockAlternation, stripReplayUsage } from './generate-thinking.ts';
import { loadOracleCases, withProjectProviderRules } from './load.ts';

/** The oracle's frozen clock (2027-01-01T00:00:00Z): synthetic messages carry it as their timestamp. */
const NOW = 1798761600000;
const MIN_CASES = 600;

const cases = loadOracleCases('thinking');

for (const c of cases) {
  test(c.name, async () => {
    const run = () => sanitizeSessionHistory(structuredClone(c.messages), { ...c.options, now: () => NOW });
    if (c.error !== undefined) {
      const expected = c.error;
      await assert.rejects(run, (error: unknown) => {
        assert.ok(error instanceof HygieneError, `${c.name}: expected a HygieneError, got ${String(error)}`);
        assert.equal(error.message, expected, c.name);
        return true;
      });
      return;
    }
    const actual = await run();
    assert.deepStrictEqual(stripReplayUsage(actual), stripReplayUsage(withProjectProviderRules(c.expected ?? [], c.options)), c.name);
  });
}


test('no recorded Bedrock answer breaks alternation: the generator keeps these cases out of our Bedrock provider rule', () => {
  const flagged = cases.filter((c) => breaksBedrockAlternation(c.options, c.expected)).map((c) => c.name);
  assert.deepEqual(flagged, []);
});

test(`the thinking fixture holds at least ${MIN_CASES} recorded cases`, () => {
  assert.ok(cases.length >= MIN_CASES, `only ${cases.length} cases in fixtures/oracle/thinking.jsonl`);
});
