import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hasNonzeroUsage,
  hasOnlyAssistantReasoningContent,
  hasZeroTokenUsageSnapshot,
  isBareDeliveryMirrorDuplicate,
  isReasoningOnlyLengthAssistantTurn,
  isStreamErrorFallbackContent,
  isTranscriptOnlyOpenClawAssistant,
  normalizeAssistantReplayContentRule,
  normalizeAssistantReplayMessage,
  replaceCompactionReplayOwnerContent,
  STREAM_ERROR_FALLBACK_TEXT,
} from '../../transforms/normalize-assistant-replay-content.ts';
import { dropBlankUserTextRule } from '../../transforms/drop-blank-user-text.ts';
import { dropBlankTextBlocksRule } from '../../transforms/drop-blank-text-blocks.ts';
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { Rule } from '../../lib/rule.ts';
import type { AssistantMessage, ContentBlock, Message } from '../../lib/types.ts';
import { assistant, deepFreeze, image, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const rule = normalizeAssistantReplayContentRule;
const FALLBACK = STREAM_ERROR_FALLBACK_TEXT;
const BEDROCK = { repairBedrockEmptyErrorTurns: true } as const;
const B = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';
const E = '<<<END_OPENCLAW_INTERNAL_CONTEXT>>>';

/** Runs the rule on deep-frozen copies; returns the output, the counters and the frozen input. */
function run(messages: readonly Message[], policy: { repairBedrockEmptyErrorTurns?: boolean } = {}) {
  const input = deepFreeze(structuredClone(messages) as Message[]);
  const result = runRule(rule, input, { policy });
  return { ...result, input };
}

/** Steps 2, 4 (user then assistant side) and 5 of the pipeline, for the §9 examples that go through pass B. */
function runPassAThenB(messages: readonly Message[], route: { provider: string; modelApi: string; modelId: string }): Message[] {
  const options = resolveHygieneOptions(route);
  const policy = resolveTranscriptPolicy(options);
  const out: Message[] = [];
  const rules: Rule[] = [dropBlankUserTextRule, rule, dropBlankTextBlocksRule];
  const chain = createRuleChain(rules, { policy, options, stats: new StatsRecorder() }, (m) => out.push(m));
  for (const m of deepFreeze(structuredClone(messages) as Message[])) chain.write(m);
  chain.end();
  chain.dispose();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Worked examples, verbatim (spec thinking.md §6, turns-images-policy.md §9; `usage` the project does not add)

describe('worked examples', () => {
  test('E01 reasoning-only length turn (thinking + blank text) dropped', () => {
    const { output, counts } = run([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'partial plan', thinkingSignature: 'SIGx' }, { type: 'text', text: '  ' }], stopReason: 'length' },
      { role: 'user', content: 'continue' },
    ]);
    assert.deepEqual(output, [{ role: 'user', content: 'q' }, { role: 'user', content: 'continue' }]);
    assert.deepEqual(counts, { droppedReasoningOnlyLengthTurns: 1 });
  });

  test('E02 length turns that stay (same objects); redacted-only length turn dropped', () => {
    const { output, input } = run([
      { role: 'assistant', content: [], stopReason: 'length' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'text', text: 'half an answer' }], stopReason: 'length' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'length' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'foo' }], stopReason: 'length' },
      { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'R' }], stopReason: 'length' },
    ]);
    assert.equal(output.length, 4);
    for (let i = 0; i < 4; i++) assert.equal(output[i], input[i]);
  });

  test('E03 silent-reply cleanup', () => {
    const { output, counts } = run([
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'text', text: 'NO_REPLY' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'text', text: 'NO_REPLY' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }, { type: 'text', text: 'NO_REPLY' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }, { type: 'text', text: '  ' }], stopReason: 'stop' },
    ]);
    assert.deepEqual(output, [
      { role: 'assistant', content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'S' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: '  ' }], stopReason: 'stop' },
    ]);
    assert.deepEqual(counts, { droppedSilentTurns: 1, removedBlocks: 3 });
  });

  test('E04 silent variants and string content', () => {
    const { output, counts } = run([
      { role: 'assistant', content: 'no_reply.', stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: '{"action":"NO_REPLY"}' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: '<think>x</think> NO_REPLY' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY because' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: '`NO_REPLY`' }], stopReason: 'stop' },
      { role: 'assistant', content: 'hi there', stopReason: 'stop' },
    ]);
    assert.deepEqual(output, [
      { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY because' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: '`NO_REPLY`' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'hi there' }], stopReason: 'stop' },
    ]);
    assert.deepEqual(counts, { droppedSilentTurns: 3, wrappedContent: 1 });
  });

  const E05_IN: Message[] = [
    { role: 'assistant', content: [], stopReason: 'error' },
    { role: 'assistant', content: [{ type: 'text', text: '   ' }], stopReason: 'error' },
    { role: 'assistant', content: [{ type: 'text', text: '[assistant turn failed before producing content]' }], stopReason: 'error' },
    { role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'error' },
    { role: 'assistant', content: [], stopReason: 'stop', usage: { input: 0, output: 0, totalTokens: 0 } },
    { role: 'assistant', content: [], stopReason: 'aborted' },
  ];

  test('E05 stream-error / empty turns', () => {
    const { output, counts } = run(E05_IN);
    assert.deepEqual(output, [
      { role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'error' },
      { role: 'assistant', content: [], stopReason: 'aborted' },
    ]);
    assert.deepEqual(counts, { droppedFailedTurns: 4 });
  });

  test('E05 on Bedrock Converse (seed deviation): [] repaired, the fallback text kept, blank text still dropped', () => {
    const { output, counts, input } = run(E05_IN, BEDROCK);
    assert.deepEqual(output, [
      { role: 'assistant', content: [{ type: 'text', text: '[assistant turn failed before producing content]' }], stopReason: 'error' },
      { role: 'assistant', content: [{ type: 'text', text: '[assistant turn failed before producing content]' }], stopReason: 'error' },
      { role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'error' },
      { role: 'assistant', content: [], stopReason: 'aborted' },
    ]);
    assert.equal(output[1], input[2], 'the on-disk repaired turn is untouched');
    assert.deepEqual(counts, { repairedFailedTurns: 1, droppedFailedTurns: 2 });
  });

  test('E06 delivery mirrors and bare duplicate', () => {
    const { output, counts } = run([
      { role: 'assistant', content: [{ type: 'text', text: 'x' }], stopReason: 'stop', provider: 'openclaw', model: 'delivery-mirror' },
      { role: 'assistant', content: [{ type: 'text', text: 'y' }], stopReason: 'stop', openclawDeliveryMirror: { kind: 'channel-final' } },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', usage: { input: 9, output: 3 } },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', usage: { input: 0, output: 0 } },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', usage: { input: 0, output: 1 } },
    ]);
    assert.deepEqual(output, [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', usage: { input: 9, output: 3 } },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', usage: { input: 0, output: 1 } },
    ]);
    assert.deepEqual(counts, { droppedTranscriptOnly: 2, droppedMirrorDuplicates: 1 });
  });

  test('E07 compaction owner content', () => {
    const { output } = run([
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'QUJD', mimeType: 'image/png' }, { type: 'text', text: 'NO_REPLY' }, { type: 'text', text: 'c' }], stopReason: 'stop', providerReplay: { type: 'anthropic-compaction', replayIndex: 3, summary: 'S' } },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'QUJD', mimeType: 'image/png' }], stopReason: 'stop', providerReplay: { type: 'openai-responses-compaction', replayIndex: 9 } },
      { role: 'assistant', content: 'plain', stopReason: 'stop', providerReplay: { type: 'anthropic-compaction', replayIndex: 0 } },
    ]);
    assert.deepEqual(output, [
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'c' }], stopReason: 'stop', providerReplay: { type: 'anthropic-compaction', replayIndex: 1, summary: 'S' } },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }], stopReason: 'stop' },
      { role: 'assistant', content: [{ type: 'text', text: 'plain' }], stopReason: 'stop' },
    ]);
  });

  const TURNS_E23_IN: Message[] = [
    { role: 'user', content: 'q <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> stays in user turns', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'text', text: 'answer\n\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }], stopReason: 'stop', timestamp: 2 },
    { role: 'user', content: 'q2', timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }], stopReason: 'stop', timestamp: 4 },
    { role: 'assistant', content: [{ type: 'text', text: 'mirror' }], stopReason: 'stop', provider: 'openclaw', model: 'delivery-mirror', timestamp: 5 },
    { role: 'assistant', content: [], stopReason: 'error', timestamp: 6 },
  ];

  test('turns E23 assistant-replay-normalization (openai / openai-responses / gpt-5), passes A and B', () => {
    assert.deepEqual(runPassAThenB(TURNS_E23_IN, { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' }), [
      { role: 'user', content: 'q <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> stays in user turns', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }], stopReason: 'stop', timestamp: 2 },
      { role: 'user', content: 'q2', timestamp: 3 },
    ]);
  });

  test('turns E23 on Bedrock Converse: the empty error turn is repaired instead', () => {
    const out = runPassAThenB(TURNS_E23_IN, { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'amazon.nova-pro-v1:0' });
    assert.deepEqual(out.slice(3), [{ role: 'assistant', content: [{ type: 'text', text: FALLBACK }], stopReason: 'error', timestamp: 6 }]);
  });

  test('turns E8 user and assistant blanks: a blank assistant text survives pass A, pass B drops it', () => {
    const input: Message[] = [
      { role: 'user', content: 'q', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'text', text: '  ' }], stopReason: 'stop', timestamp: 2 },
      { role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: '\n' }], timestamp: 3 },
      { role: 'user', content: '  ', timestamp: 4 },
      { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'text', text: 'real' }], stopReason: 'stop', timestamp: 5 },
    ];
    assert.deepEqual(run(input).output[1], input[1]);
    assert.deepEqual(runPassAThenB(input, { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }), [
      { role: 'user', content: 'q', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'text', text: 'real' }], stopReason: 'stop', timestamp: 5 },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// §4.1, step by step: one message in, the output (SAME = the input object itself)

