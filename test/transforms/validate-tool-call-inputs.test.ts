import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validateToolCallInputs, validateToolCallInputsRule, type ValidateToolCallInputsOptions } from '../../transforms/validate-tool-call-inputs.ts';
import type { ContentBlock, Message } from '../../lib/types.ts';
import type { HygieneOptions } from '../../lib/options.ts';
import type { TranscriptPolicy } from '../../lib/policy.ts';
import { readJsonlMessages } from '../../lib/jsonl.ts';
import { scanResultIds } from '../../lib/result-index.ts';
import { hashSeed, mulberry32 } from '../differential/random.ts';
import { assistant, deepFreeze, fakeContext, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const SYNTHETIC_TEXT = '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.';

// ---------------------------------------------------------------------------------------------
// Harness

/** Rule settings that switch the thinking path on (§1.1) for the rule. */
const THINKING_ROUTE = {
  policy: { validateAnthropicTurns: true, preserveSignatures: true } as Partial<TranscriptPolicy>,
  options: { modelApi: 'anthropic-messages' } as HygieneOptions,
};

function ruleInit(options: ValidateToolCallInputsOptions, extra: HygieneOptions = {}) {
  const base = options.allowProviderOwnedThinkingReplay ? THINKING_ROUTE : { policy: {}, options: {} };
  return {
    policy: base.policy,
    options: { ...base.options, ...extra, ...(options.allowedToolNames ? { allowedToolNames: options.allowedToolNames } : {}) },
  };
}

/**
 * Expected output: a number stands for "the input message at this index, as the same object";
 * anything else is compared structurally.
 */
type Expected = (number | Message)[];

/** Runs the pure function and the rule (default budget, and a 1 KiB budget that spills) and checks both. */
function check(input: Message[], options: ValidateToolCallInputsOptions, expected: Expected, counts?: Record<string, number>): void {
  deepFreeze(input);
  const want = expected.map((item) => (typeof item === 'number' ? input[item]! : item));
  const pure = validateToolCallInputs(input, options);
  assert.deepEqual(pure, want, 'pure function');
  const streamed = runRule(validateToolCallInputsRule, input, ruleInit(options));
  assert.deepEqual(streamed.output, want, 'rule');
  expected.forEach((item, i) => {
    if (typeof item !== 'number') return;
    assert.equal(pure[i], input[item], `pure: output ${i} is input ${item} itself`);
    assert.equal(streamed.output[i], input[item], `rule: output ${i} is input ${item} itself`);
  });
  if (counts !== undefined) assert.deepEqual(streamed.counts, counts, 'counters');
  const spilled = runRule(validateToolCallInputsRule, input, ruleInit(options, { memoryBudgetBytes: 1024 }));
  assert.deepEqual(spilled.output, want, 'rule, 1 KiB budget');
}

interface Case {
  name: string;
  input: Message[];
  options?: ValidateToolCallInputsOptions;
  expected: Expected;
  counts?: Record<string, number>;
}

function runCases(cases: readonly Case[]): void {
  for (const c of cases) test(c.name, () => check(structuredClone(c.input), c.options ?? {}, c.expected, c.counts));
}

// Builders in the spec's shapes.
const call = (id: string | undefined, name: unknown = 'read', extra: Record<string, unknown> = {}): ContentBlock => {
  const block: Record<string, unknown> = { type: 'toolCall' };
  if (id !== undefined) block.id = id;
  block.name = name;
  block.arguments = { p: 1 };
  return { ...block, ...extra } as ContentBlock;
};
const A = (content: ContentBlock[], extra: Record<string, unknown> = {}): Message => assistant(content, { stopReason: 'toolUse', ...extra });
const R = (id: string | undefined, extra: Record<string, unknown> = {}): Message => {
  const result = toolResult(id ?? '', [text('ok')], { isError: false, ...extra }) as Record<string, unknown>;
  if (id === undefined) delete result.toolCallId;
  return result as Message;
};
const SIG = thinking('t', 'sig');
const U = (value = 'u'): Message => user(value);
const say = (value = 'x'): Message => assistant([text(value)]);
const spawn = (id: string, extra: Record<string, unknown> = {}): ContentBlock => call(id, 'sessions_spawn', { input: { attachments: [{ name: 'f' }] }, ...extra });
const synthetic = (id: string): Message =>
  R(id, { isError: true, content: [text(SYNTHETIC_TEXT)], details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' } });

const THINK: ValidateToolCallInputsOptions = { allowProviderOwnedThinkingReplay: true };
const ALLOW_READ: ValidateToolCallInputsOptions = { allowedToolNames: ['read'] };

// ---------------------------------------------------------------------------------------------
// Worked examples (spec §13), verbatim

describe('worked examples', () => {
  const examples: { name: string; options: ValidateToolCallInputsOptions; input: string; output: string }[] = [
    {
      name: 'Ex 1 malformed calls dropped; assistant emptied by the drop disappears',
      options: {},
      input: '[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read"},{"type":"toolCall","id":"c2","name":"read","arguments":null},{"type":"toolUse","id":"c3","name":"read","input":""}],"stopReason":"toolUse"},{"role":"assistant","content":[{"type":"toolCall","id":"c4","name":"read"}],"stopReason":"toolUse"},{"role":"user","content":"r"}]',
      output: '[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolUse","id":"c3","name":"read","input":""}],"stopReason":"toolUse"},{"role":"user","content":"r"}]',
    },
    {
      name: 'Ex 2 name rules: trim, syntax, 64-char limit, missing id',
      options: {},
      input: '[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":" read ","arguments":{"p":1}},{"type":"toolCall","id":"b","name":"bad/slash","arguments":{"p":1}},{"type":"toolCall","id":"c","name":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","arguments":{"p":1}},{"type":"toolCall","id":"d","name":"ns:tool.v-1_x","arguments":{"p":1}},{"type":"toolCall","name":"read","arguments":{}},{"type":"toolCall","id":"","toolCallId":"alt","name":"read","arguments":{}}],"stopReason":"toolUse"}]',
      output: '[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"d","name":"ns:tool.v-1_x","arguments":{"p":1}},{"type":"toolCall","id":"","toolCallId":"alt","name":"read","arguments":{}}],"stopReason":"toolUse"}]',
    },
    {
      name: 'Ex 3 allowedToolNames (case-insensitive); completed call survives, unanswered one dropped',
      options: { allowedToolNames: ['READ'] },
      input: '[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"exec","arguments":{"p":1}},{"type":"toolCall","id":"b","name":"exec","arguments":{"p":1}},{"type":"toolCall","id":"c","name":"Read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"a","toolName":"exec","content":[{"type":"text","text":"done"}],"isError":false}]',
      output: '[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"exec","arguments":{"p":1}},{"type":"toolCall","id":"c","name":"Read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"a","toolName":"exec","content":[{"type":"text","text":"done"}],"isError":false}]',
    },
    {
      name: 'Ex 4 partialJson: finalized Responses call kept (partialJson removed); others dropped',
      options: {},
      input: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1},"partialJson":"{\\"p\\":1}"},{"type":"toolCall","id":"call_2|fc_2","name":"read","arguments":{"p":1},"partialJson":"{\\"p\\":"},{"type":"toolCall","id":"call_3","name":"read","arguments":{"p":1},"partialJson":"{\\"p\\":1}"},{"type":"toolCall","id":"call_4|fc_4","name":"read","arguments":{},"partialJson":""}],"stopReason":"toolUse"}]',
      output: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_4|fc_4","name":"read","arguments":{}}],"stopReason":"toolUse"}]',
    },
    {
      name: 'Ex 5 thinking-replay exception: one bad call drops the whole signed turn',
      options: { allowProviderOwnedThinkingReplay: true },
      input: '[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"toolCall","id":"a","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"b","name":" read ","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"a","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"b","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"toolCall","id":"c","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
      output: '[{"role":"user","content":"q"},{"role":"toolResult","toolCallId":"a","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"b","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"toolCall","id":"c","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    },
  ];
  for (const example of examples) {
    test(example.name, () => {
      const input = JSON.parse(example.input) as Message[];
      const output = JSON.parse(example.output) as Message[];
      // Untouched messages come out as the same objects.
      const expected: Expected = output.map((message) => {
        const same = input.findIndex((candidate) => JSON.stringify(candidate) === JSON.stringify(message));
        return same >= 0 ? same : message;
      });
      check(input, example.options, expected);
    });
  }

  test('Ex 2 with the thinking switch on: no thinking block, so the normal path still edits', () => {
    const input = JSON.parse('[{"role":"assistant","content":[{"type":"toolCall","id":"a","name":" read ","arguments":{"p":1}}],"stopReason":"toolUse"}]') as Message[];
    check(input, THINK, [A([call('a', 'read')])]);
  });
});

