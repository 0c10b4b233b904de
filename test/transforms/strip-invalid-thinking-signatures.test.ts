import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isCurrentToolTurn,
  isReplayableThinkingBlock,
  lastUserIndex,
  shouldPreserveLatestAssistantThinking,
  stripInvalidThinkingSignatures,
  stripInvalidThinkingSignaturesEnabled,
  stripInvalidThinkingSignaturesRule,
} from '../../transforms/strip-invalid-thinking-signatures.ts';
import { stripStaleThinkingSignatures } from '../../transforms/strip-stale-thinking-signatures.ts';
import { OMITTED_REASONING_TEXT } from '../../transforms/thinking-shared.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, testPolicy } from '../helpers/build.ts';
import { emissionTrace, randomThinkingTranscript, runRule } from '../helpers/thinking-rules.ts';

const OMITTED = [{ type: 'text', text: '[assistant reasoning omitted]' }];
const U = (content: string, extra: Record<string, unknown> = {}): Message => ({ role: 'user', content, ...extra });
const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const R = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false });
const call = (id: string, type = 'toolCall') => ({ type, id, name: 'read', arguments: {} });

test('the placeholder text', () => {
  assert.equal(OMITTED_REASONING_TEXT, '[assistant reasoning omitted]');
});

const E09_IN: Message[] = [
  U('q1'),
  A([{ type: 'thinking', thinking: 'a' }, { type: 'text', text: 'ans1' }]),
  A([{ type: 'thinking', thinking: 'b', thinkingSignature: '' }]),
  A([{ type: 'thinking', thinking: 'c', thinkingSignature: '   ' }, { type: 'thinking', thinking: 'c2', signature: 'ok' }]),
  A([{ type: 'redacted_thinking', data: 'opaque' }, { type: 'redacted_thinking', data: ' ' }, { type: 'text', text: 't' }]),
  U('q2'),
  A([{ type: 'thinking', thinking: 'latest' }, { type: 'text', text: 'ans' }]),
];

const E09_OUT: Message[] = [
  U('q1'),
  A([{ type: 'text', text: 'ans1' }]),
  A(OMITTED),
  A([{ type: 'thinking', thinking: 'c2', signature: 'ok' }]),
  A([{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 't' }]),
  U('q2'),
  A([{ type: 'thinking', thinking: 'latest' }, { type: 'text', text: 'ans' }]),
];

test('E09 (preserveLatestAssistant true, as the function defaults and as §4.6.1 decides here)', () => {
  const input = deepFreeze(structuredClone(E09_IN));
  for (const options of [{ preserveLatestAssistant: true }, {}]) {
    const out = stripInvalidThinkingSignatures(input, options);
    assert.deepEqual(out, E09_OUT);
    assert.equal(out[0], input[0]);
    assert.equal(out[5], input[5]);
    assert.equal(out[6], input[6], 'the preserved latest assistant is the same object');
  }
});

test('E09 with preserveLatestAssistant:false: the last message loses its unsigned thinking too', () => {
  const out = stripInvalidThinkingSignatures(deepFreeze(structuredClone(E09_IN)), { preserveLatestAssistant: false });
  assert.deepEqual(out[6], A([{ type: 'text', text: 'ans' }]));
});

test('E09 through the streaming rule', () => {
  const input = deepFreeze(structuredClone(E09_IN));
  const { output, counts } = runRule(stripInvalidThinkingSignaturesRule, input);
  assert.deepEqual(output, E09_OUT);
  assert.equal(output[6], input[6]);
  assert.deepEqual(counts, { removedBlocks: 4, placeholders: 1, preservedLatest: 1 });
});

const roles = (spec: string[]): Message[] =>
  spec.map((role, i) => {
    if (role === 'user') return U(`u${i}`);
    if (role === 'toolResult') return R(`c${i}`);
    if (role === 'assistant(tool)') return A([{ type: 'thinking', thinking: 't' }, call(`c${i}`)]);
    return A([{ type: 'thinking', thinking: 't' }, { type: 'text', text: 'a' }]);
  });

