import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dropUnreplayableRedactedThinking,
  dropUnreplayableRedactedThinkingRule,
  isUnreplayableRedactedThinking,
} from '../../transforms/drop-unreplayable-redacted-thinking.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'stop', timestamp: 2 });
const redacted = (thinkingSignature?: string): Record<string, unknown> => ({ type: 'thinking', thinking: '[Reasoning redacted]', redacted: true, ...(thinkingSignature === undefined ? {} : { thinkingSignature }) });
const text = (value: string): Record<string, unknown> => ({ type: 'text', text: value });

test('which blocks have no opaque data to replay', () => {
  const unreplayable = [redacted(), redacted(''), redacted('  '), { type: 'redacted_thinking' }, { type: 'redacted_thinking', data: '' }, { type: 'redactedThinking', data: ' ' }];
  const replayable = [
    redacted('opaque'),
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'redacted_thinking', signature: 'opaque' },
    { type: 'thinking', thinking: 'plain, unsigned: sent as text' },
    { type: 'thinking', thinking: 'x', redacted: false },
    text('hi'),
  ];
  for (const block of unreplayable) assert.equal(isUnreplayableRedactedThinking(block), true, JSON.stringify(block));
  for (const block of replayable) assert.equal(isUnreplayableRedactedThinking(block), false, JSON.stringify(block));
});

const cases: Array<[string, Message, Message | null]> = [
  ['the block goes, the rest stays', A(redacted(''), text('answer')), A(text('answer'))],
  ['a redacted_thinking block without data goes beside a call', A({ type: 'redacted_thinking' }, { type: 'toolCall', id: 't1', name: 'read', arguments: {} }), A({ type: 'toolCall', id: 't1', name: 'read', arguments: {} })],
  ['a turn of nothing else is dropped', A(redacted(), { type: 'redacted_thinking', data: '' }), null],
  ['a providerReplay turn is kept with empty content', { ...A(redacted()), providerReplay: { id: 'cmp_1' } }, { ...A(), providerReplay: { id: 'cmp_1' } }],
];

for (const [name, input, expected] of cases) {
  test(`dropUnreplayableRedactedThinking: ${name}`, () => {
    assert.deepEqual(dropUnreplayableRedactedThinking(deepFreeze(structuredClone(input))), expected);
  });
}

test('the rule returns untouched turns as the same objects and counts blocks and turns', () => {
  const keep = A(redacted('opaque'), text('a'));
  const input = deepFreeze([{ role: 'user', content: 'q' } as Message, keep, A(redacted('')), A(redacted(), text('b'))]);
  const { output, counts } = runRule(dropUnreplayableRedactedThinkingRule, input);
  assert.equal(output.length, 3);
  assert.equal(output[1], keep);
  assert.deepEqual(counts, { droppedBlocks: 2, droppedTurns: 1 });
});

test('through the pipeline: the latest assistant\'s redacted thinking without data is not replayed (Anthropic, Bedrock)', async () => {
  const anthropic = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const session: Message[] = [
    { role: 'user', content: 'q', timestamp: 1 },
    A({ type: 'thinking', thinking: 'earlier', thinkingSignature: 'sig' }, text('first')),
    { role: 'user', content: 'again', timestamp: 3 },
    { ...A(redacted(''), { type: 'thinking', thinking: 'kept, sent as text' }, text('latest')), timestamp: 4 },
  ];
  assert.deepEqual(checkTranscript(session, anthropic).map((v) => v.rule), ['anthropic/thinking-signature']);
  for (const route of [
    anthropic,
    { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  ]) {
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], route.provider);
    const latest = out[out.length - 1]!;
    assert.deepEqual(latest.content, [{ type: 'thinking', thinking: 'kept, sent as text' }, text('latest')], route.provider);
  }
});

test('before the id sanitizer: a call beside such a block gets the id it would get without it, so a second run changes nothing', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' };
  const session: Message[] = [
    { role: 'user', content: 'q', timestamp: 1 },
    { ...A({ type: 'redacted_thinking', data: ' ' }, { type: 'toolCall', id: 'call_1', name: 'read', arguments: {} }), timestamp: 5 },
  ];
  const once = await sanitizeSessionHistory(structuredClone(session), { ...route, now: () => 1798761600000 });
  const twice = await sanitizeSessionHistory(structuredClone(once), { ...route, now: () => 1798761600000 });
  assert.deepEqual(twice, once);
  assert.deepEqual(checkTranscript(once, route), []);
});