// ---------------------------------------------------------------------------------------------
// §3 step 4, normal path

describe('normal path: input (§3 step 4)', () => {
  const absent = { arguments: undefined };
  runCases([
    { name: 'no arguments and no input: dropped', input: [A([text('t'), call('a', 'read', absent)])], expected: [A([text('t')])] },
    { name: 'arguments null: dropped', input: [A([text('t'), call('a', 'read', { arguments: null })])], expected: [A([text('t')])] },
    { name: 'input null and arguments null: dropped', input: [A([text('t'), call('a', 'read', { arguments: null, input: null })])], expected: [A([text('t')])] },
    { name: 'arguments "" counts as input', input: [A([call('a', 'read', { arguments: '' })])], expected: [0] },
    { name: 'arguments 0 counts as input', input: [A([call('a', 'read', { arguments: 0 })])], expected: [0] },
    { name: 'arguments "{}" counts as input', input: [A([call('a', 'read', { arguments: '{}' })])], expected: [0] },
    { name: 'input {} with arguments null counts as input', input: [A([call('a', 'read', { arguments: null, input: {} })])], expected: [0] },
    { name: 'all six contract types are validated', input: [A([text('t'), ...['toolCall', 'toolUse', 'functionCall', 'tool_call', 'tool_use', 'function_call'].map((type) => ({ type, id: 'a', name: 'read' }))])], expected: [A([text('t')])], counts: { droppedToolCalls: 6 } },
    { name: 'other block types are kept as they are', input: [A([{ type: 'tool', id: 'a' }, { type: 'image' }, null as unknown as ContentBlock, 'str' as unknown as ContentBlock, [1] as unknown as ContentBlock])], expected: [0] },
  ]);
});

describe('normal path: ids (§3 step 4)', () => {
  const aliases = ['call_id', 'tool_call_id', 'toolCallId', 'tool_use_id', 'toolUseId', 'id'];
  runCases([
    { name: 'no id field: dropped', input: [A([text('t'), call(undefined)])], expected: [A([text('t')])] },
    { name: 'blank id: dropped', input: [A([text('t'), call('  ')])], expected: [A([text('t')])] },
    { name: 'numeric id: dropped', input: [A([text('t'), call(undefined, 'read', { id: 7 })])], expected: [A([text('t')])] },
    ...aliases.map((field): Case => ({ name: `id only in ${field}: kept`, input: [A([call(undefined, 'read', { [field]: 'x' })])], expected: [0] })),
    { name: 'id "" with toolCallId "alt": kept', input: [A([call('', 'read', { toolCallId: 'alt' })])], expected: [0] },
    { name: 'padded id: kept untouched', input: [A([call(' a ')])], expected: [0] },
  ]);
});

describe('normal path: names (§2.3)', () => {
  runCases([
    { name: 'name missing (only toolName): dropped', input: [A([text('t'), { type: 'toolCall', id: 'a', toolName: 'read', arguments: {} }])], expected: [A([text('t')])] },
    { name: 'non-string name: dropped', input: [A([text('t'), call('a', 5)])], expected: [A([text('t')])] },
    { name: 'blank name: dropped', input: [A([text('t'), call('a', '  ')])], expected: [A([text('t')])] },
    { name: '64 characters: kept', input: [A([call('a', 'x'.repeat(64))])], expected: [0] },
    { name: '65 characters: dropped', input: [A([text('t'), call('a', 'x'.repeat(65))])], expected: [A([text('t')])] },
    { name: '64 characters after trimming: kept, trimmed', input: [A([call('a', ` ${'x'.repeat(64)} `)])], expected: [A([call('a', 'x'.repeat(64))])], counts: { trimmedNames: 1 } },
    { name: 'bad characters: dropped', input: [A([text('t'), call('a', 'bad/slash'), call('b', 'sp ace'), call('c', 'ünï')])], expected: [A([text('t')])], counts: { droppedToolCalls: 3 } },
    { name: 'all allowed characters: kept', input: [A([call('a', 'ns:tool.v-1_X')])], expected: [0] },
    { name: 'name trimmed, case kept', input: [A([call('a', '\t Read\n')])], expected: [A([call('a', 'Read')])], counts: { trimmedNames: 1 } },
  ]);
});

describe('normal path: partialJson (§3 step 4)', () => {
  const finalized = (partialJson: unknown, extra: Record<string, unknown> = {}): ContentBlock => call('call_1|fc_1', 'read', { partialJson, ...extra });
  const kept = (extra: Record<string, unknown> = {}): ContentBlock => call('call_1|fc_1', 'read', extra);
  runCases([
    { name: 'finalized call: partialJson removed', input: [A([finalized('{"p":1}')])], expected: [A([kept()])] },
    { name: 'JSON need not match arguments', input: [A([finalized('{"other":true}')])], expected: [A([kept()])] },
    { name: 'leading whitespace allowed', input: [A([finalized(' \t\r\n{"p":1}')])], expected: [A([kept()])] },
    { name: '"a|b" qualifies', input: [A([call('a|b', 'read', { partialJson: '{}' })])], expected: [A([call('a|b', 'read')])] },
    { name: 'blank partialJson with empty arguments: kept', input: [A([finalized('  ', { arguments: {} })])], expected: [A([kept({ arguments: {} })])] },
    { name: 'blank partialJson with arguments keys: dropped', input: [A([text('t'), finalized('')])], expected: [A([text('t')])] },
    { name: 'non-string partialJson is ignored and kept', input: [A([finalized(5), finalized(null)])], expected: [0] },
    { name: 'stopReason not toolUse: dropped', input: [A([text('t'), finalized('{}')], { stopReason: 'stop' })], expected: [A([text('t')], { stopReason: 'stop' })] },
    { name: 'no | in id: dropped', input: [A([text('t'), call('call_3', 'read', { partialJson: '{}' })])], expected: [A([text('t')])] },
    { name: '| first: dropped', input: [A([text('t'), call('|fc_1', 'read', { partialJson: '{}' })])], expected: [A([text('t')])] },
    { name: '| last: dropped', input: [A([text('t'), call('call_1|', 'read', { partialJson: '{}' })])], expected: [A([text('t')])] },
    { name: 'first | counts: "a||" qualifies', input: [A([call('a||', 'read', { partialJson: '{}' })])], expected: [A([call('a||', 'read')])] },
    { name: 'id only in an alias: dropped', input: [A([text('t'), call(undefined, 'read', { toolCallId: 'call_1|fc_1', partialJson: '{}' })])], expected: [A([text('t')])] },
    { name: 'input key present: dropped', input: [A([text('t'), finalized('{}', { input: {} })])], expected: [A([text('t')])] },
    { name: 'arguments an array: dropped', input: [A([text('t'), finalized('{}', { arguments: [] })])], expected: [A([text('t')])] },
    { name: 'arguments a string: dropped', input: [A([text('t'), finalized('{}', { arguments: '{}' })])], expected: [A([text('t')])] },
    { name: 'unfinished JSON: dropped', input: [A([text('t'), finalized('{"p":')])], expected: [A([text('t')])] },
    { name: 'a JSON array: dropped', input: [A([text('t'), finalized('[1]')])], expected: [A([text('t')])] },
    { name: 'trailing garbage: dropped', input: [A([text('t'), finalized('{} x')])], expected: [A([text('t')])] },
    { name: 'partialJson removed and name trimmed in one copy', input: [A([call('a|b', ' read ', { partialJson: '{}' })])], expected: [A([call('a|b', 'read')])], counts: { trimmedNames: 1 } },
  ]);
});