const E10: Array<[string[], boolean]> = [
  [['user', 'assistant'], true],
  [['user', 'assistant', 'user'], false],
  [['user', 'assistant(tool)', 'toolResult'], true],
  [['user', 'assistant(tool)', 'toolResult', 'assistant(tool)', 'toolResult'], false],
  [['user', 'assistant(tool)', 'toolResult', 'user'], false],
  [['assistant(tool)', 'toolResult'], true],
  [['user'], false],
];

for (const [spec, expected] of E10) {
  test(`E10 shouldPreserveLatestAssistantThinking ${JSON.stringify(spec)} -> ${expected}`, () => {
    const messages = deepFreeze(roles(spec));
    assert.equal(shouldPreserveLatestAssistantThinking(messages), expected);
    // The streaming rule keeps the latest unsigned thinking exactly when §4.6.1 says so.
    const { output } = runRule(stripInvalidThinkingSignaturesRule, messages);
    assert.deepEqual(output, stripInvalidThinkingSignatures(messages));
    const latest = messages.findLastIndex((m) => m.role === 'assistant');
    if (latest >= 0) assert.equal(output[latest] === messages[latest], expected);
  });
}

test('§4.6.1 more cases: no assistant, trailing non-user messages, tool-call types, first of the user turn', () => {
  const preserve = (messages: Message[]) => shouldPreserveLatestAssistantThinking(deepFreeze(messages));
  assert.equal(preserve([]), false);
  assert.equal(preserve([U('q'), { role: 'assistant', content: 'string', stopReason: 'stop' }]), false, 'a string assistant is not an array assistant');
  assert.equal(preserve([U('q'), A([{ type: 'text', text: 'a' }]), { role: 'custom' }]), false, 'no tool call');
  assert.equal(preserve([U('q'), A([call('c1')]), { role: 'custom' }]), false, 'no toolResult after it');
  assert.equal(preserve([U('q'), A([call('c1', 'tool_use')]), R('c1')]), true);
  assert.equal(preserve([U('q'), A([call('c1', 'function_call')]), R('c1')]), true);
  assert.equal(preserve([U('q'), A([call('c1', 'toolUse')]), R('c1')]), false, 'toolUse is not a tool call here (oracle)');
  assert.equal(preserve([U('q'), A([call('c1', 'functionCall')]), R('c1')]), false);
  assert.equal(preserve([U('q'), { role: 'assistant', content: 'x', stopReason: 'stop' }, A([call('c1')]), R('c1')]), false, 'a string assistant before it counts');
  assert.equal(preserve([A([{ type: 'text', text: 'x' }]), U('q'), { role: 'custom' }, A([call('c1')]), { role: 'custom' }, R('c1')]), true);
});

test('isCurrentToolTurn and lastUserIndex', () => {
  const messages = deepFreeze([U('q'), A([call('c1')]), R('c1'), A([call('c2')]), R('c2')]);
  assert.equal(lastUserIndex(messages), 0);
  assert.equal(lastUserIndex([A([])]), -1);
  assert.equal(isCurrentToolTurn(messages, 1, 0), true);
  assert.equal(isCurrentToolTurn(messages, 3, 0), false);
  assert.equal(isCurrentToolTurn(messages, 1, 2), false, 'before the last user');
  assert.equal(isCurrentToolTurn(messages, 0, 0), false, 'not an assistant');
});

