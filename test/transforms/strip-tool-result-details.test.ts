import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripToolResultDetails, stripToolResultDetailsRule } from '../../transforms/strip-tool-result-details.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, fakeContext, text, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

test('Ex 25 (verbatim)', () => {
  const input = deepFreeze(JSON.parse('[{"role":"toolResult","toolCallId":"a","content":[],"details":{"x":1}},{"role":"user","content":"u","details":1},{"role":"toolResult","toolCallId":"b","content":[],"details":null}]') as Message[]);
  const out = input.map(stripToolResultDetails);
  assert.equal(JSON.stringify(out), JSON.stringify(JSON.parse('[{"role":"toolResult","toolCallId":"a","content":[]},{"role":"user","content":"u","details":1},{"role":"toolResult","toolCallId":"b","content":[]}]')));
  assert.equal(out[1], input[1]);
});

const cases: { name: string; input: Message; expected: Message | 'same' }[] = [
  { name: 'details: undefined counts (the `in` operator)', input: { role: 'toolResult', toolCallId: 'a', content: [], details: undefined }, expected: { role: 'toolResult', toolCallId: 'a', content: [] } },
  {
    name: 'synthetic marker removed, the rest kept in order',
    input: toolResult('a', [text('aborted')], { details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' }, isError: true, timestamp: 5 }),
    expected: toolResult('a', [text('aborted')], { isError: true, timestamp: 5 }),
  },
  { name: 'result without details: same object', input: toolResult('a', [text('ok')]), expected: 'same' },
  { name: 'assistant with details: same object', input: assistant([text('a')], { details: { x: 1 } }), expected: 'same' },
  { name: 'user with details: same object', input: user('u', { details: 1 }), expected: 'same' },
  { name: 'unknown role with details: same object', input: { role: 'custom', details: 1 }, expected: 'same' },
];

for (const c of cases) {
  test(c.name, () => {
    const input = deepFreeze(c.input);
    const out = stripToolResultDetails(input);
    if (c.expected === 'same') assert.equal(out, input);
    else {
      assert.deepEqual(out, c.expected);
      assert.deepEqual(Object.keys(out), Object.keys(c.expected));
      assert.equal(stripToolResultDetails(out), out, 'idempotent');
    }
  });
}

test('rule: counts stripped details; untouched messages are the same objects', () => {
  const input = deepFreeze([user('q', { details: 1 }), toolResult('a', [text('ok')], { details: { x: 1 } }), toolResult('b', [text('ok')]), toolResult('c', [text('ok')], { details: null })]);
  const { output, counts } = runRule(stripToolResultDetailsRule, input);
  assert.equal(output[0], input[0]);
  assert.equal(output[2], input[2]);
  assert.equal('details' in output[1]!, false);
  assert.equal('details' in output[3]!, false);
  assert.deepEqual(counts, { detailsStripped: 2 });
});

test('rule: apply with a fake context', () => {
  const ctx = fakeContext();
  const input = deepFreeze(toolResult('a', [], { details: {} }));
  assert.deepEqual(stripToolResultDetailsRule.apply(input, ctx), toolResult('a', []));
  assert.deepEqual(ctx.counts, { detailsStripped: 1 });
});

test('rule: meta', () => {
  assert.equal(stripToolResultDetailsRule.unit, 'message');
  assert.equal(stripToolResultDetailsRule.meta.name, 'strip-tool-result-details');
  assert.deepEqual(stripToolResultDetailsRule.meta.counters, ['detailsStripped']);
});
