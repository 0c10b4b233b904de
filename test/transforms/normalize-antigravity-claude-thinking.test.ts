import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isValidAntigravitySignature,
  normalizeAntigravityClaudeThinking,
  normalizeAntigravityClaudeThinkingEnabled,
  normalizeAntigravityClaudeThinkingInMessages,
  normalizeAntigravityClaudeThinkingRule,
} from '../../transforms/normalize-antigravity-claude-thinking.ts';
import { stripThoughtSignaturesFromMessages } from '../../transforms/strip-thought-signatures.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, fakeContext, testPolicy } from '../helpers/build.ts';
import { runRule } from '../helpers/thinking-rules.ts';

const A = (content: unknown[] | string, extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const SIG = 'c2lnbmF0dXJl'; // base64 of "signature", 12 characters

test('isValidAntigravitySignature: trimmed, non-empty, length a multiple of 4, base64 characters with up to two = at the end', () => {
  for (const value of [SIG, 'abcd', 'ab==', 'abc=', ' abcd ', 'ab+/', 'AAAAAAAA']) assert.equal(isValidAntigravitySignature(value), true, value);
  for (const value of ['', '    ', 'abc', 'a===', 'ab_c', 'ab-c', 'ab c', 'msg_abcd', 'bad sig', '====', 'abcd=', 5, null, undefined, {}]) {
    assert.equal(isValidAntigravitySignature(value), false, JSON.stringify(value));
  }
});

const SAME = Symbol('same');

interface Case {
  name: string;
  input: Message;
  expected: Message | null | typeof SAME;
}

const cases: Case[] = [
  { name: 'a valid thinkingSignature: untouched', input: A([{ type: 'thinking', thinking: 't', thinkingSignature: SIG }, { type: 'text', text: 'a' }]), expected: SAME },
  {
    name: 'unsigned thinking is dropped, other blocks stay',
    input: A([{ type: 'thinking', thinking: 'u' }, { type: 'text', text: 'a' }, { type: 'toolCall', id: 'c', name: 'n', arguments: {} }]),
    expected: A([{ type: 'text', text: 'a' }, { type: 'toolCall', id: 'c', name: 'n', arguments: {} }]),
  },
  {
    name: 'a valid signature in another field is copied into thinkingSignature (signature, thought_signature, thoughtSignature)',
    input: A([
      { type: 'thinking', thinking: 'a', signature: SIG },
      { type: 'thinking', thinking: 'b', thought_signature: SIG },
      { type: 'thinking', thinking: 'c', thoughtSignature: ` ${SIG} ` },
    ]),
    expected: A([
      { type: 'thinking', thinking: 'a', signature: SIG, thinkingSignature: SIG },
      { type: 'thinking', thinking: 'b', thought_signature: SIG, thinkingSignature: SIG },
      { type: 'thinking', thinking: 'c', thoughtSignature: ` ${SIG} `, thinkingSignature: ` ${SIG} ` },
    ]),
  },
  {
    name: 'the first non-null field decides: an invalid thinkingSignature hides a valid signature; null is skipped',
    input: A([
      { type: 'thinking', thinking: 'a', thinkingSignature: '', signature: SIG },
      { type: 'thinking', thinking: 'b', thinkingSignature: null, signature: SIG },
      { type: 'text', text: 'x' },
    ]),
    expected: A([{ type: 'thinking', thinking: 'b', thinkingSignature: SIG, signature: SIG }, { type: 'text', text: 'x' }]),
  },
  {
    name: 'invalid signatures drop the block (bad characters, wrong length, non-strings)',
    input: A([
      { type: 'thinking', thinking: 'a', thinkingSignature: 'bad sig' },
      { type: 'thinking', thinking: 'b', thinkingSignature: 'abc' },
      { type: 'thinking', thinking: 'c', thinkingSignature: 1234 },
      { type: 'text', text: 'x' },
    ]),
    expected: A([{ type: 'text', text: 'x' }]),
  },
  {
    name: 'redacted_thinking and unknown blocks are left alone',
    input: A([{ type: 'redacted_thinking', data: 'x' }, { type: 'redactedThinking' }, null, { type: 'text', text: 'a' }]),
    expected: SAME,
  },
  { name: 'a turn left with no blocks is dropped', input: A([{ type: 'thinking', thinking: 'u' }, { type: 'thinking', thinking: 'v', thinkingSignature: 'x' }]), expected: null },
  { name: 'content [] is left alone', input: A([], { providerReplay: { id: 'x' } }), expected: SAME },
  { name: 'string content is left alone', input: A('text'), expected: SAME },
  { name: 'other roles are left alone', input: { role: 'user', content: [{ type: 'thinking', thinking: 'u' }] }, expected: SAME },
];

for (const c of cases) {
  test(`normalizeAntigravityClaudeThinking: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = normalizeAntigravityClaudeThinking(input);
    if (c.expected === SAME) assert.equal(out, input);
    else if (c.expected === null) assert.equal(out, null);
    else {
      assert.deepEqual(out, c.expected);
      assert.equal(normalizeAntigravityClaudeThinking(out!), out, 'idempotent');
    }
  });
}

test('E21 input under the seed rule: the images pass cleans thought_signature, then unsigned and invalid blocks go', () => {
  const policy = resolveTranscriptPolicy({ provider: 'google-antigravity', modelApi: 'google-generative-ai', modelId: 'claude-sonnet-4-5-thinking' });
  assert.ok(normalizeAntigravityClaudeThinkingEnabled(policy));
  const input = deepFreeze<Message[]>([
    { role: 'user', content: 'q' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'unsigned' },
        { type: 'thinking', thinking: 'snake', thought_signature: 'not base64!' },
        { type: 'thinking', thinking: 'tsig', thinkingSignature: 'bad sig' },
        { type: 'text', text: 'answer' },
      ],
      stopReason: 'stop',
    },
    { role: 'user', content: 'q2' },
  ]);
  const afterImages = stripThoughtSignaturesFromMessages(input, policy.sanitizeThoughtSignatures);
  const out = normalizeAntigravityClaudeThinkingInMessages(afterImages);
  assert.deepEqual(out, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop' },
    { role: 'user', content: 'q2' },
  ]);
  assert.equal(out[0], input[0]);
  assert.equal(out[2], input[2]);
});

test('rule: counters through the chain, dropped turns removed', () => {
  const input = deepFreeze<Message[]>([
    { role: 'user', content: 'q' },
    A([{ type: 'thinking', thinking: 'a', signature: SIG }, { type: 'thinking', thinking: 'u' }, { type: 'text', text: 'x' }]),
    A([{ type: 'thinking', thinking: 'only' }]),
    A([{ type: 'text', text: 'kept' }]),
  ]);
  const { output, counts } = runRule(normalizeAntigravityClaudeThinkingRule, input, { policy: { normalizeAntigravityClaudeThinking: true } });
  assert.deepEqual(output, normalizeAntigravityClaudeThinkingInMessages(input));
  assert.equal(output.length, 3);
  assert.equal(output[0], input[0]);
  assert.equal(output[2], input[3]);
  assert.deepEqual(counts, { droppedBlocks: 2, normalizedSignatures: 1, droppedTurns: 1 });
  const ctx = fakeContext();
  const same = A([{ type: 'text', text: 'x' }]);
  assert.equal(normalizeAntigravityClaudeThinkingRule.apply(same, ctx), same);
  assert.deepEqual(ctx.counts, {});
});

test('rule: meta and enable condition (google-antigravity with a Claude model id only)', () => {
  assert.equal(normalizeAntigravityClaudeThinkingRule.unit, 'message');
  assert.equal(normalizeAntigravityClaudeThinkingRule.meta.name, 'normalize-antigravity-claude-thinking');
  assert.deepEqual(normalizeAntigravityClaudeThinkingRule.meta.counters, ['droppedBlocks', 'normalizedSignatures', 'droppedTurns']);
  const enabled = (provider: string, modelApi: string, modelId: string) => normalizeAntigravityClaudeThinkingEnabled(resolveTranscriptPolicy({ provider, modelApi, modelId }));
  assert.equal(enabled('google-antigravity', 'google-generative-ai', 'claude-sonnet-4-5-thinking'), true);
  assert.equal(enabled('google-antigravity', 'google-gemini-cli', 'claude-opus-4-6'), true);
  assert.equal(enabled('google-antigravity', 'google-generative-ai', 'gemini-3-pro'), false);
  assert.equal(enabled('google', 'google-generative-ai', 'claude-sonnet-4-5'), false);
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-sonnet-4-5'), false);
  assert.equal(normalizeAntigravityClaudeThinkingEnabled(testPolicy({ normalizeAntigravityClaudeThinking: true })), true);
});
