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
 * carrying the same message. The generator produces no Bedrock case whose
 * recorded answer the project's Bedrock provider rules would change; a test
 * checks that.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breaksBedrockAlternation } from './generate-thinking.ts';
import { runDifferentialSuite } from './suite.ts';

const cases = runDifferentialSuite('thinking', 600);

test('no recorded Bedrock answer breaks alternation: the generator keeps these cases out of our Bedrock provider rule', () => {
  const flagged = cases.filter((c) => breaksBedrockAlternation(c.options, c.expected)).map((c) => c.name);
  assert.deepEqual(flagged, []);
});
