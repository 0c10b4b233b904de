import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compactionTimestampOf,
  createStripStaleThinkingSignaturesRule,
  stripStaleThinkingSignatures,
  stripStaleThinkingSignaturesEnabled,
  stripStaleThinkingSignaturesRule,
} from '../../transforms/strip-stale-thinking-signatures.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, testPolicy } from '../helpers/build.ts';
import { emissionTrace, randomThinkingTranscript, runRule } from '../helpers/thinking-rules.ts';

const S = (timestamp: unknown, extra: Record<string, unknown> = {}): Message => ({ role: 'compactionSummary', summary: 'sum', tokensBefore: 100, timestamp, ...extra });
const A = (content: unknown[], timestamp?: unknown): Message =>
  (timestamp === undefined ? { role: 'assistant', content, stopReason: 'stop' } : { role: 'assistant', content, stopReason: 'stop', timestamp }) as Message;
const U = (content: string, timestamp?: number): Message => (timestamp === undefined ? { role: 'user', content } : { role: 'user', content, timestamp });

function whole(messages: Message[], compactionTimestamp?: number): { input: Message[]; out: Message[] } {
  const input = deepFreeze(structuredClone(messages));
  return { input, out: stripStaleThinkingSignatures(input, compactionTimestamp === undefined ? {} : { compactionTimestamp }) };
}

test('E08: summary first, ISO and number timestamps; equal, missing and unparseable untouched', () => {
  const { input, out } = whole([
    S('2026-01-01T00:00:10.000Z'),
    A([{ type: 'thinking', thinking: 'old', thinkingSignature: 'S1' }, { type: 'text', text: 'a' }], 1767225605000),
    A([{ type: 'redacted_thinking', data: 'D' }, { type: 'text', text: 'b' }], '2026-01-01T00:00:09.999Z'),
    A([{ type: 'thinking', thinking: 'same', thinkingSignature: 'S2' }], '2026-01-01T00:00:10.000Z'),
    A([{ type: 'thinking', thinking: 'nots', thinkingSignature: 'S3' }]),
    A([{ type: 'thinking', thinking: 'bad', thinkingSignature: 'S4' }], 'yesterday'),
  ]);
  assert.deepEqual(out, [
    S('2026-01-01T00:00:10.000Z'),
    A([{ type: 'thinking', thinking: 'old' }, { type: 'text', text: 'a' }], 1767225605000),
    A([{ type: 'redacted_thinking' }, { type: 'text', text: 'b' }], '2026-01-01T00:00:09.999Z'),
    A([{ type: 'thinking', thinking: 'same', thinkingSignature: 'S2' }], '2026-01-01T00:00:10.000Z'),
    A([{ type: 'thinking', thinking: 'nots', thinkingSignature: 'S3' }]),
    A([{ type: 'thinking', thinking: 'bad', thinkingSignature: 'S4' }], 'yesterday'),
  ]);
  for (const i of [0, 3, 4, 5]) assert.equal(out[i], input[i], `message ${i} is the same object`);
  // Kept blocks keep their identity.
  assert.equal((out[1]!.content as unknown[])[1], (input[1]!.content as unknown[])[1]);
});

test('E08: a later summary affects earlier assistants (C is a pre-pass over the whole list)', () => {
  const { out } = whole([
    A([{ type: 'thinking', thinking: 'old', thinkingSignature: 'S1' }], 5),
    U('q', 6),
    S(10),
    A([{ type: 'thinking', thinking: 'new', thinkingSignature: 'S2' }], 11),
  ]);
  assert.deepEqual(out[0], A([{ type: 'thinking', thinking: 'old' }], 5));
  assert.deepEqual(out[3], A([{ type: 'thinking', thinking: 'new', thinkingSignature: 'S2' }], 11));
});

test('E11 (its §4.5 part): the assistant at 20 before the summary at 30 loses its signature, later ones do not', () => {
  const messages: Message[] = [
    U('q1', 10),
    A([{ type: 'thinking', thinking: 'pre', thinkingSignature: 'SIGpre' }, { type: 'text', text: 'a1' }], 20),
    S(30),
    U('q2', 40),
    A([{ type: 'thinking', thinking: 'unsigned' }, { type: 'text', text: 'a2' }], 50),
    A([{ type: 'thinking', thinking: 'only', thinkingSignature: ' ' }], 55),
    U('q3', 60),
    A([{ type: 'thinking', thinking: 'latest', thinkingSignature: '' }, { type: 'text', text: 'a3' }], 70),
  ];
  const { input, out } = whole(messages);
  assert.deepEqual(out[1], A([{ type: 'thinking', thinking: 'pre' }, { type: 'text', text: 'a1' }], 20));
  for (let i = 0; i < out.length; i++) if (i !== 1) assert.equal(out[i], input[i]);
});