const SAME = Symbol('same');
type Expected = Message | typeof SAME | null;
interface StepCase {
  name: string;
  input: Message;
  expected: Expected;
  counts?: Record<string, number>;
  bedrock?: boolean;
}

function checkStep(c: StepCase): void {
  test(c.name, () => {
    const { output, counts, input } = run([c.input], c.bedrock ? BEDROCK : {});
    if (c.expected === null) assert.deepEqual(output, []);
    else if (c.expected === SAME) {
      assert.equal(output.length, 1);
      assert.equal(output[0], input[0], 'the same object');
    } else {
      assert.equal(output.length, 1);
      assert.notEqual(output[0], input[0]);
      assert.deepEqual(output[0], c.expected);
    }
    if (c.counts) assert.deepEqual(counts, c.counts);
  });
}

const M = '⟦openclaw:ctx⟧';

describe('§4.1 steps 1-2: other roles pass untouched', () => {
  const cases: StepCase[] = [
    { name: 'a user string (blank-text cleanup is drop-blank-user-text)', input: user('  '), expected: SAME, counts: {} },
    { name: 'a user NO_REPLY', input: user('NO_REPLY'), expected: SAME },
    { name: 'a user with runtime context', input: user(`a\n${B}\nx\n${E}`), expected: SAME },
    { name: 'a tool result', input: toolResult('c1', [text('NO_REPLY'), image()]), expected: SAME },
    { name: 'a compaction summary', input: { role: 'compactionSummary', summary: 'NO_REPLY', tokensBefore: 1 }, expected: SAME },
    { name: 'a custom role with assistant-like fields', input: { role: 'custom', content: [], stopReason: 'error' }, expected: SAME },
    { name: 'no role', input: { content: 'NO_REPLY' }, expected: SAME },
  ];
  cases.forEach(checkStep);
});

describe('§4.1 step 3: transcript-only OpenClaw assistants', () => {
  const cases: StepCase[] = [
    { name: 'provider openclaw, model delivery-mirror', input: assistant([text('x')], { provider: 'openclaw', model: 'delivery-mirror' }), expected: null, counts: { droppedTranscriptOnly: 1 } },
    { name: 'provider openclaw, model gateway-injected', input: assistant([text('x')], { provider: 'openclaw', model: 'gateway-injected' }), expected: null },
    { name: 'model names are case-sensitive', input: assistant([text('x')], { provider: 'openclaw', model: 'Delivery-Mirror' }), expected: SAME },
    { name: 'another provider with a mirror model name', input: assistant([text('x')], { provider: 'other', model: 'delivery-mirror' }), expected: SAME },
    { name: 'a channel-final mirror', input: assistant([text('x')], { openclawDeliveryMirror: { kind: 'channel-final' } }), expected: null },
    { name: 'a channel-final-suppressed mirror', input: assistant([text('x')], { openclawDeliveryMirror: { kind: 'channel-final-suppressed' } }), expected: null },
    { name: 'a message-tool-source-reply mirror', input: assistant([text('x')], { openclawDeliveryMirror: { kind: 'message-tool-source-reply' } }), expected: null },
    { name: 'a cron-direct-delivery-context mirror', input: assistant([text('x')], { openclawDeliveryMirror: { kind: 'cron-direct-delivery-context' } }), expected: null },
    { name: 'an unknown mirror kind', input: assistant([text('x')], { openclawDeliveryMirror: { kind: 'other' } }), expected: SAME },
    { name: 'a mirror marker that is an array', input: assistant([text('x')], { openclawDeliveryMirror: [{ kind: 'channel-final' }] }), expected: SAME },
    { name: 'a mirror marker that is a string', input: assistant([text('x')], { openclawDeliveryMirror: 'channel-final' }), expected: SAME },
    { name: 'a mirror with an error stop reason is still transcript-only', input: assistant([], { stopReason: 'error', provider: 'openclaw', model: 'delivery-mirror' }), expected: null, counts: { droppedTranscriptOnly: 1 }, bedrock: true },
  ];
  cases.forEach(checkStep);
});

