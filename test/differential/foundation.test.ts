/**
 * Differential test of the foundation rules (inter-session provenance marker,
 * blank-text cleanup) against answers recorded from the reference
 * implementation. The cases come from generate-foundation.ts; the answers are
 * in fixtures/oracle/foundation.jsonl (re-record with
 * `node --import tsx test/differential/record.ts foundation`). The oracle is
 * not needed to run this file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { loadOracleCases, stripUsage, withProjectProviderRules } from './load.ts';

/** The oracle's frozen clock (2027-01-01T00:00:00Z), so synthetic timestamps match. */
const NOW = 1798761600000;
const MIN_CASES = 400;

const cases = loadOracleCases('foundation');

for (const c of cases) {
  test(c.name, async () => {
    const run = () => sanitizeSessionHistory(structuredClone(c.messages), { ...c.options, now: () => NOW });
    if (c.error !== undefined) {
      await assert.rejects(run, `${c.name}: the reference threw ${c.error}`);
      return;
    }
    const actual = await run();
    assert.deepStrictEqual(stripUsage(actual), withProjectProviderRules(c.expected ?? [], c.options), c.name);
  });
}

test(`the foundation fixture holds at least ${MIN_CASES} recorded cases`, () => {
  assert.ok(cases.length >= MIN_CASES, `only ${cases.length} cases in fixtures/oracle/foundation.jsonl`);
});
