/**
 * Differential test of tool-call names (issue 20, item 10: ours) against answers recorded from
 * the reference: calls whose names fail the name check, answered or not, on nine routes, signed
 * thinking turns among them. The cases come from generate-tool-names.ts; the answers are in
 * fixtures/oracle/tool-names.jsonl (re-record with
 * `node --import tsx test/differential/record.ts tool-names`). The oracle is not needed to run
 * this file.
 *
 * The reference drops every such call with its result; it was asked about the calls the project
 * keeps under placeholder names (answered-names.ts), so each answer shows what the project must
 * give once the names are back and our later rules (enforce-tool-name-pattern) have run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceInput } from './load.ts';
import { runDifferentialSuite } from './suite.ts';

const cases = runDifferentialSuite('tool-names', 250);

test('the suite reaches the rule: many cases keep an answered call with a malformed name, some of them in signed thinking turns', () => {
  const kept = cases.filter((c) => JSON.stringify(referenceInput(c.messages, c.options)).includes('th_answered_name_'));
  assert.ok(kept.length >= 100, `only ${kept.length} cases keep such a call`);
  assert.ok(kept.some((c) => c.name.includes('signed') && c.options.modelId === 'claude-opus-4-6'), 'no signed opus case');
  assert.ok(cases.some((c) => c.name.includes('provider-invalid')), 'no name the reference keeps but a provider rejects');
});