describe('§4.1 step 4 and §4.14: failed and empty turns', () => {
  const zero = { input: 0, output: 0, totalTokens: 0 };
  const cases: StepCase[] = [
    { name: 'error, content []', input: assistant([], { stopReason: 'error' }), expected: null, counts: { droppedFailedTurns: 1 } },
    { name: 'error, content null', input: assistant(null as never, { stopReason: 'error' }), expected: null },
    { name: 'error, no content', input: { role: 'assistant', stopReason: 'error' }, expected: null },
    { name: 'error, blank string', input: assistant(' \n', { stopReason: 'error' }), expected: null },
    { name: 'error, the fallback string padded', input: assistant(` ${FALLBACK} `, { stopReason: 'error' }), expected: null },
    { name: 'error, blank text blocks', input: assistant([text('   '), text('')], { stopReason: 'error' }), expected: null },
    { name: 'error, padded fallback in output_text and blank input_text', input: assistant([{ type: 'output_text', text: ` ${FALLBACK}\n` }, { type: 'input_text', text: '' }], { stopReason: 'error' }), expected: null },
    { name: 'error, the fallback text block with extra fields', input: assistant([{ type: 'text', text: FALLBACK, textSignature: 'x' }], { stopReason: 'error' }), expected: null },
    { name: 'error, a text block without text falls through', input: assistant([{ type: 'text' }], { stopReason: 'error' }), expected: SAME },
    { name: 'error, fallback text next to real text falls through', input: assistant([text(FALLBACK), text('partial')], { stopReason: 'error' }), expected: SAME },
    { name: 'error, real text', input: assistant([text('partial')], { stopReason: 'error' }), expected: SAME },
    { name: 'error, thinking', input: assistant([thinking('t')], { stopReason: 'error' }), expected: SAME },
    { name: 'error, a tool call', input: assistant([toolCall('z', 'a')], { stopReason: 'error' }), expected: SAME },
    { name: 'error, only an image: falls through, then emptied by step 7', input: assistant([image()], { stopReason: 'error' }), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'aborted, content []', input: assistant([], { stopReason: 'aborted' }), expected: SAME },
    { name: 'stop, [] with a zero usage snapshot', input: assistant([], { usage: zero }), expected: null, counts: { droppedFailedTurns: 1 } },
    { name: 'stop, [] with a zero total only', input: assistant([], { usage: { total: 0 } }), expected: null },
    { name: 'stop, [] with usage {} (no finite count: not a zero snapshot)', input: assistant([], { usage: {} }), expected: SAME },
    { name: 'stop, [] without usage', input: assistant([]), expected: SAME },
    { name: 'stop, [] with a nonzero part and a zero total', input: assistant([], { usage: { input: 0, output: 5, totalTokens: 0 } }), expected: SAME },
    { name: 'stop, the fallback text with a zero snapshot', input: assistant([text(FALLBACK)], { usage: { input: 0 } }), expected: null },
    { name: 'stop, null content with a zero total', input: assistant(null as never, { usage: { totalTokens: 0 } }), expected: null },
    { name: 'stop, real text with a zero total', input: assistant([text('x')], { usage: { totalTokens: 0 } }), expected: SAME },
    { name: 'length, [] with a zero snapshot', input: assistant([], { stopReason: 'length', usage: zero }), expected: SAME },
    // Bedrock Converse (policy.repairBedrockEmptyErrorTurns)
    { name: 'Bedrock: error, [] is repaired with the fallback text', input: assistant([], { stopReason: 'error', timestamp: 6 }), expected: assistant([text(FALLBACK)], { stopReason: 'error', timestamp: 6 }), counts: { repairedFailedTurns: 1 }, bedrock: true },
    { name: 'Bedrock: error, exactly the fallback text is kept as it is', input: assistant([text(FALLBACK)], { stopReason: 'error' }), expected: SAME, counts: {}, bedrock: true },
    { name: 'Bedrock: the fallback text block with extra fields is kept', input: assistant([{ type: 'text', text: FALLBACK, textSignature: 'x' }], { stopReason: 'error' }), expected: SAME, bedrock: true },
    { name: 'Bedrock: error, blank text is still dropped', input: assistant([text('  ')], { stopReason: 'error' }), expected: null, counts: { droppedFailedTurns: 1 }, bedrock: true },
    { name: 'Bedrock: error, a padded fallback text is not exactly it: dropped', input: assistant([text(` ${FALLBACK}`)], { stopReason: 'error' }), expected: null, bedrock: true },
    { name: 'Bedrock: error, two fallback blocks: dropped', input: assistant([text(FALLBACK), text(FALLBACK)], { stopReason: 'error' }), expected: null, bedrock: true },
    { name: 'Bedrock: error, the fallback as an output_text block: dropped', input: assistant([{ type: 'output_text', text: FALLBACK }], { stopReason: 'error' }), expected: null, bedrock: true },
    { name: 'Bedrock: error, the fallback as a string: dropped (not the on-disk form)', input: assistant(FALLBACK, { stopReason: 'error' }), expected: null, bedrock: true },
    { name: 'Bedrock: error, null content: dropped (only [] is repaired)', input: assistant(null as never, { stopReason: 'error' }), expected: null, bedrock: true },
    { name: 'Bedrock: error, no content: dropped', input: { role: 'assistant', stopReason: 'error' }, expected: null, bedrock: true },
    { name: 'Bedrock: stop, [] with a zero snapshot is still dropped', input: assistant([], { usage: zero }), expected: null, counts: { droppedFailedTurns: 1 }, bedrock: true },
    { name: 'Bedrock: aborted, [] is not an error turn', input: assistant([], { stopReason: 'aborted' }), expected: SAME, bedrock: true },
    {
      name: 'Bedrock: a repaired turn loses a compaction checkpoint (new block)',
      input: assistant([], { stopReason: 'error', providerReplay: { type: 'anthropic-compaction', replayIndex: 0 } }),
      expected: assistant([text(FALLBACK)], { stopReason: 'error' }),
      bedrock: true,
    },
    {
      name: 'Bedrock: a repaired turn keeps other providerReplay values',
      input: assistant([], { stopReason: 'error', providerReplay: { id: 'rs_1' } }),
      expected: assistant([text(FALLBACK)], { stopReason: 'error', providerReplay: { id: 'rs_1' } }),
      bedrock: true,
    },
    { name: 'Bedrock: a repaired turn is not a mirror duplicate (stopReason error)', input: assistant([], { stopReason: 'error', usage: {} }), expected: assistant([text(FALLBACK)], { stopReason: 'error', usage: {} }), bedrock: true },
  ];
  cases.forEach(checkStep);
});