describe('normal path: messages (§3 steps 2 and 5)', () => {
  runCases([
    { name: 'user, result, unknown roles pass through', input: [U(), R('a'), { role: 'custom', content: [call('a', 'bad/x')] }, { content: [] }], expected: [0, 1, 2, 3] },
    { name: 'a user message holding call blocks is not touched', input: [user([call('a', 'bad/x')])], expected: [0] },
    { name: 'assistant with string content passes through', input: [assistant('text')], expected: [0] },
    { name: 'assistant emptied by the drops is removed', input: [U(), A([call('a', 'bad/x')]), U('r')], expected: [0, 2], counts: { droppedToolCalls: 1, droppedAssistantMessages: 1 } },
    { name: 'emptied assistant with providerReplay is removed too', input: [A([call('a', 'bad/x')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 0 } })], expected: [] },
    { name: 'an assistant with empty content is untouched', input: [A([])], expected: [0] },
    { name: 'other fields are kept on the copy', input: [A([text('t'), call('a', 'bad/x')], { timestamp: 5, model: 'm', provider: 'p' })], expected: [A([text('t')], { timestamp: 5, model: 'm', provider: 'p' })] },
  ]);

  test('kept blocks keep their identity in a rebuilt message', () => {
    const keep = text('t');
    const good = call('b');
    const input = deepFreeze([A([keep, call('a', 'bad/x'), good, call('c', ' read ')])]);
    const out = validateToolCallInputs(input);
    const content = out[0]!.content as ContentBlock[];
    assert.equal(content[0], keep);
    assert.equal(content[1], good);
    assert.deepEqual(content[2], call('c', 'read'));
  });

  test('frozen input: a mutation would throw', () => {
    const input = deepFreeze([A([call('a', ' read ', { partialJson: '{}' }), call('b', 'bad/x')])]);
    assert.doesNotThrow(() => validateToolCallInputs(input));
    assert.equal((input[0]!.content as ContentBlock[])[0]!.name, ' read ');
  });
});

// ---------------------------------------------------------------------------------------------
// §3.3 compaction checkpoints

describe('compaction checkpoints (§3.3)', () => {
  const bad = call('x', 'read', { arguments: null });
  const t = (value: string) => text(value);
  const replay = (extra: Record<string, unknown>) => ({ providerReplay: { type: 'anthropic-compaction', summary: 'S', ...extra } });
  runCases([
    { name: 're-indexed to the kept blocks before the old index', input: [A([t('a'), bad, t('b'), t('c')], replay({ replayIndex: 3 }))], expected: [A([t('a'), t('b'), t('c')], replay({ replayIndex: 2 }))] },
    { name: 'openai-responses-compaction re-indexed too', input: [A([bad, t('b')], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 2 } })], expected: [A([t('b')], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } })] },
    { name: 'index equal to the length is in range', input: [A([t('a'), bad, t('b'), t('c')], replay({ replayIndex: 4 }))], expected: [A([t('a'), t('b'), t('c')], replay({ replayIndex: 3 }))] },
    { name: 'index past the end: checkpoint removed', input: [A([t('a'), bad, t('b'), t('c')], replay({ replayIndex: 5 }))], expected: [A([t('a'), t('b'), t('c')])] },
    { name: 'no replayIndex (0): unchanged, not written', input: [A([t('a'), bad, t('b')], replay({}))], expected: [A([t('a'), t('b')], replay({}))] },
    { name: 'a string index compares as a number (oracle)', input: [A([t('a'), bad, t('b')], replay({ replayIndex: '2' }))], expected: [A([t('a'), t('b')], replay({ replayIndex: 1 }))] },
    { name: 'a block copied (name trimmed): checkpoint removed', input: [A([t('a'), call('x', ' read '), t('b')], replay({ replayIndex: 1 }))], expected: [A([t('a'), call('x', 'read'), t('b')])] },
    { name: 'a block copied (partialJson removed): checkpoint removed', input: [A([t('a'), call('x|y', 'read', { partialJson: '{}' })], replay({ replayIndex: 1 }))], expected: [A([t('a'), call('x|y', 'read')])] },
    { name: 'retained compaction is kept as it is', input: [A([t('a'), call('x', ' read ')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } })], expected: [A([t('a'), call('x', 'read')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } })] },
    { name: 'other providerReplay values are kept', input: [A([t('a'), bad], { providerReplay: { id: 'rs_1' } })], expected: [A([t('a')], { providerReplay: { id: 'rs_1' } })] },
    { name: 'unchanged message keeps its checkpoint as it is', input: [A([t('a')], replay({ replayIndex: 9 }))], expected: [0] },
  ]);

  test('an unchanged index keeps the same providerReplay object', () => {
    const input = deepFreeze([A([text('a'), text('b'), call('x', 'bad/x')], replay({ replayIndex: 1 }))]);
    const out = validateToolCallInputs(input);
    assert.equal(out[0]!.providerReplay, input[0]!.providerReplay);
  });
});

// ---------------------------------------------------------------------------------------------
// §2.3 allowlist and §2.4 completed calls

