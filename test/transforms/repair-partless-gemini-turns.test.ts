import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repairPartlessGeminiTurn, repairPartlessGeminiTurnsRule } from '../../transforms/repair-partless-gemini-turns.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'stop', timestamp: 2 });
const U = (content: string | Array<Record<string, unknown>>, timestamp = 1): Message => ({ role: 'user', content, timestamp }) as Message;
const PLACEHOLDER = { type: 'text', text: '[empty content omitted]' };

const cases: Array<[string, Message, Message | null]> = [
  ['an assistant of blank unsigned thinking is dropped', A({ type: 'thinking', thinking: ' ' }), null],
  ['an assistant of a redacted_thinking block is dropped', A({ type: 'redacted_thinking', data: 'opaque' }), null],
  ['an assistant of unknown blocks is dropped', A({ type: 'weird' }), null],
  ['signed blank thinking is a part (its signature goes out)', A({ type: 'thinking', thinking: '', thoughtSignature: 'c2ln' }), A({ type: 'thinking', thinking: '', thoughtSignature: 'c2ln' })],
  ['a call is a part', A({ type: 'redacted_thinking', data: 'x' }, { type: 'toolCall', id: 'a', name: 'read', arguments: {} }), A({ type: 'redacted_thinking', data: 'x' }, { type: 'toolCall', id: 'a', name: 'read', arguments: {} })],
  ['a providerReplay checkpoint kept empty stays', { ...A(), providerReplay: { id: 'c' } }, { ...A(), providerReplay: { id: 'c' } }],
  ['a user turn without text or image gets the placeholder, its blocks kept', U([{ type: 'file', name: 'x' }]), U([{ type: 'file', name: 'x' }, PLACEHOLDER])],
  ['a user turn with an image needs nothing', U([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]), U([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])],
  ['string content always goes out (blank as a space)', U(''), U('')],
  ['tool results are function responses: left alone', { role: 'toolResult', toolCallId: 'a', toolName: 'read', content: [] } as Message, { role: 'toolResult', toolCallId: 'a', toolName: 'read', content: [] } as Message],
];

for (const [name, input, expected] of cases) {
  test(`repairPartlessGeminiTurn: ${name}`, () => {
    assert.deepEqual(repairPartlessGeminiTurn(deepFreeze(structuredClone(input))), expected);
  });
}

test('the rule counts dropped turns and placeholders and passes the rest as the same objects', () => {
  const keep = A({ type: 'text', text: 'a' });
  const { output, counts } = runRule(repairPartlessGeminiTurnsRule, deepFreeze([U('q'), keep, A({ type: 'thinking', thinking: '' }), U([{ type: 'thinking', thinking: 'x' }])]));
  assert.equal(output[1], keep);
  assert.equal(output.length, 3);
  assert.deepEqual(counts, { droppedTurns: 1, placeholders: 1 });
});

test('through the pipeline on Gemini: no content without parts', async () => {
  const route = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' };
  const sessions: Message[][] = [
    [U('q'), A({ type: 'thinking', thinking: '' }), U('next', 4)],
    [U('q'), A({ type: 'redacted_thinking', data: 'abc' })],
    [U('q'), A({ type: 'text', text: 'a' }), U([{ type: 'document', data: 'x' }], 4)],
  ];
  for (const session of sessions) {
    assert.ok(checkTranscript(session, route).some((v) => v.rule === 'gemini/empty-parts'), JSON.stringify(session));
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], JSON.stringify(out));
  }
});