describe('§4.1 step 5: string content', () => {
  const cases: StepCase[] = [
    { name: 'a plain string becomes one text block', input: assistant('hi there'), expected: assistant([text('hi there')]), counts: { wrappedContent: 1 } },
    { name: 'surrounding whitespace is kept', input: assistant('  hi  '), expected: assistant([text('  hi  ')]) },
    { name: 'runtime context is stripped', input: assistant(`${B}\nx\n${E}\n  kept  `), expected: assistant([text('kept  ')]), counts: { wrappedContent: 1, strippedTexts: 1 } },
    { name: 'inbound metadata is stripped', input: assistant(`Sender: ${M}\n\`\`\`json\n{}\n\`\`\`\n\nreal`), expected: assistant([text('real')]) },
    { name: 'a blank string (stop, no usage) is dropped', input: assistant('  '), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'a string stripped to blank is dropped', input: assistant(`${B}\nx\n${E}`), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'a silent string is dropped', input: assistant('no_reply.'), expected: null, counts: { droppedSilentTurns: 1 } },
    { name: 'a string stripped to the token is dropped as silent', input: assistant(`${B}\nx\n${E}\nNO_REPLY`), expected: null, counts: { droppedSilentTurns: 1 } },
    { name: 'a compaction owner loses its checkpoint', input: assistant('plain', { providerReplay: { type: 'anthropic-compaction', replayIndex: 0 } }), expected: assistant([text('plain')]) },
    { name: 'an openai-responses-compaction owner too', input: assistant('plain', { providerReplay: { type: 'openai-responses-compaction' } }), expected: assistant([text('plain')]) },
    { name: 'a retained compaction is untouched', input: assistant('plain', { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 0 } }), expected: assistant([text('plain')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 0 } }) },
    { name: 'a non-object providerReplay is untouched', input: assistant('plain', { providerReplay: 'str' }), expected: assistant([text('plain')], { providerReplay: 'str' }) },
    { name: 'a string length turn is not checked for reasoning', input: assistant('half', { stopReason: 'length' }), expected: assistant([text('half')], { stopReason: 'length' }) },
  ];
  cases.forEach(checkStep);
});

describe('§4.1 step 6: other non-array content', () => {
  const cases: StepCase[] = [
    { name: 'an object is wrapped', input: assistant({ type: 'text', text: 'hi' } as never), expected: assistant([text('hi')]), counts: { wrappedContent: 1 } },
    { name: 'null becomes []', input: assistant(null as never, { providerReplay: { x: 1 } }), expected: assistant([], { providerReplay: { x: 1 } }) },
    { name: 'a number becomes []', input: assistant(5 as never), expected: assistant([]) },
    { name: 'missing content becomes []', input: { role: 'assistant', stopReason: 'stop' }, expected: { role: 'assistant', stopReason: 'stop', content: [] } },
    { name: 'an error turn with {} becomes [{}]', input: assistant({} as never, { stopReason: 'error' }), expected: assistant([{}], { stopReason: 'error' }) },
    { name: 'a wrapped display block is removed, leaving nothing: dropped', input: assistant(image() as never, { providerReplay: { x: 1 } }), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'a wrapped thinking block in a length turn: reasoning-only, dropped', input: assistant(thinking('t') as never, { stopReason: 'length' }), expected: null, counts: { droppedReasoningOnlyLengthTurns: 1 } },
    {
      name: 'a wrapped object keeps a compaction checkpoint (the reference throws here)',
      input: assistant({ type: 'text', text: 'hi' } as never, { providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }),
      expected: assistant([text('hi')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }),
    },
  ];
  cases.forEach(checkStep);
});