describe('allowlist (§2.3) and completed calls (§2.4)', () => {
  const exec = (id: string, extra: Record<string, unknown> = {}) => call(id, 'exec', extra);
  test('non-string entries are ignored (array function; the options resolver rejects them)', () => {
    const input = deepFreeze([A([text('t'), exec('a'), call('b')])]);
    assert.deepEqual(validateToolCallInputs(input, { allowedToolNames: [5, null, 'read'] as unknown as string[] }), [A([text('t'), call('b')])]);
  });

  runCases([
    { name: 'allowed names are case-insensitive and trimmed', input: [A([call('a', ' READ '), call('b', 'Read')])], options: { allowedToolNames: ['  rEaD '] }, expected: [A([call('a', 'READ'), call('b', 'Read')])] },
    { name: 'an allowlist of blank entries is no allowlist', input: [A([exec('a')])], options: { allowedToolNames: ['', '  '] }, expected: [0] },
    { name: 'an empty allowlist is no allowlist', input: [A([exec('a')])], options: { allowedToolNames: [] }, expected: [0] },
    { name: 'disallowed call without a result: dropped', input: [U(), A([text('t'), exec('a')]), U()], options: ALLOW_READ, expected: [0, A([text('t')]), 2], counts: { droppedToolCalls: 1 } },
    { name: 'completed by a real result in its frame: kept', input: [A([exec('a')]), U(), R('a')], options: ALLOW_READ, expected: [0, 1, 2] },
    { name: 'padded result id still completes it (result ids are trimmed)', input: [A([exec('a')]), R(' a ')], options: ALLOW_READ, expected: [0, 1] },
    { name: 'result only in an alias field completes it', input: [A([exec('a')]), R(undefined, { call_id: 'a' })], options: ALLOW_READ, expected: [0, 1] },
    { name: 'a padded call id is not answered by a padded result (call ids are not trimmed)', input: [A([text('t'), exec(' a')]), R(' a')], options: ALLOW_READ, expected: [A([text('t')]), 1] },
    { name: 'synthetic result (details marker): not completed', input: [A([text('t'), exec('a')]), synthetic('a')], options: ALLOW_READ, expected: [A([text('t')]), 1] },
    { name: 'synthetic by text alone (isError, default text): not completed', input: [A([text('t'), exec('a')]), R('a', { isError: true, content: [text(SYNTHETIC_TEXT)] })], options: ALLOW_READ, expected: [A([text('t')]), 1] },
    { name: 'the default text without isError is a real result', input: [A([exec('a')]), R('a', { content: [text(SYNTHETIC_TEXT)] })], options: ALLOW_READ, expected: [0, 1] },
    { name: 'a later real duplicate replaces a synthetic: completed', input: [A([exec('a')]), synthetic('a'), R('a')], options: ALLOW_READ, expected: [0, 1, 2] },
    { name: 'an error result is a real result', input: [A([exec('a')]), R('a', { isError: true, content: [text('boom')] })], options: ALLOW_READ, expected: [0, 1] },
    { name: 'result before the call: not completed', input: [R('a'), A([text('t'), exec('a')])], options: ALLOW_READ, expected: [0, A([text('t')])] },
    { name: 'result with an unframed id before any frame does not count', input: [R('a'), U(), A([text('t'), exec('a')]), U()], options: ALLOW_READ, expected: [0, 1, A([text('t')]), 3] },
    {
      name: 'displaced result in a later frame (one unresolved owner): completed',
      input: [A([exec('a')]), U(), A([call('b')]), R('b'), U(), A([call('c')]), R('a'), R('c')],
      options: ALLOW_READ,
      expected: [0, 1, 2, 3, 4, 5, 6, 7],
    },
    {
      name: 'displaced result with two unresolved owners is ambiguous: neither completed',
      input: [A([text('t'), exec('a')]), U(), A([text('t'), exec('a')]), U(), A([call('c')]), R('a')],
      options: ALLOW_READ,
      expected: [A([text('t')]), 1, A([text('t')]), 3, 4, 5],
    },
    {
      name: 'same id in two frames: each occurrence is judged on its own',
      input: [A([exec('a')]), R('a'), A([text('t'), exec('a')]), U()],
      options: ALLOW_READ,
      expected: [0, 1, A([text('t')]), 3],
    },
    {
      name: 'repeated id in one assistant: the first result goes to the first occurrence',
      input: [A([exec('a'), exec('a', { name: 'run' })]), R('a')],
      options: ALLOW_READ,
      expected: [A([exec('a')]), 1],
    },
    {
      name: 'legacy result without id adopts the single call: completed',
      input: [A([exec('a')]), R(undefined, { toolName: 'exec' })],
      options: ALLOW_READ,
      expected: [0, 1],
    },
    {
      name: 'legacy result with another tool name: not completed',
      input: [A([text('t'), exec('a')]), R(undefined, { toolName: 'other' })],
      options: ALLOW_READ,
      expected: [A([text('t')]), 1],
    },
    {
      name: 'legacy result with two paired calls: not completed',
      input: [A([text('t'), exec('a'), call('b')]), R(undefined, { toolName: ' ' })],
      options: ALLOW_READ,
      expected: [A([text('t'), call('b')]), 1],
    },
    {
      name: 'a non-paired call (tool_use, or an id only in an alias) is never completed',
      input: [A([text('t'), { type: 'tool_use', id: 'a', name: 'exec', input: {} }, exec('', { toolCallId: 'b' })]), R('a'), R('b')],
      options: ALLOW_READ,
      expected: [A([text('t')]), 1, 2],
    },
    {
      // The reference drops them (a malformed name earns no exemption); ours keeps what a tool answered.
      name: 'a malformed name answered by a real result is kept (ours, issue 20)',
      input: [A([text('t'), call('a', 'bad/x'), call('b', 'x'.repeat(65))]), R('a'), R('b')],
      options: ALLOW_READ,
      expected: [0, 1, 2],
    },
    {
      name: 'a completed call with a padded name is kept and trimmed',
      input: [A([call('a', ' exec ')]), R('a')],
      options: ALLOW_READ,
      expected: [A([call('a', 'exec')]), 1],
      counts: { trimmedNames: 1 },
    },
    {
      name: 'a completed call is still dropped for missing input',
      input: [A([text('t'), exec('a', { arguments: null })]), R('a')],
      options: ALLOW_READ,
      expected: [A([text('t')]), 1],
    },
    {
      name: 'completion counts calls that this rule itself drops (classification of the original input)',
      input: [A([text('t'), call('a', 'read', { arguments: null })]), A([exec('a')]), R('a')],
      options: ALLOW_READ,
      expected: [A([text('t')]), 1, 2],
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// §3.2 thinking path

describe('thinking path (§3.2): whole turn kept or dropped', () => {
  runCases([
    { name: 'good signed turn: the same object', input: [U(), A([SIG, text('x'), call('a'), call('b')]), R('a'), R('b')], options: THINK, expected: [0, 1, 2, 3] },
    { name: 'redacted_thinking takes the path', input: [A([{ type: 'redacted_thinking', data: 'd' }, call('a', ' read ')]), R('a')], options: THINK, expected: [1], counts: { droppedThinkingTurns: 1 } },
    { name: 'redactedThinking does not (oracle): normal path trims', input: [A([{ type: 'redactedThinking', data: 'd' }, call('a', ' read ')]), R('a')], options: THINK, expected: [A([{ type: 'redactedThinking', data: 'd' }, call('a', 'read')]), 1] },
    { name: 'switch off: a thinking turn is edited like any other', input: [A([SIG, call('a', ' read '), call('b', 'bad/x')])], expected: [A([SIG, call('a', 'read')])] },
    { name: 'thinking without calls: untouched', input: [A([SIG, text('x')])], options: THINK, expected: [0] },
    { name: 'missing input drops the turn', input: [U(), A([SIG, call('a'), call('b', 'read', { arguments: null })]), R('a')], options: THINK, expected: [0, 2], counts: { droppedThinkingTurns: 1 } },
    { name: 'any string partialJson drops it, even a finalized one', input: [A([SIG, call('a|b', 'read', { partialJson: '{}' })])], options: THINK, expected: [] },
    { name: 'non-string partialJson is fine', input: [A([SIG, call('a', 'read', { partialJson: 5 })])], options: THINK, expected: [0] },
    { name: 'only `id` counts as the id (oracle: an alias does not)', input: [A([SIG, call('', 'read', { toolCallId: 'x' })])], options: THINK, expected: [] },
    { name: 'blank id drops it', input: [A([SIG, call('  ')])], options: THINK, expected: [] },
    { name: 'numeric id drops it', input: [A([SIG, call(undefined, 'read', { id: 7 })])], options: THINK, expected: [] },
    { name: 'duplicate ids drop it', input: [A([SIG, call('a'), call('a')])], options: THINK, expected: [] },
    { name: 'ids equal after trimming drop it', input: [A([SIG, call('a'), call(' a ')])], options: THINK, expected: [] },
    { name: 'uniqueness covers tool_use blocks too', input: [A([SIG, call('a'), { type: 'tool_use', id: 'a', name: 'read', input: {} }])], options: THINK, expected: [] },
    { name: 'a padded but unique id is fine', input: [A([SIG, call('a'), call(' b')])], options: THINK, expected: [0] },
    { name: 'an invalid name drops it', input: [A([SIG, call('a', 'bad/x')])], options: THINK, expected: [] },
    { name: 'a name needing trimming drops it', input: [A([SIG, call('a', 'read ')])], options: THINK, expected: [] },
    { name: 'a tool_use call with input is fine', input: [A([SIG, call('a'), { type: 'tool_use', id: 'x', name: 'read', input: {} }]), R('a')], options: THINK, expected: [0, 1] },
    { name: 'only tool_use calls (no paired call) are fine', input: [A([SIG, { type: 'tool_use', id: 'x', name: 'read', input: {} }])], options: THINK, expected: [0] },
    { name: 'input 0 with arguments null is input', input: [A([SIG, call('a', 'read', { arguments: null, input: 0 })])], options: THINK, expected: [0] },
    { name: 'a disallowed name without a result drops it', input: [A([SIG, call('a', 'exec')]), U()], options: { ...THINK, ...ALLOW_READ }, expected: [1] },
    { name: 'a disallowed but completed call is fine', input: [A([SIG, call('a', 'exec')]), U(), R('a')], options: { ...THINK, ...ALLOW_READ }, expected: [0, 1, 2] },
    { name: 'checkpoint untouched on a kept turn', input: [A([SIG, call('a')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 5 } })], options: THINK, expected: [0] },
  ]);
});

describe('thinking path (§3.2): ids kept by earlier thinking turns', () => {
  runCases([
    { name: 'a later thinking turn reusing a kept id is dropped', input: [A([SIG, call('a')]), R('a'), U(), A([SIG, call('a')]), R('a')], options: THINK, expected: [0, 1, 2, 4] },
    { name: 'the id of a dropped thinking turn is free', input: [A([SIG, call('a'), call('b', ' x')]), R('a'), U(), A([SIG, call('a')]), R('a')], options: THINK, expected: [1, 2, 3, 4] },
    { name: 'ids compare untrimmed (" a" then "a")', input: [A([SIG, call(' a')]), U(), A([SIG, call('a')])], options: THINK, expected: [0, 1, 2] },
    { name: 'tool_use ids are not recorded', input: [A([SIG, call('a'), { type: 'tool_use', id: 'x', name: 'read', input: {} }]), U(), A([SIG, call('x')])], options: THINK, expected: [0, 1, 2] },
    { name: 'reuse in a normal turn does not matter', input: [A([SIG, call('a')]), R('a'), U(), A([call('a')]), R('a')], options: THINK, expected: [0, 1, 2, 3, 4] },
  ]);
});

describe('thinking path (§3.2): sessions_spawn attachments', () => {
  runCases([
    { name: 'every call answered: kept', input: [U(), A([SIG, spawn('a'), call('b')]), R('a'), R('b')], options: THINK, expected: [0, 1, 2, 3] },
    { name: 'a call unanswered: dropped', input: [U(), A([SIG, spawn('a'), call('b')]), R('a')], options: THINK, expected: [0, 2], counts: { droppedThinkingTurns: 1 } },
    { name: 'results after a user message still count (window ends at the next paired assistant)', input: [U(), A([SIG, spawn('a'), call('b')]), R('a'), U(), say(), R('b')], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'a result after the next paired assistant does not count', input: [U(), A([SIG, spawn('a'), call('b')]), R('a'), A([call('c')]), R('b'), R('c')], options: THINK, expected: [0, 2, 3, 4, 5] },
    { name: 'the next paired assistant ends the window even when this rule drops it', input: [U(), A([SIG, spawn('a'), call('b')]), R('a'), A([call('c', 'read', { arguments: null })]), R('b')], options: THINK, expected: [0, 2, 4] },
    { name: 'an answer in any id field counts (oracle)', input: [A([SIG, spawn('a')]), R('zzz', { toolUseId: 'a' })], options: THINK, expected: [0, 1] },
    { name: 'a padded result id counts', input: [A([SIG, spawn('a')]), R(' a ')], options: THINK, expected: [0, 1] },
    { name: 'a padded call id is never answered (oracle)', input: [A([SIG, spawn(' a')]), R(' a')], options: THINK, expected: [1] },
    { name: 'legacy id-less result with a matching name counts', input: [A([SIG, spawn('a')]), R(undefined, { toolName: ' sessions_spawn ' })], options: THINK, expected: [0, 1] },
    { name: 'legacy result with a blank id and blank name counts', input: [A([SIG, spawn('a')]), R(undefined, { toolCallId: '  ', toolName: ' ' })], options: THINK, expected: [0, 1] },
    { name: 'legacy result with another name does not', input: [A([SIG, spawn('a')]), R(undefined, { toolName: 'other' })], options: THINK, expected: [1] },
    { name: 'legacy result with two paired calls does not', input: [A([SIG, spawn('a'), call('b')]), R('b'), R(undefined, { toolName: 'sessions_spawn' })], options: THINK, expected: [1, 2] },
    { name: 'a tool_use beside it is not a paired call: legacy still applies', input: [A([SIG, spawn('a'), { type: 'tool_use', id: 'q', name: 'x', input: {} }]), R(undefined, { toolName: 'sessions_spawn' })], options: THINK, expected: [0, 1] },
    { name: 'attachments under arguments do not trigger the check', input: [A([SIG, call('a', 'sessions_spawn', { arguments: { attachments: [1] } }), call('b')]), R('a')], options: THINK, expected: [0, 1] },
    { name: 'the name is case-sensitive', input: [A([SIG, call('a', 'Sessions_Spawn', { input: { attachments: [1] } }), call('b')]), R('a')], options: THINK, expected: [0, 1] },
    { name: 'empty attachments do not trigger the check', input: [A([SIG, spawn('a', { input: { attachments: [] } }), call('b')]), R('a')], options: THINK, expected: [0, 1] },
    { name: 'a tool_use block named sessions_spawn triggers it', input: [A([SIG, { type: 'tool_use', id: 's', name: 'sessions_spawn', input: { attachments: [1] } }, call('b')]), U()], options: THINK, expected: [1] },
    { name: 'a text block named sessions_spawn does not', input: [A([SIG, { type: 'text', text: 'x', name: 'sessions_spawn', input: { attachments: [1] } }, call('b')]), U()], options: THINK, expected: [0, 1] },
    { name: 'at the end of input an unanswered call drops it', input: [A([SIG, spawn('a')])], options: THINK, expected: [] },
  ]);
});

describe('thinking path (§3.2): displaced results and ids of earlier kept assistants', () => {
  runCases([
    { name: 'displaced, id emitted by an earlier normal turn: dropped', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), U(), R('a')], options: THINK, expected: [0, 1, 2, 4, 5] },
    { name: 'not displaced: kept', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), R('a'), U()], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'displaced, but the earlier call was dropped by this rule: kept', input: [A([text('x'), call('a', 'read', { arguments: null })]), R('a'), U(), A([SIG, call('a')]), U(), R('a')], options: THINK, expected: [A([text('x')]), 1, 2, 3, 4, 5] },
    { name: 'displaced, no earlier id: kept', input: [A([call('z')]), R('z'), U(), A([SIG, call('a')]), U(), R('a')], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'an unrelated result after a user message counts as displaced', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), R('a'), U(), R('zz')], options: THINK, expected: [0, 1, 2, 4, 5, 6] },
    { name: 'a legacy id-less result counts as displaced', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), U(), R(undefined)], options: THINK, expected: [0, 1, 2, 4, 5] },
    { name: 'a legacy result with a blank id counts as displaced', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), U(), R(undefined, { toolCallId: ' ' })], options: THINK, expected: [0, 1, 2, 4, 5] },
    { name: 'an id-less result with another name does not', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), U(), R(undefined, { toolName: 'other' })], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'an assistant text turn in between counts', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), say(), R('a')], options: THINK, expected: [0, 1, 2, 4, 5] },
    { name: 'an assistant this rule removes still counts (window of the original input)', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), A([call('', 'read', { toolCallId: 'q', arguments: null })]), R('a')], options: THINK, expected: [0, 1, 2, 5] },
    { name: 'ids compare untrimmed', input: [A([call(' a')]), R(' a'), U(), A([SIG, call('a')]), U(), R('a')], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'earlier tool_use ids do not count', input: [A([{ type: 'tool_use', id: 'a', name: 'read', input: {} }]), U(), A([SIG, call('a')]), U(), R('a')], options: THINK, expected: [0, 1, 2, 3, 4] },
    { name: 'this turn\'s tool_use ids do not count', input: [A([call('a')]), R('a'), U(), A([SIG, call('b'), { type: 'tool_use', id: 'a', name: 'read', input: {} }]), U(), R('b')], options: THINK, expected: [0, 1, 2, 3, 4, 5] },
    { name: 'results after the next paired assistant are another window', input: [A([call('a')]), R('a'), U(), A([SIG, call('a')]), R('a'), A([call('c')]), U(), R('c')], options: THINK, expected: [0, 1, 2, 3, 4, 5, 6, 7] },
  ]);
});

