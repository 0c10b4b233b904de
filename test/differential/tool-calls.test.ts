/**
 * Differential test of the tool-call rules (spec/tool-calls.md: input
 * validation, result pairing and synthetic results, id sanitization, OpenAI
 * Responses id normalization, the reasoning-pair downgrade, the Responses
 * invariant check, the `details` strip) against answers recorded from the
 * reference implementation. The cases come from generate-tool-calls.ts; the
 * answers are in fixtures/oracle/tool-calls.jsonl (re-record with
 * `node --import tsx test/differential/record.ts tool-calls`). The oracle is
 * not needed to run this file.
 *
 * Where the reference threw (the Responses invariant check, §8), the project
 * must reject with a HygieneError carrying the same message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HygieneError, sanitizeSessionHistory } from '../../lib/index.ts';
import { loadOracleCases, stripUsage, withProjectProviderRules } from './load.ts';

/** The oracle's frozen clock (2027-01-01T00:00:00Z): synthetic results carry it as their timestamp. */
const NOW = 1798761600000;
const MIN_CASES = 700;

const cases = loadOracleCases('tool-calls');

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
    assert.deepStrictEqual(stripUsage(actual), withProjectProviderRules(c.expected ?? [], c.options), c.name);
  });
}

test(`the tool-calls fixture holds at least ${MIN_CASES} recorded cases`, () => {
  assert.ok(cases.length >= MIN_CASES, `only ${cases.length} cases in fixtures/oracle/tool-calls.jsonl`);
});