describe('§4.1 step 7: array content', () => {
  const cases: StepCase[] = [
    { name: 'untouched content: the same object', input: assistant([thinking('t'), text('answer'), toolCall('c1')]), expected: SAME, counts: {} },
    { name: 'blank text is kept here (pass B removes it)', input: assistant([text('  '), text('a')]), expected: SAME },
    { name: 'display blocks are removed', input: assistant([text('a'), { type: 'audio', data: 'x' }, { type: 'video', url: 'x' }, { type: 'attachment', x: 1 }, { type: 'attachment_error', x: 1 }, image(), { type: 'Image', x: 1 }]), expected: assistant([text('a'), { type: 'Image', x: 1 }]), counts: { removedBlocks: 5 } },
    { name: 'only display blocks: dropped', input: assistant([{ type: 'audio', data: 'x' }], { providerReplay: { x: 1 } }), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'non-object blocks are kept', input: assistant([null, 'str', 5, text('NO_REPLY')] as never), expected: assistant([null, 'str', 5] as never) },
    { name: 'any block type with a string text is checked', input: assistant([{ type: 'foo', text: 'NO_REPLY' }, { type: 'output_text', text: 'x' }]), expected: assistant([{ type: 'output_text', text: 'x' }]) },
    { name: 'a silent text alone: dropped', input: assistant([text('NO_REPLY')]), expected: null, counts: { droppedSilentTurns: 1 } },
    { name: 'silent text and reasoning: dropped', input: assistant([thinking('t'), text('NO_REPLY')]), expected: null, counts: { droppedSilentTurns: 1 } },
    { name: 'silent text, reasoning and blank text: dropped', input: assistant([text('NO_REPLY'), thinking('t'), text(' ')]), expected: null },
    { name: 'silent text and redacted thinking: dropped', input: assistant([{ type: 'redacted_thinking', data: 'R' }, text('NO_REPLY')]), expected: null },
    { name: 'silent text next to a tool call: only the text goes (E03)', input: assistant([thinking('t'), text('NO_REPLY'), toolCall('c1')]), expected: assistant([thinking('t'), toolCall('c1')]), counts: { removedBlocks: 1 } },
    { name: 'silent text next to an unknown block: only the text goes', input: assistant([thinking('t'), text('NO_REPLY'), { type: 'foo' }]), expected: assistant([thinking('t'), { type: 'foo' }]) },
    { name: 'silent text next to a non-object block', input: assistant([thinking('t'), text('NO_REPLY'), 'str'] as never), expected: assistant([thinking('t'), 'str'] as never) },
    { name: 'redactedThinking is not reasoning here', input: assistant([thinking('t'), text('NO_REPLY'), { type: 'redactedThinking' }]), expected: assistant([thinking('t'), { type: 'redactedThinking' }]) },
    { name: 'a stripped text is kept with the new text', input: assistant([text(`answer\n\n${B}\nsecret\n${E}`), text('b')]), expected: assistant([text('answer'), text('b')]), counts: { strippedTexts: 1 } },
    { name: 'a text stripped to blank is removed, not counted as silent', input: assistant([thinking('t'), text(`${B}\nx\n${E}`)]), expected: assistant([thinking('t')]), counts: { removedBlocks: 1 } },
    { name: 'a text stripped to blank, nothing else: dropped as emptied', input: assistant([text(`${B}\nx\n${E}`)], { providerReplay: { x: 1 } }), expected: null, counts: { droppedEmptiedTurns: 1 } },
    { name: 'a text stripped to the token next to reasoning: dropped as silent', input: assistant([thinking('t'), text(`${B}\nx\n${E}\nNO_REPLY`)]), expected: null, counts: { droppedSilentTurns: 1 } },
    { name: 'a delivery hint in an assistant text', input: assistant([text('Delivery: to send a message, use the `message` tool.\n[WebChat 2026-01-05T10:00Z] sure')]), expected: assistant([text('[WebChat 2026-01-05T10:00Z] sure')]) },
    { name: 'other block fields survive a stripped text', input: assistant([{ type: 'text', text: `a\n${B}\nx\n${E}`, textSignature: 's' }]), expected: assistant([{ type: 'text', text: 'a', textSignature: 's' }]) },
    { name: 'other message fields survive', input: assistant([text('a'), image()], { timestamp: 7, model: 'm', api: 'x', idempotencyKey: 'k' }), expected: assistant([text('a')], { timestamp: 7, model: 'm', api: 'x', idempotencyKey: 'k' }) },
    { name: 'a thinking-only stop turn is untouched', input: assistant([thinking('t')]), expected: SAME },
    { name: 'a retained compaction keeps its checkpoint', input: assistant([text('a'), image(), text('b')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 9 } }), expected: assistant([text('a'), text('b')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 9 } }) },
    { name: 'a rewritten text drops an anthropic checkpoint', input: assistant([text('a'), text(`x\n${B}\ns\n${E}`)], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }), expected: assistant([text('a'), text('x')]) },
  ];
  cases.forEach(checkStep);

  test('kept blocks keep their identity', () => {
    const { output, input } = run([assistant([text('a'), image(), thinking('t')])]);
    const blocks = input[0]!.content as ContentBlock[];
    const out = output[0]!.content as ContentBlock[];
    assert.equal(out[0], blocks[0]);
    assert.equal(out[1], blocks[2]);
  });
});

describe('§4.1 step 8: reasoning-only length turns', () => {
  const cases: StepCase[] = [
    { name: 'thinking only', input: assistant([thinking('t')], { stopReason: 'length' }), expected: null, counts: { droppedReasoningOnlyLengthTurns: 1 } },
    { name: 'redacted thinking only', input: assistant([{ type: 'redacted_thinking', data: 'R' }], { stopReason: 'length' }), expected: null },
    { name: 'thinking and blank text', input: assistant([thinking('t'), text('  ')], { stopReason: 'length' }), expected: null },
    { name: 'thinking and an image: the image goes, then the turn', input: assistant([thinking('t'), image()], { stopReason: 'length' }), expected: null, counts: { droppedReasoningOnlyLengthTurns: 1 } },
    { name: 'empty', input: assistant([], { stopReason: 'length' }), expected: SAME },
    { name: 'visible text', input: assistant([thinking('t'), text('x')], { stopReason: 'length' }), expected: SAME },
    { name: 'a tool call', input: assistant([thinking('t'), toolCall('c1')], { stopReason: 'length' }), expected: SAME },
    { name: 'an unknown block type', input: assistant([thinking('t'), { type: 'foo' }], { stopReason: 'length' }), expected: SAME },
    { name: 'a non-object block', input: assistant([thinking('t'), 'x'] as never, { stopReason: 'length' }), expected: SAME },
    { name: 'an object without type', input: assistant([thinking('t'), { x: 1 }], { stopReason: 'length' }), expected: SAME },
    { name: 'redactedThinking is not a thinking-like block', input: assistant([{ type: 'redactedThinking' }], { stopReason: 'length' }), expected: SAME },
    { name: 'thinking only with stop', input: assistant([thinking('t')], { stopReason: 'stop' }), expected: SAME },
  ];
  cases.forEach(checkStep);
});

// ---------------------------------------------------------------------------------------------
// §4.1 step 9: the bare delivery-mirror duplicate (one-message lookbehind)

