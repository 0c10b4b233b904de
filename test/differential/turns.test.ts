/**
 * Differential test of turn validation and ordering
 * (spec/turns-images-policy.md §3: consecutive user and assistant merges,
 * assistant-first histories and the Google bootstrap turn, the dangling
 * tool-call strip with and without thinking, role-less objects and other
 * roles, provenance on merged users) against answers recorded from the
 * reference implementation. Both sides run their whole pipeline, so every rule
 * takes part. The cases come from generate-turns.ts; the answers are in
 * fixtures/oracle/turns.jsonl (re-record with
 * `node --import tsx test/differential/record.ts turns`). The oracle is not
 * needed to run this file.
 *
 * `usage` is left out of the comparison on assistants and on role-less objects
 * (which receive an assistant's usage snapshot when a merge folds it into them).
 *
 * Where the reference threw, the project must reject with a HygieneError
 * carrying the same message. The generator produces no Bedrock case whose
 * recorded answer the project's Bedrock provider rules would change; a test
 * checks that.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breaksBedrockAlternation } from './generate-thinking.ts';
import { runDifferentialSuite } from './suite.ts';

const cases = runDifferentialSuite('turns', 400);

test('no recorded Bedrock answer breaks alternation: the generator keeps these cases out of our Bedrock provider rule', () => {
  const flagged = cases.filter((c) => breaksBedrockAlternation(c.options, c.expected)).map((c) => c.name);
  assert.deepEqual(flagged, []);
});