// ---------------------------------------------------------------------------------------------
// The rule: meta, switch, counters

describe('rule', () => {
  test('meta', () => {
    assert.equal(validateToolCallInputsRule.unit, 'buffered');
    assert.equal(validateToolCallInputsRule.meta.name, 'validate-tool-call-inputs');
    assert.deepEqual(validateToolCallInputsRule.meta.counters, ['droppedToolCalls', 'droppedAssistantMessages', 'trimmedNames', 'droppedThinkingTurns', 'keptAnsweredMisnamedCalls', 'namedUnnamedCalls']);
  });

  // One bad call in a signed turn: the thinking path drops the turn, the normal path drops the call.
  const probe = (): Message[] => deepFreeze([A([SIG, call('a'), call('b', 'bad/x')])]);
  const on = { validateAnthropicTurns: true, preserveSignatures: true, dropThinkingBlocks: false };
  const switchCases: { name: string; policy: Partial<TranscriptPolicy>; options: HygieneOptions; thinkingPath: boolean }[] = [
    { name: 'anthropic-messages + validate + preserveSignatures', policy: on, options: { modelApi: 'anthropic-messages' }, thinkingPath: true },
    { name: 'bedrock-converse-stream', policy: on, options: { modelApi: 'bedrock-converse-stream' }, thinkingPath: true },
    { name: 'other api', policy: on, options: { modelApi: 'openai-completions' }, thinkingPath: false },
    { name: 'no Anthropic turn validation', policy: { ...on, validateAnthropicTurns: false }, options: { modelApi: 'anthropic-messages' }, thinkingPath: false },
    { name: 'dropThinkingBlocks', policy: { ...on, dropThinkingBlocks: true }, options: { modelApi: 'anthropic-messages' }, thinkingPath: false },
    { name: 'no preserveSignatures, provider anthropic', policy: { ...on, preserveSignatures: false }, options: { modelApi: 'anthropic-messages', provider: 'anthropic' }, thinkingPath: true },
    { name: 'no preserveSignatures, provider amazon-bedrock', policy: { ...on, preserveSignatures: false }, options: { modelApi: 'bedrock-converse-stream', provider: 'amazon-bedrock' }, thinkingPath: true },
    { name: 'no preserveSignatures, provider anthropic-vertex', policy: { ...on, preserveSignatures: false }, options: { modelApi: 'anthropic-messages', provider: 'anthropic-vertex' }, thinkingPath: true },
    { name: 'no preserveSignatures, other provider', policy: { ...on, preserveSignatures: false }, options: { modelApi: 'anthropic-messages', provider: 'minimax' }, thinkingPath: false },
  ];
  for (const c of switchCases) {
    test(`thinking switch: ${c.name} -> ${c.thinkingPath ? 'thinking path' : 'normal path'}`, () => {
      const input = probe();
      const { output, counts } = runRule(validateToolCallInputsRule, input, { policy: c.policy, options: c.options });
      if (c.thinkingPath) {
        assert.deepEqual(output, []);
        assert.deepEqual(counts, { droppedThinkingTurns: 1 });
      } else {
        assert.deepEqual(output, [A([SIG, call('a')])]);
        assert.deepEqual(counts, { droppedToolCalls: 1 });
      }
    });
  }

  test('counters add up over a transcript', () => {
    const input = deepFreeze([
      A([call('a', ' read '), call('b', 'bad/x'), call('c', 'read', { arguments: null })]),
      A([call('d', 'bad/x')]),
      A([SIG, call('e', ' x')]),
      A([call('f', ' exec ')]),
      R('f'),
    ]);
    const { output, counts } = runRule(validateToolCallInputsRule, input, ruleInit({ ...THINK, allowedToolNames: ['read'] }));
    assert.deepEqual(output, [A([call('a', 'read')]), A([call('f', 'exec')]), input[4]]);
    assert.deepEqual(counts, { droppedToolCalls: 3, droppedAssistantMessages: 1, trimmedNames: 2, droppedThinkingTurns: 1 });
  });

  test('untouched input reports no counters', () => {
    const { counts } = runRule(validateToolCallInputsRule, deepFreeze([U(), A([call('a')]), R('a')]), ruleInit(ALLOW_READ));
    assert.deepEqual(counts, {});
  });
});

