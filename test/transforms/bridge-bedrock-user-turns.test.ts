import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BRIDGE_TEXT, bridgeBedrockUserTurns, bridgeBedrockUserTurnsRule, bridgeTurn } from '../../transforms/bridge-bedrock-user-turns.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const call = (id: string): Record<string, unknown> => ({ type: 'toolCall', id, name: 'read', arguments: {} });
const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse', timestamp: 10 });
const R = (id: string, timestamp = 20): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp });
const U = (text: string, timestamp = 30): Message => ({ role: 'user', content: text, timestamp });
const BRIDGE = (timestamp?: number): Message => bridgeTurn(timestamp);

const cases: Array<[string, Message[], Message[]]> = [
  ['a user turn right after tool results gets a placeholder reply before it', [U('q', 1), A(call('a'), call('b')), R('a'), R('b', 21), U('stop')], [U('q', 1), A(call('a'), call('b')), R('a'), R('b', 21), BRIDGE(21), U('stop')]],
  ['results followed by an assistant need nothing', [U('q', 1), A(call('a')), R('a'), { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop' }, U('next')], [U('q', 1), A(call('a')), R('a'), { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop' }, U('next')]],
  ['a summary after a user turn (both sent as user messages)', [U('q', 1), { role: 'compactionSummary', summary: 's', timestamp: 5 }], [U('q', 1), BRIDGE(1), { role: 'compactionSummary', summary: 's', timestamp: 5 }]],
  ['an excluded custom message and role-less objects are not sent: they neither need nor count as a turn', [U('q', 1), { role: 'custom', excludeFromContext: true, content: 'x' }, { content: 'no role' }, A(call('a'))], [U('q', 1), { role: 'custom', excludeFromContext: true, content: 'x' }, { content: 'no role' }, A(call('a'))]],
  ['a placeholder has no timestamp when the turn before it had none', [{ role: 'user', content: 'q' }, U('again')], [{ role: 'user', content: 'q' }, BRIDGE(), U('again')]],
];

for (const [name, input, expected] of cases) {
  test(`bridgeBedrockUserTurns: ${name}`, () => {
    assert.deepEqual(bridgeBedrockUserTurns(deepFreeze(structuredClone(input))), expected);
  });
}

test('the placeholder is a plain text assistant turn', () => {
  assert.deepEqual(bridgeTurn(7), { role: 'assistant', content: [{ type: 'text', text: BRIDGE_TEXT }], stopReason: 'stop', timestamp: 7 });
});

test('the rule passes messages through as the same objects and counts what it inserts', () => {
  const input = deepFreeze([U('q', 1), A(call('a')), R('a'), U('x'), U('y')]);
  const { output, counts } = runRule(bridgeBedrockUserTurnsRule, input);
  assert.equal(output.length, 7);
  for (const message of input) assert.ok(output.includes(message));
  assert.deepEqual(counts, { inserted: 2 });
});

test('through the pipeline on Bedrock: an interrupted tool turn replays as a conversation that alternates', async () => {
  const route = { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
  const session = [U('list the files', 1), A(call('toolu_1')), R('toolu_1'), U('stop, wrong folder'), A({ type: 'text', text: 'ok' })];
  assert.ok(checkTranscript(session, route).some((v) => v.rule === 'bedrock/alternation'));
  const out = await sanitizeSessionHistory(structuredClone(session), route);
  assert.deepEqual(checkTranscript(out, route), []);
  assert.deepEqual(out.map((m) => m.role), ['user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant']);
  // The Anthropic Messages API combines consecutive user turns itself: no placeholder there.
  const anthropic = await sanitizeSessionHistory(structuredClone(session), { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' });
  assert.equal(anthropic.length, session.length);
});