describe('§4.1 step 9: bare delivery-mirror duplicates', () => {
  const first = assistant([text('answer')], { usage: { input: 9 } });
  const dup = (extra: Partial<AssistantMessage> = {}) => assistant([text('answer')], { usage: {}, ...extra });
  const cases: Array<{ name: string; input: Message[]; kept: number[] }> = [
    { name: 'usage {} counts as zero: dropped', input: [first, dup()], kept: [0] },
    { name: 'all-zero usage: dropped', input: [first, dup({ usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } } })], kept: [0] },
    { name: 'no usage key: kept', input: [first, assistant([text('answer')])], kept: [0, 1] },
    { name: 'usage that is not an object: kept', input: [first, dup({ usage: 'x' })], kept: [0, 1] },
    { name: 'usage that is an array counts as an object: dropped', input: [first, dup({ usage: [] })], kept: [0] },
    { name: 'nonzero usage: kept', input: [first, dup({ usage: { output: 1 } })], kept: [0, 1] },
    { name: 'stopReason length: kept', input: [first, dup({ stopReason: 'length' })], kept: [0, 1] },
    { name: 'a user in between: kept', input: [first, user('q'), dup()], kept: [0, 1, 2] },
    { name: 'a tool result in between: kept', input: [first, toolResult('x', 'r'), dup()], kept: [0, 1, 2] },
    { name: 'a dropped silent turn in between: still dropped', input: [first, assistant([text('NO_REPLY')]), dup()], kept: [0] },
    { name: 'a dropped mirror in between: still dropped', input: [first, assistant([text('m')], { provider: 'openclaw', model: 'delivery-mirror' }), dup()], kept: [0] },
    { name: 'a chain of duplicates: each compared with the emitted one', input: [first, dup(), dup()], kept: [0] },
    { name: 'different content: kept', input: [first, assistant([text('answer ')], { usage: {} })], kept: [0, 1] },
    { name: 'different block fields: kept', input: [assistant([{ type: 'text', text: 'a', textSignature: 'a' }]), assistant([{ type: 'text', text: 'a', textSignature: 'b' }], { usage: {} })], kept: [0, 1] },
    { name: 'other message fields do not matter', input: [first, dup({ provider: 'p2', timestamp: 5, model: 'x' })], kept: [0] },
    { name: 'compared after normalization (a display block removed)', input: [first, assistant([text('answer'), image()], { usage: {} })], kept: [0] },
    { name: 'compared with the emitted, normalized previous', input: [assistant([text(`${B}\nx\n${E}\nanswer`)], { usage: { input: 9 } }), dup()], kept: [0] },
    { name: 'a paired tool call in the previous: kept', input: [assistant([text('answer'), toolCall('c1')], { usage: { input: 9 } }), assistant([text('answer'), toolCall('c1')], { usage: {} })], kept: [0, 1] },
    { name: 'a paired toolUse in the next: kept', input: [first, assistant([text('answer'), { type: 'toolUse', id: 'u' }], { usage: {} })], kept: [0, 1] },
    { name: 'tool calls without an id are not paired: dropped', input: [assistant([text('answer'), { type: 'toolCall', name: 'r' }], { usage: { input: 9 } }), assistant([text('answer'), { type: 'toolCall', name: 'r' }], { usage: {} })], kept: [0] },
    { name: 'a previous with empty content: kept', input: [assistant([], { stopReason: 'aborted' }), assistant([], { usage: {}, stopReason: 'stop', providerReplay: { x: 1 } })], kept: [0, 1] },
    { name: 'a string previous counts once converted: dropped', input: [assistant('answer'), dup()], kept: [0] },
    { name: 'a string next is never a duplicate', input: [first, assistant('answer', { usage: {} })], kept: [0, 1] },
    { name: 'a wrapped object next is checked: dropped', input: [first, assistant({ type: 'text', text: 'answer' } as never, { usage: {} })], kept: [0] },
    { name: 'the first message has nothing before it', input: [dup()], kept: [0] },
    { name: 'a blank user in between is not emitted by pass A (see the chain test below): at this rule alone, kept', input: [first, user('  '), dup()], kept: [0, 1, 2] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { output, input, counts } = run(c.input);
      assert.equal(output.length, c.kept.length);
      c.kept.forEach((index, i) => {
        const message = input[index]!;
        if (typeof message.content === 'string' || !Array.isArray(message.content) || output[i] !== message) {
          assert.equal(output[i]!.role, message.role);
        } else assert.equal(output[i], message);
      });
      const duplicates = c.input.length - c.kept.length - (counts.droppedSilentTurns ?? 0) - (counts.droppedTranscriptOnly ?? 0);
      assert.equal(counts.droppedMirrorDuplicates ?? 0, duplicates);
    });
  }

  test('after drop-blank-user-text, a blank user in between is gone: the duplicate is dropped', () => {
    const out = runPassAThenB([first, user('  '), dup()], { provider: 'x', modelApi: 'unknown-api', modelId: 'y' });
    assert.deepEqual(out, [first]);
  });

  test('isBareDeliveryMirrorDuplicate directly', () => {
    assert.equal(isBareDeliveryMirrorDuplicate(undefined, dup()), false);
    assert.equal(isBareDeliveryMirrorDuplicate(user('answer'), dup()), false);
    assert.equal(isBareDeliveryMirrorDuplicate(first, dup()), true);
    assert.equal(isBareDeliveryMirrorDuplicate(first, dup({ usage: null })), false);
  });
});

// ---------------------------------------------------------------------------------------------
// Predicates