test('C is the largest parseable summary timestamp; unparseable summaries are ignored (oracle)', () => {
  const { out } = whole([
    S('1970-01-01T00:00:00.100Z'),
    A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }], 150),
    S(200),
    S('bad'),
    A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 199),
    A([{ type: 'thinking', thinking: 'c', thinkingSignature: 'S' }], 200),
  ]);
  assert.deepEqual(out[1]!.content, [{ type: 'thinking', thinking: 'a' }]);
  assert.deepEqual(out[4]!.content, [{ type: 'thinking', thinking: 'b' }]);
  assert.deepEqual(out[5]!.content, [{ type: 'thinking', thinking: 'c', thinkingSignature: 'S' }]);
});

test('no parseable summary timestamp: a no-op, every message the same object', () => {
  for (const summaries of [[], [S(undefined)], [S('yesterday'), S(null)], [S({ t: 1 })]]) {
    const { input, out } = whole([...summaries, A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }], 1)]);
    out.forEach((message, i) => assert.equal(message, input[i]));
  }
});

test('only compactionSummary messages give C (a user or custom timestamp does not)', () => {
  const { input, out } = whole([
    A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }], 1),
    U('q', 100),
    { role: 'custom', customType: 'compaction', timestamp: 100 },
    { role: 'compaction', timestamp: 100 },
  ]);
  out.forEach((message, i) => assert.equal(message, input[i]));
});

test('field rules (oracle): non-null signatures go, null-only blocks stay, thoughtSignature and thinking `data` stay', () => {
  const { out } = whole([
    S(100),
    A(
      [
        { type: 'thinking', thinking: 'a', thinkingSignature: null },
        { type: 'thinking', thinking: 'b', thinkingSignature: null, signature: 'X', thought_signature: 'Y', thoughtSignature: 'Z', data: 'D' },
        { type: 'redacted_thinking', data: 'R', thoughtSignature: 'Q' },
        { type: 'redacted_thinking', data: null, signature: null },
        { type: 'thinking', thinking: 'c', data: 'only-data' },
        { type: 'thinking', thinking: 'd', thoughtSignature: 'camel only' },
        { type: 'text', text: 't', thinkingSignature: 'T' },
        { type: 'redactedThinking', data: 'not thinking-like' },
        null,
      ],
      50,
    ),
  ]);
  assert.deepEqual(out[1]!.content, [
    { type: 'thinking', thinking: 'a', thinkingSignature: null },
    { type: 'thinking', thinking: 'b', thoughtSignature: 'Z', data: 'D' },
    { type: 'redacted_thinking', thoughtSignature: 'Q' },
    { type: 'redacted_thinking', data: null, signature: null },
    { type: 'thinking', thinking: 'c', data: 'only-data' },
    { type: 'thinking', thinking: 'd', thoughtSignature: 'camel only' },
    { type: 'text', text: 't', thinkingSignature: 'T' },
    { type: 'redactedThinking', data: 'not thinking-like' },
    null,
  ]);
});

test('each of the three signature fields, and blank or non-string values, count as signed', () => {
  for (const field of ['thinkingSignature', 'signature', 'thought_signature']) {
    for (const value of ['S', '', '  ', 0, false, {}]) {
      const { out } = whole([S(10), A([{ type: 'thinking', thinking: 'x', [field]: value }], 5)]);
      assert.deepEqual(out[1]!.content, [{ type: 'thinking', thinking: 'x' }], `${field}=${JSON.stringify(value)}`);
    }
  }
});

test('untouched: string content, non-assistants, assistants without signed thinking', () => {
  const { input, out } = whole([
    S(100),
    { role: 'assistant', content: 'text', stopReason: 'stop', timestamp: 1 },
    U('q', 2),
    { role: 'toolResult', toolCallId: 'c', content: [{ type: 'thinking', thinking: 'x', thinkingSignature: 'S' }], timestamp: 3 },
    A([{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 'u' }], 4),
    A([], 5),
  ]);
  out.forEach((message, i) => assert.equal(message, input[i]));
});

