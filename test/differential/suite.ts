/**
 * One differential suite: every recorded case becomes a test that runs the project's whole
 * pipeline (`sanitizeSessionHistory`) and compares it with the reference's recorded answer, as
 * the project must give it (`withProjectProviderRules`), `usage` left out. Where the reference
 * threw, the project must reject with a HygieneError carrying the same message. A last test
 * fails when the fixture holds fewer cases than the suite promises.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HygieneError, sanitizeSessionHistory } from '../../lib/index.ts';
import { stripReplayUsage } from './generate-thinking.ts';
import { loadOracleCases, withProjectProviderRules } from './load.ts';
import type { RecordedCase } from './cases.ts';

/** The oracle's frozen clock (2027-01-01T00:00:00Z): synthetic messages carry it as their timestamp. */
export const ORACLE_NOW = 1798761600000;

export function runDifferentialSuite(suite: string, minCases: number): RecordedCase[] {
  const cases = loadOracleCases(suite);
  for (const c of cases) {
    test(c.name, async () => {
      const run = () => sanitizeSessionHistory(structuredClone(c.messages), { ...c.options, now: () => ORACLE_NOW });
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
      assert.deepStrictEqual(stripReplayUsage(actual), stripReplayUsage(withProjectProviderRules(c.expected ?? [], c.options, c.messages)), c.name);
    });
  }
  test(`the ${suite} fixture holds at least ${minCases} recorded cases`, () => {
    assert.ok(cases.length >= minCases, `only ${cases.length} cases in fixtures/oracle/${suite}.jsonl`);
  });
  return cases;
}