describe('predicates (spec thinking.md §3)', () => {
  test('isStreamErrorFallbackContent', () => {
    const yes: unknown[] = [null, undefined, '', '  ', FALLBACK, ` ${FALLBACK}\n`, [], [text(' ')], [text(FALLBACK), { type: 'input_text', text: '' }, { type: 'output_text', text: FALLBACK }], [{ type: 'text', text: FALLBACK, x: 1 }]];
    const no: unknown[] = ['x', `${FALLBACK}.`, [text('x')], [{ type: 'text' }], [{ type: 'text', text: 5 }], [thinking('t')], [null], ['  '], [image()], {}, { type: 'text', text: '' }, 0, false];
    for (const v of yes) assert.equal(isStreamErrorFallbackContent(v), true, JSON.stringify(v));
    for (const v of no) assert.equal(isStreamErrorFallbackContent(v), false, JSON.stringify(v));
  });

  test('hasZeroTokenUsageSnapshot', () => {
    const yes: unknown[] = [{ input: 0, output: 0, totalTokens: 0 }, { total: 0 }, { total_tokens: 0, input: '5' }, { totalTokens: null, total_tokens: 0 }, { input: 0 }, { input: 0, totalTokens: '0' }, { cacheRead: 0, cacheWrite: 0 }];
    const no: unknown[] = [null, undefined, 'x', 0, {}, [], { foo: 1 }, { input: 0, output: 5, totalTokens: 0 }, { total: 3 }, { input: 1 }, { input: 0, output: 2 }, { total: 0, cacheWrite: 1 }];
    for (const v of yes) assert.equal(hasZeroTokenUsageSnapshot(v), true, JSON.stringify(v));
    for (const v of no) assert.equal(hasZeroTokenUsageSnapshot(v), false, JSON.stringify(v));
  });

  test('hasOnlyAssistantReasoningContent and isReasoningOnlyLengthAssistantTurn', () => {
    assert.equal(hasOnlyAssistantReasoningContent(assistant([thinking('t'), text(' ')])), true);
    assert.equal(hasOnlyAssistantReasoningContent(assistant([{ type: 'redacted_thinking' }])), true);
    assert.equal(hasOnlyAssistantReasoningContent(assistant(thinking('t') as never)), true, 'an object counts as one block');
    assert.equal(hasOnlyAssistantReasoningContent(assistant([text(' ')])), false, 'no reasoning');
    assert.equal(hasOnlyAssistantReasoningContent(assistant([])), false);
    assert.equal(hasOnlyAssistantReasoningContent(assistant('t')), false);
    assert.equal(hasOnlyAssistantReasoningContent(assistant([thinking('t'), { type: 'text', text: 5 }])), false);
    assert.equal(hasOnlyAssistantReasoningContent(user([thinking('t')] as never)), false);
    assert.equal(isReasoningOnlyLengthAssistantTurn(assistant([thinking('t')], { stopReason: 'length' })), true);
    assert.equal(isReasoningOnlyLengthAssistantTurn(assistant([thinking('t')], { stopReason: 'stop' })), false);
  });

  test('isTranscriptOnlyOpenClawAssistant', () => {
    assert.equal(isTranscriptOnlyOpenClawAssistant(assistant([], { provider: 'openclaw', model: 'gateway-injected' })), true);
    assert.equal(isTranscriptOnlyOpenClawAssistant(assistant([], { provider: 'OpenClaw', model: 'gateway-injected' })), false);
    assert.equal(isTranscriptOnlyOpenClawAssistant(assistant([], { openclawDeliveryMirror: null })), false);
  });

  // Pinned on the reference: each field reads its first present alias (null and undefined skipped),
  // counts are truncated and floored at 0, non-numbers count 0.
  const usageCases: Array<[unknown, boolean]> = [
    [{}, false],
    [[], false],
    [{ input: 5 }, true], [{ inputTokens: 5 }, true], [{ input_tokens: 5 }, true], [{ promptTokens: 5 }, true], [{ prompt_tokens: 5 }, true],
    [{ output: 5 }, true], [{ outputTokens: 5 }, true], [{ output_tokens: 5 }, true], [{ completionTokens: 5 }, true], [{ completion_tokens: 5 }, true],
    [{ cacheRead: 5 }, true], [{ cache_read_input_tokens: 5 }, true], [{ cached_tokens: 5 }, true], [{ cached_input_tokens: 5 }, true],
    [{ prompt_tokens_details: { cached_tokens: 5 } }, true], [{ input_tokens_details: { cached_tokens: 5 } }, true],
    [{ cacheWrite: 5 }, true], [{ cache_creation_input_tokens: 5 }, true], [{ cache_write_input_tokens: 5 }, true],
    [{ total: 5 }, true], [{ totalTokens: 5 }, true], [{ total_tokens: 5 }, true],
    [{ reasoningTokens: 5 }, true], [{ reasoning_tokens: 5 }, true],
    [{ completion_tokens_details: { reasoning_tokens: 5 } }, true], [{ output_tokens_details: { reasoning_tokens: 5 } }, true],
    // not aliases
    [{ prompt: 5 }, false], [{ completion: 5 }, false], [{ cacheReadTokens: 5 }, false], [{ cachedTokens: 5 }, false], [{ cacheCreationInputTokens: 5 }, false],
    [{ reasoning: 5 }, false], [{ promptTokenCount: 5 }, false], [{ prompt_cache_hit_tokens: 5 }, false], [{ cost: { total: 5 } }, false],
    // the first present alias wins
    [{ input: 0, prompt_tokens: 5 }, false], [{ input: null, prompt_tokens: 5 }, true], [{ input: 'x', prompt_tokens: 5 }, false],
    [{ prompt_tokens: 0, input: 5 }, true], [{ inputTokens: 0, input_tokens: 5 }, false], [{ promptTokens: 0, prompt_tokens: 5 }, false],
    [{ output: 0, completion_tokens: 5 }, false], [{ cacheRead: 0, cached_tokens: 5 }, false], [{ cached_input_tokens: 0, cached_tokens: 5 }, false],
    [{ cached_tokens: 0, cached_input_tokens: 5 }, true], [{ input_tokens_details: { cached_tokens: 0 }, prompt_tokens_details: { cached_tokens: 5 } }, false],
    [{ cache_creation_input_tokens: 0, cache_write_input_tokens: 5 }, false], [{ total: 0, totalTokens: 5 }, false],
    [{ completion_tokens_details: { reasoning_tokens: 0 }, output_tokens_details: { reasoning_tokens: 5 } }, false],
    [{ output_tokens_details: { reasoning_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 5 } }, true],
    // numbers
    [{ input: 0.6 }, false], [{ input: 1.4 }, true], [{ input: -5 }, false], [{ input: '5' }, false], [{ input: true }, false], [{ totalTokens: -3 }, false],
    // context usage
    [{ contextUsage: { state: 'unavailable' } }, true],
    [{ contextUsage: { state: 'available', promptTokens: 2, totalTokens: 3 } }, true],
    [{ contextUsage: { state: 'available', promptTokens: 0, totalTokens: 5 } }, true],
    [{ contextUsage: { state: 'available', promptTokens: -1, totalTokens: 5 } }, true],
    [{ contextUsage: { state: 'available', promptTokens: 0, totalTokens: 0 } }, false],
    [{ contextUsage: { state: 'available', promptTokens: 3, totalTokens: 2 } }, false],
    [{ contextUsage: { state: 'available', promptTokens: 5 } }, false],
    [{ contextUsage: { state: 'available', promptTokens: '5', totalTokens: 5 } }, false],
    [{ contextUsage: { state: 'available', promptTokens: 0.5, totalTokens: 0.5 } }, false],
    [{ contextUsage: { promptTokens: 5, totalTokens: 5 } }, false],
    [{ contextUsage: { state: 'unknown', promptTokens: 5, totalTokens: 5 } }, false],
  ];
  test('hasNonzeroUsage', () => {
    for (const [usage, expected] of usageCases) assert.equal(hasNonzeroUsage(usage), expected, JSON.stringify(usage));
    assert.equal(hasNonzeroUsage(null), false);
    assert.equal(hasNonzeroUsage('5'), false);
  });
});

// ---------------------------------------------------------------------------------------------
// §4.3 compaction replay owner content