test('compactionTimestamp option: a known C applies without any summary in the list, and the larger one wins', () => {
  let { out } = whole([A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }], 5), A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 15)], 10);
  assert.deepEqual(out.map((m) => m.content), [[{ type: 'thinking', thinking: 'a' }], [{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }]]);
  ({ out } = whole([S(20), A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 15)], 10));
  assert.deepEqual(out[1]!.content, [{ type: 'thinking', thinking: 'b' }]);
  ({ out } = whole([S(5), A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 8)], 10));
  assert.deepEqual(out[1]!.content, [{ type: 'thinking', thinking: 'b' }]);
});

test('compactionTimestampOf parses the summary timestamp only', () => {
  assert.equal(compactionTimestampOf(S(5)), 5);
  assert.equal(compactionTimestampOf(S('1970-01-01T00:00:01.000Z')), 1000);
  assert.equal(compactionTimestampOf(S('8.64e15 is not a date')), undefined);
  assert.equal(compactionTimestampOf(S('+275760-09-13T00:00:00.001Z')), undefined);
  assert.equal(compactionTimestampOf(U('q', 5)), undefined);
});

// ---------------------------------------------------------------------------------------------
// The streaming rule

test('stream: nothing is held while no signed assistant is undecided', () => {
  const messages = deepFreeze([U('q', 1), A([{ type: 'text', text: 'a' }], 2), A([{ type: 'thinking', thinking: 'u' }], 3), A([{ type: 'thinking', thinking: 's', thinkingSignature: 'S' }]), U('q2', 4)]);
  const { output, emittedAfter } = emissionTrace(stripStaleThinkingSignaturesRule, messages);
  assert.deepEqual(emittedAfter, [1, 2, 3, 4, 5, 5]);
  output.forEach((message, i) => assert.equal(message, messages[i]));
});

test('stream: a signed assistant is held until a summary decides it; the rest streams again', () => {
  const messages = deepFreeze([
    U('q', 1),
    A([{ type: 'thinking', thinking: 's', thinkingSignature: 'S' }], 2),
    U('q2', 3),
    S(10),
    A([{ type: 'thinking', thinking: 'old', thinkingSignature: 'S' }], 4),
    U('q3', 11),
  ]);
  const { output, emittedAfter } = emissionTrace(stripStaleThinkingSignaturesRule, messages);
  // Held from the signed assistant to the summary; the one at 4 is below C = 10, so final at once.
  assert.deepEqual(emittedAfter, [1, 1, 1, 4, 5, 6, 6]);
  assert.deepEqual(output, stripStaleThinkingSignatures(messages));
  assert.deepEqual(output[1]!.content, [{ type: 'thinking', thinking: 's' }]);
});

test('stream: an assistant at or after the latest summary stays held to the end (a larger summary may come)', () => {
  const messages = deepFreeze([S(10), U('q', 11), A([{ type: 'thinking', thinking: 's', thinkingSignature: 'S' }], 12), U('q2', 13), S(11), U('q3', 14)]);
  const { output, emittedAfter } = emissionTrace(stripStaleThinkingSignaturesRule, messages);
  assert.deepEqual(emittedAfter, [1, 2, 2, 2, 2, 2, 6]);
  assert.deepEqual(output, messages);
  output.forEach((message, i) => assert.equal(message, messages[i]));
});

test('stream: with the compaction time known up front nothing is held', () => {
  const rule = createStripStaleThinkingSignaturesRule({ compactionTimestamp: 10 });
  const messages = deepFreeze([S(10), A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }], 5), A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 12)]);
  const { output, emittedAfter } = emissionTrace(rule, messages);
  assert.deepEqual(emittedAfter, [1, 2, 3, 3]);
  assert.deepEqual(output, stripStaleThinkingSignatures(messages, { compactionTimestamp: 10 }));
  assert.equal(output[2], messages[2]);
});

test('stream: known up front to have no summary (null, from the options) nothing is held and nothing changes', () => {
  const messages = deepFreeze([U('q', 1), A([{ type: 'thinking', thinking: 's', thinkingSignature: 'S' }], 2), U('q2', 3)]);
  const { output, emittedAfter } = emissionTrace(stripStaleThinkingSignaturesRule, messages, { options: { compactionTimestamp: null } });
  assert.deepEqual(emittedAfter, [1, 2, 3, 3]);
  output.forEach((message, i) => assert.equal(message, messages[i]));
  // The control: without that knowledge the signed turn waits for the end.
  assert.deepEqual(emissionTrace(stripStaleThinkingSignaturesRule, messages).emittedAfter, [1, 1, 1, 3]);
});