// ---------------------------------------------------------------------------------------------
// Holding: what is held back, and until when

/** Pushes messages one by one; returns how many outputs were out after each push, and after end. */
function emissionTrace(input: Message[], options: ValidateToolCallInputsOptions, extra: HygieneOptions = {}): { after: number[]; output: Message[] } {
  const init = ruleInit(options, extra);
  const processor = validateToolCallInputsRule.create(fakeContext(init));
  const output: Message[] = [];
  const emit = (message: Message) => output.push(message);
  const after: number[] = [];
  try {
    for (const message of deepFreeze(input)) {
      processor.push(message, emit);
      after.push(output.length);
    }
    processor.end(emit);
    after.push(output.length);
  } finally {
    processor.dispose?.();
  }
  return { after, output };
}

describe('holding', () => {
  test('no allowlist, no thinking path: every message streams through at once', () => {
    // A misnamed call without input goes at once: only an answer could keep it (ours), and it has none to keep.
    const input = [U(), A([call('a', ' read '), call('b', 'bad/x', { arguments: null })]), R('a'), A([SIG, call('c')]), U(), R('c')];
    assert.deepEqual(emissionTrace(input, {}).after, [1, 2, 3, 4, 5, 6, 6]);
  });

  test('a misnamed call is held until a real result answers it, or to the end without one (ours)', () => {
    const answered = [U(), A([call('a', 'bad/x')]), U('x'), R('a'), U('y')];
    const traced = emissionTrace(answered, {});
    assert.deepEqual(traced.after, [1, 1, 1, 4, 5, 5]);
    assert.deepEqual(traced.output, answered);
    const unanswered = [U(), A([text('t'), call('a', 'bad/x')]), U('x')];
    assert.deepEqual(emissionTrace(unanswered, {}).after, [1, 1, 1, 3]);
  });

  test('thinking path: a turn that needs no lookahead streams at once', () => {
    const input = [U(), A([SIG, call('a')]), R('a'), U(), A([SIG, call('b', ' x')]), R('b')];
    assert.deepEqual(emissionTrace(input, THINK).after, [1, 2, 3, 4, 4, 5, 5]);
  });

  test('allowlist: an allowed or malformed call is never held', () => {
    const input = [A([call('a'), { type: 'tool_use', id: 'b', name: 'bad/x', input: {} }, { type: 'tool_use', id: 'c', name: 'exec', input: {} }]), U()];
    assert.deepEqual(emissionTrace(input, ALLOW_READ).after, [1, 2, 2]);
  });

  test('allowlist: a disallowed call is held until a real result claims it', () => {
    const input = [U(), A([call('a', 'exec')]), U('x'), synthetic('a'), U('y'), R('a'), U('z')];
    const { after, output } = emissionTrace(input, ALLOW_READ);
    assert.deepEqual(after, [1, 1, 1, 1, 1, 6, 7, 7]);
    assert.deepEqual(output, input);
  });

  test('allowlist: an unanswered disallowed call is held to the end of input', () => {
    const input = [A([text('t'), call('a', 'exec')]), U(), A([call('b')]), R('b'), U()];
    const { after, output } = emissionTrace(input, ALLOW_READ);
    assert.deepEqual(after, [0, 0, 0, 0, 0, 5]);
    assert.deepEqual(output, [A([text('t')]), ...input.slice(1)]);
  });

  test('allowlist: a displaced answer in a later frame releases it', () => {
    const input = [A([call('a', 'exec')]), U(), A([call('b')]), R('b'), R('a'), U()];
    const { after } = emissionTrace(input, ALLOW_READ);
    // The displaced result is placed when its frame closes (here: at the end of input).
    assert.deepEqual(after, [0, 0, 0, 0, 0, 0, 6]);
  });

  test('allowlist: an ambiguous id is decided when the second owner\'s frame closes', () => {
    const input = [A([text('t'), call('a', 'exec')]), U(), A([text('t'), call('a', 'exec')]), U(), A([call('c')]), U(), U()];
    const { after, output } = emissionTrace(input, ALLOW_READ);
    assert.deepEqual(after, [0, 0, 0, 0, 5, 6, 7, 7]);
    assert.deepEqual(output, [A([text('t')]), U(), A([text('t')]), U(), ...input.slice(4)]);
  });

  test('thinking path: a sessions_spawn turn is held until every call is answered', () => {
    const input = [U(), A([SIG, spawn('a'), call('b')]), R('a'), U(), R('b'), U()];
    const { after, output } = emissionTrace(input, THINK);
    assert.deepEqual(after, [1, 1, 1, 1, 5, 6, 6]);
    assert.deepEqual(output, input);
  });

  test('thinking path: an unanswered sessions_spawn turn is dropped when its window closes', () => {
    const input = [U(), A([SIG, spawn('a'), call('b')]), R('a'), U(), A([call('c')]), R('c')];
    const { after, output } = emissionTrace(input, THINK);
    assert.deepEqual(after, [1, 1, 1, 1, 4, 5, 5]);
    assert.deepEqual(output, [input[0], input[2], input[3], input[4], input[5]]);
  });

  test('thinking path: a reused id is held until its window shows displacement or closes', () => {
    const kept = [A([call('a')]), R('a'), U(), A([SIG, call('a')]), R('a'), U(), A([call('c')])];
    assert.deepEqual(emissionTrace(kept, THINK).after, [1, 2, 3, 3, 3, 3, 7, 7]);
    const dropped = [A([call('a')]), R('a'), U(), A([SIG, call('a')]), U(), R('a'), U()];
    assert.deepEqual(emissionTrace(dropped, THINK).after, [1, 2, 3, 3, 3, 5, 6, 6]);
  });

  test('a held message keeps everything after it in order, also when spilling', () => {
    const long = 'long text '.repeat(200);
    const input = [A([call('a', 'exec')]), ...Array.from({ length: 30 }, (_, i) => user(`${i} ${long}`)), R('a'), U()];
    for (const memoryBudgetBytes of [undefined, 1024]) {
      const { after, output } = emissionTrace(input, ALLOW_READ, memoryBudgetBytes === undefined ? {} : { memoryBudgetBytes });
      assert.equal(after[30], 0);
      assert.equal(after[31], 32);
      assert.deepEqual(output, input);
    }
  });

  test('with a session file\'s result index, an unanswered call is decided when its frame closes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'validate-tool-call-inputs-'));
    try {
      const messages = [A([text('t'), call('a', 'exec')]), U(), A([call('b')]), R('b'), U(), U()];
      const file = path.join(dir, 'session.jsonl');
      writeFileSync(file, messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
      const resultIndex = await scanResultIds(file);
      const read: Message[] = [];
      for await (const batch of readJsonlMessages([messages.map((m) => JSON.stringify(m)).join('\n') + '\n'], { recordLines: true })) read.push(...batch);
      const { after, output } = emissionTrace(read, ALLOW_READ, { resultIndex });
      assert.deepEqual(after, [0, 0, 3, 4, 5, 6, 6]);
      assert.deepEqual(output, [A([text('t')]), ...messages.slice(1)]);
      // Without the index the same input is held to the end.
      assert.deepEqual(emissionTrace(read, ALLOW_READ).after, [0, 0, 0, 0, 0, 0, 6]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Stream equals array, on generated transcripts

function generate(seed: number): Message[] {
  const next = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  const ids = ['a', 'b', 'c', ' a', 'a|b'];
  const names: unknown[] = ['read', 'read', 'read', 'exec', ' read ', 'bad/x', 'sessions_spawn', 'sessions_spawn', 5];
  const block = (): ContentBlock => {
    const roll = next();
    if (roll < 0.12) return SIG;
    if (roll < 0.2) return text(chance(0.1) ? 'long '.repeat(100) : 'x');
    if (roll < 0.25) return { type: 'redacted_thinking', data: 'd' };
    const b: Record<string, unknown> = { type: pick(['toolCall', 'toolCall', 'toolUse', 'functionCall', 'tool_use']) };
    const id = pick([...ids, '', undefined]);
    if (id !== undefined) b.id = id;
    if (chance(0.1)) b.toolCallId = pick(ids);
    b.name = pick(names);
    if (chance(0.85)) b[b.type === 'tool_use' ? 'input' : 'arguments'] = b.name === 'sessions_spawn' ? {} : { p: 1 };
    if (b.name === 'sessions_spawn' && chance(0.7)) b.input = { attachments: [1] };
    if (chance(0.1)) b.partialJson = pick(['{}', '{"p":', '']);
    return b as ContentBlock;
  };
  const messages: Message[] = [];
  const length = 4 + Math.floor(next() * 14);
  for (let i = 0; i < length; i++) {
    const roll = next();
    if (roll < 0.35) {
      const content = Array.from({ length: 1 + Math.floor(next() * 3) }, block);
      // Signed turns often, so the thinking path's lookahead is exercised.
      if (chance(0.35)) content.unshift(SIG);
      const extra: Record<string, unknown> = { stopReason: pick(['toolUse', 'toolUse', 'stop']) };
      if (chance(0.1)) extra.providerReplay = { type: 'anthropic-compaction', replayIndex: Math.floor(next() * 4) };
      messages.push(assistant(content, extra));
    } else if (roll < 0.75) {
      const extra: Record<string, unknown> = { isError: chance(0.2) };
      if (chance(0.15)) {
        extra.isError = true;
        extra.details = { openclawSyntheticMissingToolResult: true };
      }
      if (chance(0.2)) extra.toolName = pick(['exec', 'sessions_spawn', ' ']);
      messages.push(R(pick([...ids, 'zz', ' a ', undefined]), extra));
    } else if (roll < 0.93) {
      messages.push(U());
    } else {
      messages.push(say());
    }
  }
  return messages;
}

describe('the rule gives the array function\'s output', () => {
  const optionSets: { name: string; options: ValidateToolCallInputsOptions }[] = [
    { name: 'plain', options: {} },
    { name: 'allowlist', options: { allowedToolNames: ['read', 'sessions_spawn'] } },
    { name: 'thinking', options: THINK },
    { name: 'thinking + allowlist', options: { ...THINK, allowedToolNames: ['READ'] } },
  ];
  for (const set of optionSets) {
    test(`${set.name}: 60 generated transcripts, default budget and 1 KiB`, () => {
      let changed = 0;
      for (let n = 0; n < 60; n++) {
        const input = deepFreeze(generate(hashSeed('validate-tool-call-inputs', set.name, n)));
        const expected = validateToolCallInputs(input, set.options);
        if (expected.length !== input.length || expected.some((m, i) => m !== input[i])) changed++;
        const streamed = runRule(validateToolCallInputsRule, input, ruleInit(set.options));
        assert.deepEqual(streamed.output, expected, `case ${n}`);
        // Untouched messages stay the same objects when nothing spills.
        for (const message of streamed.output) if (input.includes(message)) assert.ok(expected.includes(message), `case ${n}: identity`);
        const spilled = runRule(validateToolCallInputsRule, input, ruleInit(set.options, { memoryBudgetBytes: 1024 }));
        assert.deepEqual(spilled.output, expected, `case ${n}, 1 KiB`);
      }
      assert.ok(changed > 10, `the generator exercises the rule (${changed} of 60 changed)`);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Ours (issue 20, item 10): a call a tool answered keeps its output, whatever its name

describe('ours: answered calls with a malformed name are kept', () => {
  const MCP = 'mcp.s3/list_objects';
  const LONG = 'x'.repeat(65);
  runCases([
    { name: 'answered by a real result: kept, with its result', input: [U(), A([call('a', MCP)]), R('a', { toolName: MCP })], expected: [0, 1, 2], counts: { keptAnsweredMisnamedCalls: 1 } },
    { name: 'a name with a space, one over 64 characters, non-ASCII: all kept when answered', input: [A([call('a', 'list files'), call('b', LONG), call('c', 'ünï')]), R('a'), R('b'), R('c')], expected: [0, 1, 2, 3], counts: { keptAnsweredMisnamedCalls: 3 } },
    {
      // Named at once: later steps match calls and results by name, and a blank name matches nothing.
      name: 'blank, missing and non-string names: kept when answered, as unnamed_tool',
      input: [A([call('a', ''), { type: 'toolCall', id: 'b', arguments: { p: 1 } }, call('c', 42), call('d', ' \t')]), R('a'), R('b'), R('c'), R('d')],
      expected: [A([call('a', 'unnamed_tool'), { type: 'toolCall', id: 'b', arguments: { p: 1 }, name: 'unnamed_tool' }, call('c', 'unnamed_tool'), call('d', 'unnamed_tool')]), 1, 2, 3, 4],
      counts: { keptAnsweredMisnamedCalls: 4, namedUnnamedCalls: 4 },
    },
    {
      name: 'naming a call keeps a compaction checkpoint (the call is not replaced in substance)',
      input: [A([text('a'), call('a', ''), text('b')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 2 } }), R('a')],
      expected: [A([text('a'), call('a', 'unnamed_tool'), text('b')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 2 } }), 1],
    },
    { name: 'thinking path: a kept signed turn names its nameless answered call', input: [U(), A([SIG, call('a', '')]), R('a')], options: THINK, expected: [0, A([SIG, call('a', 'unnamed_tool')]), 2], counts: { keptAnsweredMisnamedCalls: 1, namedUnnamedCalls: 1 } },
    { name: 'a padded malformed name is trimmed', input: [A([call('a', ` ${MCP} `)]), R('a')], expected: [A([call('a', MCP)]), 1], counts: { keptAnsweredMisnamedCalls: 1, trimmedNames: 1 } },
    { name: 'unanswered: dropped as before', input: [U(), A([text('t'), call('a', MCP)]), U('r')], expected: [0, A([text('t')]), 2], counts: { droppedToolCalls: 1 } },
    { name: 'answered only by a synthetic result: dropped', input: [A([text('t'), call('a', MCP)]), synthetic('a')], expected: [A([text('t')]), 1], counts: { droppedToolCalls: 1 } },
    { name: 'answered but without input: dropped', input: [A([text('t'), call('a', MCP, { arguments: null })]), R('a')], expected: [A([text('t')]), 1], counts: { droppedToolCalls: 1 } },
    { name: 'id only in an alias (not a paired call): dropped', input: [A([text('t'), call('', MCP, { toolCallId: 'a' })]), R('a')], expected: [A([text('t')]), 1], counts: { droppedToolCalls: 1 } },
    { name: 'a tool_use block (never paired): dropped', input: [A([text('t'), { type: 'tool_use', id: 'a', name: MCP, input: {} }]), R('a')], expected: [A([text('t')]), 1] },
    { name: 'an unfinished partialJson still drops it', input: [A([text('t'), call('a', MCP, { partialJson: '{"p":' })]), R('a')], expected: [A([text('t')]), 1] },
    { name: 'the result in a later frame (displaced, one owner): kept', input: [A([call('a', MCP)]), U(), A([call('b')]), R('b'), R('a')], expected: [0, 1, 2, 3, 4] },
    { name: 'with an allowlist the answered call is completed, so kept', input: [A([call('a', MCP)]), R('a')], options: ALLOW_READ, expected: [0, 1] },
    { name: 'only the answered one of two is kept', input: [A([call('a', MCP), call('b', MCP)]), R('b')], expected: [A([call('b', MCP)]), 1], counts: { droppedToolCalls: 1, keptAnsweredMisnamedCalls: 1 } },
    { name: 'thinking path: a signed turn whose misnamed call is answered is kept whole', input: [U(), A([SIG, call('a', MCP)]), R('a')], options: THINK, expected: [0, 1, 2], counts: { keptAnsweredMisnamedCalls: 1 } },
    { name: 'thinking path: unanswered, the signed turn goes whole as before', input: [U(), A([SIG, call('a', MCP)]), U('r')], options: THINK, expected: [0, 2], counts: { droppedThinkingTurns: 1 } },
    { name: 'thinking path: a padded malformed name still drops the turn (it cannot be edited)', input: [U(), A([SIG, call('a', ` ${MCP}`)]), R('a')], options: THINK, expected: [0, 2], counts: { droppedThinkingTurns: 1 } },
  ]);
});