describe('§4.3 replaceCompactionReplayOwnerContent', () => {
  const a = text('a');
  const img = image();
  const c = text('c');
  const owner = (replay: unknown, content: unknown = [a, img, c]) => deepFreeze(assistant(content as ContentBlock[], { providerReplay: replay }));
  const cases: Array<{ name: string; message: Message; content: ContentBlock[]; replay: unknown }> = [
    { name: 'anthropic: reindexed to the kept blocks before the index', message: owner({ type: 'anthropic-compaction', replayIndex: 2, summary: 'S' }), content: [a, c], replay: { type: 'anthropic-compaction', replayIndex: 1, summary: 'S' } },
    { name: 'openai-responses: reindexed too', message: owner({ type: 'openai-responses-compaction', replayIndex: 3 }), content: [a, c], replay: { type: 'openai-responses-compaction', replayIndex: 2 } },
    { name: 'an unchanged index is not written', message: owner({ type: 'anthropic-compaction', replayIndex: 1 }), content: [a, c], replay: { type: 'anthropic-compaction', replayIndex: 1 } },
    { name: 'no index means 0 and stays absent', message: owner({ type: 'anthropic-compaction' }), content: [a], replay: { type: 'anthropic-compaction' } },
    { name: 'a string index is compared as a number and rewritten', message: owner({ type: 'anthropic-compaction', replayIndex: '3' }), content: [a, c], replay: { type: 'anthropic-compaction', replayIndex: 2 } },
    { name: 'an index past the end removes the checkpoint', message: owner({ type: 'openai-responses-compaction', replayIndex: 9 }), content: [a], replay: undefined },
    { name: 'an index at the end is fine', message: owner({ type: 'anthropic-compaction', replayIndex: 3 }), content: [a], replay: { type: 'anthropic-compaction', replayIndex: 1 } },
    { name: 'emptied content removes the checkpoint', message: owner({ type: 'anthropic-compaction', replayIndex: 0 }), content: [], replay: undefined },
    { name: 'a new block removes the checkpoint', message: owner({ type: 'anthropic-compaction', replayIndex: 1 }), content: [a, text('c')], replay: undefined },
    { name: 'blocks out of order remove the checkpoint', message: owner({ type: 'anthropic-compaction', replayIndex: 1 }), content: [c, a], replay: undefined },
    { name: 'a repeated block removes the checkpoint', message: owner({ type: 'anthropic-compaction', replayIndex: 1 }), content: [a, a], replay: undefined },
    { name: 'old string content removes the checkpoint', message: owner({ type: 'anthropic-compaction', replayIndex: 0 }, 'plain'), content: [text('plain')], replay: undefined },
    { name: 'a retained compaction is untouched', message: owner({ type: 'openai-responses-retained-compaction', replayIndex: 9 }), content: [text('new')], replay: { type: 'openai-responses-retained-compaction', replayIndex: 9 } },
    { name: 'another type is untouched', message: owner({ type: 'other', replayIndex: 9 }), content: [], replay: { type: 'other', replayIndex: 9 } },
    { name: 'a non-object value is untouched', message: owner('str'), content: [], replay: 'str' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const out = replaceCompactionReplayOwnerContent(c.message, c.content);
      assert.notEqual(out, c.message);
      assert.equal(out.content, c.content);
      if (c.replay === undefined) assert.equal('providerReplay' in out, false);
      else assert.deepEqual(out.providerReplay, c.replay);
    });
  }
  test('an unchanged checkpoint is the same object', () => {
    const message = owner({ type: 'anthropic-compaction', replayIndex: 1 });
    assert.equal(replaceCompactionReplayOwnerContent(message, [a, c]).providerReplay, message.providerReplay);
  });
});

// ---------------------------------------------------------------------------------------------
// The rule as a stream stage

describe('rule', () => {
  test('meta', () => {
    assert.equal(rule.unit, 'buffered');
    assert.equal(rule.meta.name, 'normalize-assistant-replay-content');
    assert.deepEqual(rule.meta.counters, [
      'droppedTranscriptOnly', 'droppedFailedTurns', 'repairedFailedTurns', 'droppedSilentTurns', 'droppedEmptiedTurns',
      'droppedReasoningOnlyLengthTurns', 'droppedMirrorDuplicates', 'removedBlocks', 'strippedTexts', 'wrappedContent',
    ]);
  });

  test('nothing is held back: every message is emitted (or dropped) as it arrives', () => {
    const { emittedAfter } = run([
      user('q'),
      assistant([text('answer')], { usage: { input: 1 } }),
      assistant([text('answer')], { usage: {} }),
      assistant([text('NO_REPLY')]),
      toolResult('c', 'r'),
      assistant('hi'),
    ]);
    assert.deepEqual(emittedAfter, [1, 2, 2, 2, 3, 4, 4]);
  });

  test('untouched messages are emitted as the same objects, in order', () => {
    const { output, input } = run([user('q'), assistant([text('a')]), toolResult('c', [text('r')]), assistant([thinking('t'), toolCall('c2')], { stopReason: 'toolUse' })]);
    assert.equal(output.length, input.length);
    input.forEach((m, i) => assert.equal(output[i], m));
  });

  test('the Bedrock repair follows the policy flag only', () => {
    assert.deepEqual(run([assistant([], { stopReason: 'error' })]).output, []);
    assert.equal(run([assistant([], { stopReason: 'error' })], BEDROCK).output.length, 1);
  });

  test('every counter in one stream', () => {
    const { counts } = run(
      [
        assistant([text('m')], { provider: 'openclaw', model: 'delivery-mirror' }),
        assistant([], { stopReason: 'error' }),
        assistant([text(' ')], { stopReason: 'error' }),
        assistant('NO_REPLY'),
        assistant([image()]),
        assistant([thinking('t')], { stopReason: 'length' }),
        assistant(`${B}\nx\n${E}\nvisible`, { usage: { input: 1 } }),
        assistant([text('visible')], { usage: {} }),
        assistant([text('a'), image(), { type: 'audio' }, text(`b\n${B}\nx\n${E}`)]),
      ],
      BEDROCK,
    );
    assert.deepEqual(counts, {
      droppedTranscriptOnly: 1,
      repairedFailedTurns: 1,
      droppedFailedTurns: 1,
      droppedSilentTurns: 1,
      droppedEmptiedTurns: 1,
      droppedReasoningOnlyLengthTurns: 1,
      wrappedContent: 1,
      strippedTexts: 2,
      droppedMirrorDuplicates: 1,
      removedBlocks: 2,
    });
  });

  test('normalizeAssistantReplayMessage: non-assistants and untouched assistants come back as they are', () => {
    const u = deepFreeze(user('NO_REPLY'));
    assert.equal(normalizeAssistantReplayMessage(u).message, u);
    const a = deepFreeze(assistant([text('x')]));
    assert.equal(normalizeAssistantReplayMessage(a).message, a);
    assert.equal(normalizeAssistantReplayMessage(deepFreeze(assistant([], { stopReason: 'error' })), { repairBedrockEmptyErrorTurns: true }).repaired, true);
  });
});