test('stream: the compaction time from the options applies to the default rule', () => {
  const messages = deepFreeze([U('q', 1), A([{ type: 'thinking', thinking: 's', thinkingSignature: 'S' }], 2), U('q2', 3)]);
  const { output, emittedAfter } = emissionTrace(stripStaleThinkingSignaturesRule, messages, { options: { compactionTimestamp: 10 } });
  assert.deepEqual(emittedAfter, [1, 2, 3, 3]);
  assert.deepEqual(output[1]!.content, [{ type: 'thinking', thinking: 's' }]);
});

test('stream equals the whole-array core on generated transcripts (default budget and 1024 bytes)', () => {
  let changed = 0;
  for (let seed = 0; seed < 40; seed++) {
    const input = deepFreeze(randomThinkingTranscript(seed, 5 + (seed % 7) * 6));
    const expected = stripStaleThinkingSignatures(input);
    changed += expected.filter((m, i) => m !== input[i]).length;
    assert.deepEqual(runRule(stripStaleThinkingSignaturesRule, input).output, expected, `seed ${seed}`);
    assert.deepEqual(runRule(stripStaleThinkingSignaturesRule, input, { options: { memoryBudgetBytes: 1024 } }).output, expected, `seed ${seed}, 1 KiB`);
    // A session reader passes the largest summary time of the input (here at least 1200).
    const largest = input.reduce((c, m) => Math.max(c, compactionTimestampOf(m) ?? c), 1200);
    const known = stripStaleThinkingSignatures(input, { compactionTimestamp: largest });
    assert.deepEqual(runRule(createStripStaleThinkingSignaturesRule({ compactionTimestamp: largest }), input).output, known, `seed ${seed}, known C`);
  }
  assert.ok(changed > 20, `the generated inputs exercise the rule (${changed} messages changed)`);
});

test('stream: a long hold spills past the budget and still matches', () => {
  const input: Message[] = [U('q', 1), A([{ type: 'thinking', thinking: 'x'.repeat(200), thinkingSignature: 'S' }], 2)];
  for (let i = 0; i < 200; i++) input.push(A([{ type: 'thinking', thinking: `t${i}`, thinkingSignature: 'S' }, { type: 'text', text: 'y'.repeat(100) }], 3 + i));
  input.push(S(100));
  deepFreeze(input);
  const { output, counts } = runRule(stripStaleThinkingSignaturesRule, input, { options: { memoryBudgetBytes: 1024 } });
  assert.deepEqual(output, stripStaleThinkingSignatures(input));
  assert.ok((counts.spilledEntries ?? 0) > 0);
  assert.equal(counts.unsignedTurns, 98);
  assert.equal(counts.unsignedBlocks, 98);
});

test('rule: meta and counters', () => {
  assert.equal(stripStaleThinkingSignaturesRule.unit, 'buffered');
  assert.equal(stripStaleThinkingSignaturesRule.meta.name, 'strip-stale-thinking-signatures');
  assert.deepEqual(stripStaleThinkingSignaturesRule.meta.counters, ['unsignedBlocks', 'unsignedTurns', 'spilledEntries']);
  const { counts } = runRule(stripStaleThinkingSignaturesRule, deepFreeze([
    A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }, { type: 'redacted_thinking', data: 'D' }], 1),
    S(5),
    A([{ type: 'thinking', thinking: 'b', thinkingSignature: 'S' }], 6),
  ]));
  assert.deepEqual(counts, { unsignedBlocks: 2, unsignedTurns: 1 });
});

test('enabled for signed-thinking providers or policies that preserve signatures', () => {
  const enabled = (provider: string, modelApi: string, modelId: string) => {
    const options = resolveHygieneOptions({ provider, modelApi, modelId });
    return stripStaleThinkingSignaturesEnabled(resolveTranscriptPolicy(options), options);
  };
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6'), true);
  assert.equal(enabled('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0'), true);
  assert.equal(enabled('amazon-bedrock', 'openai-completions', 'x'), true);
  assert.equal(enabled(' Anthropic ', 'openai-completions', 'x'), true);
  assert.equal(enabled('anthropic-vertex', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('minimax', 'anthropic-messages', 'MiniMax-M2'), true);
  assert.equal(enabled('cloudflare-ai-gateway', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('bedrock', 'openai-completions', 'x'), false);
  assert.equal(enabled('google', 'google-generative-ai', 'gemini-2.5-pro'), false);
  assert.equal(enabled('openai', 'openai-responses', 'gpt-5'), false);
  assert.equal(stripStaleThinkingSignaturesEnabled(testPolicy({ preserveSignatures: true }), resolveHygieneOptions({})), true);
});