test('replayable signatures: a non-blank string in signature, thinkingSignature, thought_signature (or data for redacted)', () => {
  const signed = [
    { type: 'thinking', thinking: 'x', signature: 's' },
    { type: 'thinking', thinking: 'x', thinkingSignature: ' s ' },
    { type: 'thinking', thinking: 'x', thought_signature: 's' },
    { type: 'thinking', thinking: 'x', thinkingSignature: '', signature: 's' },
    { type: 'redacted_thinking', data: 'd' },
    { type: 'redacted_thinking', signature: 's' },
  ];
  const unsigned = [
    { type: 'thinking', thinking: 'x' },
    { type: 'thinking', thinking: 'x', thinkingSignature: '' },
    { type: 'thinking', thinking: 'x', thinkingSignature: '   ' },
    { type: 'thinking', thinking: 'x', thinkingSignature: 7 },
    { type: 'thinking', thinking: 'x', thinkingSignature: null },
    { type: 'thinking', thinking: 'x', thinkingSignature: { s: 1 } },
    { type: 'thinking', thinking: 'x', thoughtSignature: 'camel is not consulted' },
    { type: 'thinking', thinking: 'x', data: 'data only counts for redacted' },
    { type: 'redacted_thinking', data: '' },
    { type: 'redacted_thinking' },
  ];
  for (const block of signed) assert.equal(isReplayableThinkingBlock(block), true, JSON.stringify(block));
  for (const block of unsigned) assert.equal(isReplayableThinkingBlock(block), false, JSON.stringify(block));
  const out = stripInvalidThinkingSignatures(deepFreeze([A([...signed, ...unsigned, { type: 'text', text: 'keep' }]), U('q')]));
  assert.deepEqual(out[0]!.content, [...signed, { type: 'text', text: 'keep' }]);
});

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
}

const cases: Case[] = [
  {
    name: 'only non-thinking blocks are kept as they are (text, tool calls, unknown, null, redactedThinking)',
    input: [A([{ type: 'text', text: 'a' }, call('c1'), { type: 'weird' }, null, { type: 'redactedThinking' }, { type: 'thinking', thinking: 'u' }]), U('q')],
    expected: [A([{ type: 'text', text: 'a' }, call('c1'), { type: 'weird' }, null, { type: 'redactedThinking' }]), U('q')],
  },
  {
    name: 'an emptied turn gets the placeholder, keeping its other fields (providerReplay untouched, no §4.3)',
    input: [A([{ type: 'thinking', thinking: 'u' }], { timestamp: 5, providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }), U('q')],
    expected: [A(OMITTED, { timestamp: 5, providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }), U('q')],
  },
  {
    name: 'error turns are treated like any other (oracle)',
    input: [U('q'), A([{ type: 'thinking', thinking: 'u' }], { stopReason: 'error' }), U('q2')],
    expected: [U('q'), A(OMITTED, { stopReason: 'error' }), U('q2')],
  },
  {
    name: 'content [] is left alone, no placeholder (oracle)',
    input: [U('q'), A([], { providerReplay: { id: 'x' } }), U('q2'), A([{ type: 'text', text: 'fin' }])],
    expected: [U('q'), A([], { providerReplay: { id: 'x' } }), U('q2'), A([{ type: 'text', text: 'fin' }])],
  },
  {
    name: 'string-content assistants and other roles are never touched',
    input: [{ role: 'assistant', content: 'plain', stopReason: 'stop' }, R('c'), { role: 'custom', content: [{ type: 'thinking', thinking: 'x' }] }, U('q')],
    expected: [{ role: 'assistant', content: 'plain', stopReason: 'stop' }, R('c'), { role: 'custom', content: [{ type: 'thinking', thinking: 'x' }] }, U('q')],
  },
  {
    name: 'a toolUse turn after the user is not the current tool turn: cleaned (oracle)',
    input: [U('q'), A([{ type: 'thinking', thinking: 'u' }, call('t1', 'toolUse')]), R('t1')],
    expected: [U('q'), A([call('t1', 'toolUse')]), R('t1')],
  },
  {
    name: 'the current tool turn keeps its unsigned thinking; an earlier turn does not',
    input: [U('q'), A([{ type: 'thinking', thinking: 'old' }, { type: 'text', text: 'a' }]), U('q2'), A([{ type: 'thinking', thinking: 'u' }, call('t1')]), R('t1')],
    expected: [U('q'), A([{ type: 'text', text: 'a' }]), U('q2'), A([{ type: 'thinking', thinking: 'u' }, call('t1')]), R('t1')],
  },
];

for (const c of cases) {
  test(`stripInvalidThinkingSignatures: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = stripInvalidThinkingSignatures(input);
    assert.deepEqual(out, c.expected);
    out.forEach((message, i) => {
      if (JSON.stringify(message) === JSON.stringify(input[i])) assert.equal(message, input[i], `message ${i} untouched is the same object`);
    });
    assert.deepEqual(runRule(stripInvalidThinkingSignaturesRule, input).output, c.expected);
  });
}

const E11_IN: Message[] = [
  { role: 'user', content: 'q1', timestamp: 10 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'pre', thinkingSignature: 'SIGpre' }, { type: 'text', text: 'a1' }], stopReason: 'stop', timestamp: 20 },
  { role: 'compactionSummary', summary: 'sum', tokensBefore: 100, timestamp: 30 },
  { role: 'user', content: 'q2', timestamp: 40 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'unsigned' }, { type: 'text', text: 'a2' }], stopReason: 'stop', timestamp: 50 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'only', thinkingSignature: ' ' }], stopReason: 'stop', timestamp: 55 },
  { role: 'user', content: 'q3', timestamp: 60 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'latest', thinkingSignature: '' }, { type: 'text', text: 'a3' }], stopReason: 'stop', timestamp: 70 },
];

const E11_OUT: Message[] = [
  { role: 'user', content: 'q1', timestamp: 10 },
  { role: 'assistant', content: [{ type: 'text', text: 'a1' }], stopReason: 'stop', timestamp: 20 },
  { role: 'compactionSummary', summary: 'sum', tokensBefore: 100, timestamp: 30 },
  { role: 'user', content: 'q2', timestamp: 40 },
  { role: 'assistant', content: [{ type: 'text', text: 'a2' }], stopReason: 'stop', timestamp: 50 },
  { role: 'assistant', content: [{ type: 'text', text: '[assistant reasoning omitted]' }], stopReason: 'stop', timestamp: 55 },
  { role: 'user', content: 'q3', timestamp: 60 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'latest', thinkingSignature: '' }, { type: 'text', text: 'a3' }], stopReason: 'stop', timestamp: 70 },
];

test('E11 anthropic / claude-opus-4-6: compaction-stale then invalid signatures, latest preserved (before turn validation)', () => {
  const input = deepFreeze(structuredClone(E11_IN));
  assert.deepEqual(stripInvalidThinkingSignatures(stripStaleThinkingSignatures(input)), E11_OUT);
  const { output } = runRule(stripInvalidThinkingSignaturesRule, stripStaleThinkingSignatures(input));
  assert.deepEqual(output, E11_OUT);
  assert.equal(output[7], input[7]);
});

test('E11 with preserveLatestAssistantThinking:false: the last message becomes [a3]', () => {
  const out = stripInvalidThinkingSignatures(stripStaleThinkingSignatures(deepFreeze(structuredClone(E11_IN))), { preserveLatestAssistant: false });
  assert.deepEqual(out[7]!.content, [{ type: 'text', text: 'a3' }]);
});

// ---------------------------------------------------------------------------------------------
// The streaming rule

test('stream: the latest array assistant is held until the next array assistant, a user message, or the end', () => {
  const messages = deepFreeze([
    U('q'), // 1 out
    A([{ type: 'thinking', thinking: 'a' }, call('c1')]), // held
    R('c1'), // held
    { role: 'assistant', content: 'string', stopReason: 'stop' }, // held (not an array assistant)
    A([{ type: 'text', text: 'b' }]), // settles the first: 4 out, this one held
    { role: 'custom' }, // held
    U('q2'), // settles: all out
    { role: 'custom' }, // nothing held: out at once
    A([{ type: 'thinking', thinking: 'c' }]), // held to the end
  ]);
  const { output, emittedAfter } = emissionTrace(stripInvalidThinkingSignaturesRule, messages);
  assert.deepEqual(emittedAfter, [1, 1, 1, 1, 4, 4, 7, 8, 8, 9]);
  assert.deepEqual(output, stripInvalidThinkingSignatures(messages));
  assert.equal(output[8], messages[8], 'the last message is preserved');
});

test('stream equals the whole-array core on generated transcripts (default budget and 1024 bytes)', () => {
  let changed = 0;
  let preserved = 0;
  for (let seed = 0; seed < 40; seed++) {
    const input = deepFreeze(randomThinkingTranscript(seed, 3 + (seed % 8) * 5));
    const expected = stripInvalidThinkingSignatures(input);
    changed += expected.filter((m, i) => m !== input[i]).length;
    if (shouldPreserveLatestAssistantThinking(input)) preserved++;
    const small = runRule(stripInvalidThinkingSignaturesRule, input, { options: { memoryBudgetBytes: 1024 } }).output;
    assert.deepEqual(runRule(stripInvalidThinkingSignaturesRule, input).output, expected, `seed ${seed}`);
    assert.deepEqual(small, expected, `seed ${seed}, 1 KiB`);
  }
  assert.ok(changed > 20 && preserved > 5, `the generated inputs exercise the rule (${changed} changed, ${preserved} preserved)`);
});

test('stream: a long tail after the held assistant spills and still matches', () => {
  const input: Message[] = [U('q'), A([{ type: 'thinking', thinking: 'u' }, ...Array.from({ length: 50 }, (_, i) => call(`c${i}`))])];
  for (let i = 0; i < 50; i++) input.push({ ...R(`c${i}`), content: [{ type: 'text', text: 'z'.repeat(200) }] });
  deepFreeze(input);
  const { output, counts } = runRule(stripInvalidThinkingSignaturesRule, input, { options: { memoryBudgetBytes: 1024 } });
  assert.deepEqual(output, input, 'the current tool turn is preserved');
  assert.ok((counts.spilledEntries ?? 0) > 0);
});

test('rule: meta', () => {
  assert.equal(stripInvalidThinkingSignaturesRule.unit, 'buffered');
  assert.equal(stripInvalidThinkingSignaturesRule.meta.name, 'strip-invalid-thinking-signatures');
  assert.deepEqual(stripInvalidThinkingSignaturesRule.meta.counters, ['removedBlocks', 'placeholders', 'preservedLatest', 'spilledEntries']);
});

test('enabled for signed-thinking providers (any api) or policies that preserve signatures', () => {
  const enabled = (provider: string, modelApi: string, modelId: string) => {
    const options = resolveHygieneOptions({ provider, modelApi, modelId });
    return stripInvalidThinkingSignaturesEnabled(resolveTranscriptPolicy(options), options);
  };
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6'), true);
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('amazon-bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-sonnet-4-5-v1:0'), true);
  assert.equal(enabled('amazon-bedrock', 'openai-completions', 'x'), true, 'signed provider without preserveSignatures (oracle)');
  assert.equal(enabled('anthropic-vertex', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('minimax', 'anthropic-messages', 'MiniMax-M2'), true);
  assert.equal(enabled('github-copilot', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('minimax', 'openai-completions', 'MiniMax-M2'), false);
  assert.equal(enabled('google', 'google-generative-ai', 'gemini-2.5-pro'), false);
  assert.equal(enabled('vllm', 'openai-completions', 'qwen3'), false);
  assert.equal(enabled('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5'), false);
  assert.equal(stripInvalidThinkingSignaturesEnabled(testPolicy(), resolveHygieneOptions({ provider: 'bedrock' })), false);
});
