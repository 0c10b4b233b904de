import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ReplaySafeThinkingScan,
  makeUniqueToolId,
  sanitizeToolCallId,
  sanitizeToolCallIds,
  sanitizeToolCallIdsRule,
  type SanitizeToolCallIdsOptions,
} from '../../transforms/sanitize-tool-call-ids.ts';
import { allowProviderOwnedThinkingReplay, sha256Hex } from '../../transforms/tool-call-shapes.ts';
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy, type TranscriptPolicy } from '../../lib/policy.ts';
import type { ContentBlock, Message } from '../../lib/types.ts';
import { assistant, deepFreeze, testPolicy, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const parse = (json: string): Message[] => deepFreeze(JSON.parse(json) as Message[]);

/** Runs the core and checks that the input is never mutated (it is frozen). */
function run(json: string, mode: string, options?: SanitizeToolCallIdsOptions): Message[] {
  return sanitizeToolCallIds(parse(json), mode, options) as Message[];
}

const ok = [text('ok')];
const ids = (message: Message): unknown[] => (message.content as { id?: unknown }[]).map((block) => block.id);

// ---------------------------------------------------------------------------------------------
// §12 check values and §5.4 character rule

test('§12 check values', () => {
  assert.equal(sha256Hex('a_b').slice(0, 8), '648fa9b3');
  assert.equal(sha256Hex('ab').slice(0, 9), 'fb8e20fc2');
  assert.equal(sha256Hex('sanitized').slice(0, 9), '44d8b78be');
  assert.equal(sha256Hex('x.y').slice(0, 10), 'b24ca9b75e');
});

const characterCases: { id: unknown; mode: string; expected: string }[] = [
  { id: 'call_abc-1|fc_x.y', mode: 'strict', expected: 'callabc1fcxy' },
  { id: '---', mode: 'strict', expected: 'sanitizedtoolid' },
  { id: 'functions.read:0', mode: 'strict', expected: 'functions.read:0' },
  { id: 'functions.read:0', mode: 'other', expected: 'functions.read:0' },
  { id: 'functions.read:0', mode: 'strict9', expected: 'functions' },
  { id: 'functions.read:x', mode: 'strict', expected: 'functionsreadx' },
  { id: 'call_abcdefghijkl', mode: 'strict9', expected: 'callabcde' },
  { id: 'ab', mode: 'strict9', expected: 'fb8e20fc2' },
  { id: '---', mode: 'strict9', expected: '44d8b78be' },
  { id: '', mode: 'strict', expected: 'defaulttoolid' },
  { id: '', mode: 'strict9', expected: 'defaultid' },
  { id: 5, mode: 'strict', expected: 'defaulttoolid' },
  { id: 'x'.repeat(50), mode: 'strict', expected: 'x'.repeat(50) },
];

for (const c of characterCases) {
  test(`sanitizeToolCallId(${JSON.stringify(c.id)}, ${c.mode}) = ${c.expected}`, () => {
    assert.equal(sanitizeToolCallId(c.id, c.mode), c.expected);
  });
}

// ---------------------------------------------------------------------------------------------
// §5.4 allocation and its consequences list

test('§5.4: a-b, a_b and a.b become ab, ab648fa9b3, ab2e7336dc', () => {
  const used = new Set<string>();
  assert.deepEqual(['a-b', 'a_b', 'a.b'].map((seed) => makeUniqueToolId(seed, used, 'strict')), ['ab', 'ab648fa9b3', 'ab2e7336dc']);
  assert.deepEqual([...used], ['ab', 'ab648fa9b3', 'ab2e7336dc']);
});

test('§5.4: x1 repeated three times becomes x1, x12, x13; a new raw x12 becomes x125e4a4501', () => {
  const out = run(
    JSON.stringify([
      assistant([toolCall('x1')]), toolResult('x1', ok),
      assistant([toolCall('x1')]), toolResult('x1', ok),
      assistant([toolCall('x1')]), toolResult('x1', ok),
      assistant([toolCall('x12')]), toolResult('x12', ok),
    ]),
    'strict',
  );
  assert.deepEqual(out.filter((m) => m.role === 'assistant').map((m) => ids(m)[0]), ['x1', 'x12', 'x13', 'x125e4a4501']);
  assert.deepEqual(out.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId), ['x1', 'x12', 'x13', 'x125e4a4501']);
});

test('§5.4: Kimi ids kept on first use only, cut to 40; strict9 gives "functions"', () => {
  const long = 'functions.a_very_long_tool_name_for_testing_cut:12';
  const input = JSON.stringify([
    assistant([toolCall('functions.read:0'), toolCall('functions.read:0'), toolCall(long)]),
    toolResult('functions.read:0', ok), toolResult('functions.read:0', ok), toolResult(long, ok),
  ]);
  // Oracle (google / google-generative-ai): the same three ids.
  assert.deepEqual(ids(run(input, 'strict')[0]!), ['functions.read:0', 'functionsread02', 'functions.a_very_long_tool_name_for_test']);
  assert.deepEqual(ids(run(input, 'strict9')[0]!), [
    'functions',
    sha256Hex('functions.read:0:2:0').slice(0, 9),
    sha256Hex(`${long}:0`).slice(0, 9),
  ]);
});

test('§5.4: in an unknown mode the collision separator is _', () => {
  const used = new Set<string>();
  assert.deepEqual(['a-b', 'a_b'].map((seed) => makeUniqueToolId(seed, used, 'loose')), ['ab', 'ab_648fa9b3']);
});

test('§5.4: third collision gets x<i> (strict) or _<i> (other), cut to 40', () => {
  const strict = new Set(['ab', 'ab648fa9b3']);
  assert.equal(makeUniqueToolId('a_b', strict, 'strict'), 'ab648fa9b3x2');
  strict.add('ab648fa9b3x3');
  assert.equal(makeUniqueToolId('a_b', strict, 'strict'), 'ab648fa9b3x4');
  const loose = new Set(['ab', 'ab_648fa9b3']);
  assert.equal(makeUniqueToolId('a_b', loose, 'loose'), 'ab_648fa9b3_2');
  const seed = 'abcdefghij'.repeat(5);
  const base = seed.slice(0, 40);
  const hashed = seed.slice(0, 32) + sha256Hex(seed).slice(0, 8);
  const full = new Set([base, hashed]);
  assert.equal(makeUniqueToolId(seed, full, 'strict'), hashed.slice(0, 38) + 'x2');
});

test('§5.4: oracle run with a taken hashed id and overlong ids', () => {
  // google / google-generative-ai, verified with the oracle.
  const raw = ['ab648fa9b3', 'ab', 'a_b', 'abcdefghijabcdefghijabcdefghijabcdefghijKLMNO', 'abcdefghij-abcdefghijabcdefghijabcdefghijKLMNO'];
  const out = run(JSON.stringify([assistant(raw.map((id) => toolCall(id))), ...raw.map((id) => toolResult(id, ok))]), 'strict');
  const expected = ['ab648fa9b3', 'ab', 'ab648fa9b3x2', 'abcdefghijabcdefghijabcdefghijabcdefghij', 'abcdefghijabcdefghijabcdefghijabc7b8a886'];
  assert.deepEqual(ids(out[0]!), expected);
  assert.deepEqual(out.slice(1).map((m) => m.toolCallId), expected);
});

test('§5.4 strict9: a taken candidate is re-hashed from "<seed>:0" (oracle: openrouter mistralai)', () => {
  const out = run(JSON.stringify([assistant([toolCall('fb8e20fc2'), toolCall('ab')]), toolResult('fb8e20fc2', ok), toolResult('ab', ok)]), 'strict9');
  assert.deepEqual(ids(out[0]!), ['fb8e20fc2', 'd91340dc1']);
  assert.equal(sha256Hex('ab:0').slice(0, 9), 'd91340dc1');
  const used = new Set(['fb8e20fc2', 'd91340dc1']);
  assert.equal(makeUniqueToolId('ab', used, 'strict9'), sha256Hex('ab:1').slice(0, 9));
});

// ---------------------------------------------------------------------------------------------
// Worked examples Ex 15–20 (verbatim)

const examples: { name: string; mode: string; options?: SanitizeToolCallIdsOptions; input: string; output: string }[] = [
  {
    name: 'Ex 15 strict ids',
    mode: 'strict',
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc-1|fc_x.y","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"a-b","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"a_b","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_abc-1|fc_x.y","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"a-b","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"a_b","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"a-b","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"a-b","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"stray.id","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"callabc1fcxy","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"ab","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"ab648fa9b3","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"callabc1fcxy","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"ab","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"ab648fa9b3","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"ab2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"ab2","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"strayidtoolresult1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
  },
  {
    name: 'Ex 16 strict + preserveNativeAnthropicToolUseIds, Kimi id kept',
    mode: 'strict',
    options: { preserveNativeAnthropicToolUseIds: true },
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01AbC_d","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"toolu_bad-dash","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu_01AbC_d","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"toolu_bad-dash","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"functions.read:0","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01AbC_d","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"toolubaddash","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu_01AbC_d","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"toolubaddash","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"functions.read:0","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
  },
  {
    name: 'Ex 17 strict9',
    mode: 'strict9',
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_abcdefghijkl","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"ab","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"---","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_abcdefghijkl","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"ab","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"---","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"call_abcdefghijkl","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_abcdefghijkl","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"callabcde","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"fb8e20fc2","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"44d8b78be","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"callabcde","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"fb8e20fc2","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"44d8b78be","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"70765312c","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"70765312c","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
  },
  {
    name: 'Ex 18 duplicateToolCallIdStyle openai',
    mode: 'strict',
    options: { duplicateToolCallIdStyle: 'openai' },
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_a-b_1","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_a-b_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"call_a-b_1","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_a-b_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"functions.read:0","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"call_a-b_1","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_a-b_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"call_ac1fdbcb16f0eb629f671226","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_ac1fdbcb16f0eb629f671226","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"functions.read:0","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
  },
  {
    name: 'Ex 19 result id aliases',
    mode: 'strict',
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"a.1","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"zzz","toolUseId":"a.1","call_id":"a.1","content":[]}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"a1","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"a1","toolUseId":"a1","call_id":"a1","content":[]}]',
  },
  {
    name: 'Ex 20 replay-safe thinking ids reserved up front',
    mode: 'strict',
    options: { preserveReplaySafeThinkingToolCallIds: true },
    input: '[{"role":"assistant","content":[{"type":"toolCall","id":"toolu-01","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu-01","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"toolCall","id":"toolu01","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu01","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
    output: '[{"role":"assistant","content":[{"type":"toolCall","id":"toolu01b2cb1792","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu01b2cb1792","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"sig"},{"type":"toolCall","id":"toolu01","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"toolu01","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]',
  },
];

for (const ex of examples) {
  test(`core: ${ex.name}`, () => {
    const input = parse(ex.input);
    const out = sanitizeToolCallIds(input, ex.mode, ex.options);
    // JSON key order matters too (the spec's Out is the reference's serialization).
    assert.equal(JSON.stringify(out), JSON.stringify(JSON.parse(ex.output)));
  });
}

test('Ex 20 without §5.5: the earlier id is kept and the thinking turn rewritten', () => {
  const out = run(examples[5]!.input, 'strict');
  assert.deepEqual(ids(out[0]!), ['toolu01']);
  assert.deepEqual(ids(out[2]!), [undefined, `toolu01${sha256Hex('toolu01').slice(0, 8)}`]);
});

// ---------------------------------------------------------------------------------------------
// §5.1–§5.3 details

test('identity: nothing to rewrite returns the same array and objects', () => {
  const input = parse(JSON.stringify([user('q'), assistant([text('a'), toolCall('abc')]), toolResult('abc', ok), { role: 'custom', x: 1 }]));
  assert.equal(sanitizeToolCallIds(input, 'strict'), input);
});

test('identity: untouched messages and blocks stay the same objects in a changed array', () => {
  const input = parse(JSON.stringify([user('q'), assistant([text('a'), toolCall('a-1'), toolCall('b')]), toolResult('a-1', ok), toolResult('b', ok)]));
  const out = sanitizeToolCallIds(input, 'strict');
  assert.notEqual(out, input);
  assert.equal(out[0], input[0]);
  assert.equal((out[1]!.content as unknown[])[0], (input[1]!.content as unknown[])[0]);
  assert.equal((out[1]!.content as unknown[])[2], (input[1]!.content as unknown[])[2]);
  assert.equal(out[3], input[3]);
  assert.deepEqual(ids(out[1]!), [undefined, 'a1', 'b']);
});

test('§5.1: other block types, empty and non-string ids are left alone and not counted', () => {
  const input = parse(JSON.stringify([
    assistant([{ type: 'tool_use', id: 'x-1', name: 'read', input: {} }, { type: 'toolCall', id: '', name: 'read', arguments: {} }, { type: 'toolCall', id: 5, name: 'read', arguments: {} }]),
    toolResult('x-1', ok),
  ]));
  const out = sanitizeToolCallIds(input, 'strict');
  assert.equal(out[0], input[0]);
  // The result has no pending call: an orphan.
  assert.equal(out[1]!.toolCallId, 'x1toolresult1');
});

test('§5.1 aliases (oracle): non-string and empty aliases untouched, toolCallId added or replaced', () => {
  const input = parse(JSON.stringify([
    assistant([toolCall('c-1'), toolCall('c-2'), toolCall('c-3'), toolCall('c-4')]),
    { role: 'toolResult', toolCallId: 'c-1', toolUseId: 5, tool_use_id: null, content: ok },
    { role: 'toolResult', call_id: 'c-2', content: ok },
    { role: 'toolResult', toolCallId: 7, call_id: 'c-3', content: ok },
    { role: 'toolResult', toolCallId: '', call_id: 'c-4', toolUseId: '', content: ok },
  ]));
  const out = sanitizeToolCallIds(input, 'strict');
  assert.deepEqual(out.slice(1), [
    { role: 'toolResult', toolCallId: 'c1', toolUseId: 5, tool_use_id: null, content: ok },
    { role: 'toolResult', call_id: 'c2', content: ok, toolCallId: 'c2' },
    { role: 'toolResult', toolCallId: 'c3', call_id: 'c3', content: ok },
    { role: 'toolResult', toolCallId: '', call_id: 'c4', toolUseId: '', content: ok },
  ]);
  assert.deepEqual(Object.keys(out[2]!), ['role', 'call_id', 'content', 'toolCallId']);
});

test('§5.3: a blank-but-non-empty raw id wins the rewrite priority and becomes an orphan (oracle)', () => {
  const out = run(JSON.stringify([
    assistant([toolCall('call1')]),
    { role: 'toolResult', toolCallId: 'call1', toolUseId: '', tool_use_id: '  ', toolName: 'read', content: ok },
  ]), 'strict');
  assert.deepEqual(out[1], { role: 'toolResult', toolCallId: 'toolresult1', toolUseId: '', tool_use_id: 'toolresult1', toolName: 'read', content: ok });
});

test('§5.3: a result without any id string is untouched', () => {
  const input = parse(JSON.stringify([assistant([toolCall('a-1')]), { role: 'toolResult', toolCallId: 5, content: ok }]));
  const out = sanitizeToolCallIds(input, 'strict');
  assert.equal(out[1], input[1]);
});

test('§5.3: FIFO per raw id; repeated ids inside one turn are separate occurrences', () => {
  const out = run(JSON.stringify([
    assistant([toolCall('a.1'), toolCall('a.1')]),
    toolResult('a.1', ok), toolResult('a.1', ok), toolResult('a.1', ok),
  ]), 'strict');
  assert.deepEqual(ids(out[0]!), ['a1', 'a12']);
  assert.deepEqual(out.slice(1).map((m) => m.toolCallId), ['a1', 'a12', 'a1toolresult1']);
});

test('§5.3: orphans count per raw id: <raw>:tool_result:<n>', () => {
  const out = run(JSON.stringify([toolResult('orph-1', ok), toolResult('orph-1', ok), toolResult('other', ok)]), 'strict');
  assert.deepEqual(out.map((m) => m.toolCallId), ['orph1toolresult1', 'orph1toolresult2', 'othertoolresult1']);
});

test('§5.3: a kept native orphan id enters `used` (oracle: a later call toolu_b becomes toolub)', () => {
  const out = run(JSON.stringify([
    assistant([toolCall('a')]),
    { role: 'toolResult', toolCallId: 'a', call_id: 'toolu_b', toolName: 'read', content: ok },
    user('q2'),
    assistant([toolCall('toolu_b')]),
    toolResult('toolu_b', ok),
  ]), 'strict', { preserveNativeAnthropicToolUseIds: true });
  assert.equal(out[1]!.toolCallId, 'toolu_b');
  assert.equal(out[1]!.call_id, 'toolu_b');
  assert.deepEqual(ids(out[3]!), ['toolub']);
  assert.equal(out[4]!.toolCallId, 'toolub');
});

test('§5.2: native toolu_ ids are kept on first use only, without a length cap', () => {
  const long = `toolu_${'A'.repeat(60)}`;
  const out = run(JSON.stringify([
    assistant([toolCall(long), toolCall('toolu_x')]), toolResult(long, ok), toolResult('toolu_x', ok),
    assistant([toolCall('toolu_x')]), toolResult('toolu_x', ok),
  ]), 'strict', { preserveNativeAnthropicToolUseIds: true });
  assert.deepEqual(ids(out[0]!), [long, 'toolu_x']);
  assert.deepEqual(ids(out[3]!), ['toolux2']); // seed "toolu_x:2"
});

test('§5.2 openai style: a first-use call_ id already taken is allocated normally', () => {
  const out = run(JSON.stringify([
    assistant([toolCall('call1'), toolCall('call_1'), toolCall('call_1.x')]),
    toolResult('call1', ok), toolResult('call_1', ok), toolResult('call_1.x', ok),
  ]), 'strict', { duplicateToolCallIdStyle: 'openai' });
  // `call1` is taken first; `call_1` is free so it is kept verbatim; `call_1.x` fails the pattern.
  assert.deepEqual(ids(out[0]!), ['call1', 'call_1', 'call1x']);
  const taken = run(JSON.stringify([assistant([toolCall('x-1'), toolCall('call_x1')]), toolResult('x-1', ok), toolResult('call_x1', ok)]), 'strict', { duplicateToolCallIdStyle: 'openai' });
  assert.deepEqual(ids(taken[0]!), ['x1', 'call_x1']);
});

test('§5.2 openai style: repeats hash "<id>:<occ>:<attempt>"', () => {
  const out = run(JSON.stringify([
    assistant([toolCall('x'), toolCall('x'), toolCall('x')]), toolResult('x', ok), toolResult('x', ok), toolResult('x', ok),
  ]), 'strict', { duplicateToolCallIdStyle: 'openai' });
  assert.deepEqual(ids(out[0]!), ['x', `call_${sha256Hex('x:2:0').slice(0, 24)}`, `call_${sha256Hex('x:3:0').slice(0, 24)}`]);
});

// ---------------------------------------------------------------------------------------------
// §5.5 replay-safe thinking ids

const ANTHROPIC_OPTIONS = { provider: 'anthropic', modelApi: 'anthropic-messages' };
const THINKING_POLICY: Partial<TranscriptPolicy> = {
  sanitizeToolCallIds: true,
  toolCallIdMode: 'strict',
  preserveNativeAnthropicToolUseIds: true,
  preserveSignatures: true,
  validateAnthropicTurns: true,
};

const allowCases: { name: string; route: { provider: string; modelApi: string; modelId: string }; expected: boolean }[] = [
  { name: 'anthropic opus 4.6', route: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }, expected: true },
  { name: 'anthropic sonnet 4.5 (drops thinking)', route: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }, expected: false },
  { name: 'bedrock sonnet 4.5', route: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5' }, expected: false },
  { name: 'minimax anthropic-messages', route: { provider: 'minimax', modelApi: 'anthropic-messages', modelId: 'MiniMax-M2' }, expected: true },
  { name: 'google', route: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }, expected: false },
  { name: 'openai completions', route: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-5' }, expected: false },
];

for (const c of allowCases) {
  test(`allowProviderOwnedThinkingReplay: ${c.name}`, () => {
    const options = resolveHygieneOptions(c.route);
    assert.equal(allowProviderOwnedThinkingReplay(resolveTranscriptPolicy(options), options), c.expected);
  });
}

test('allowProviderOwnedThinkingReplay: each condition', () => {
  const on = testPolicy({ validateAnthropicTurns: true, preserveSignatures: true });
  const opts = { provider: 'x', modelApi: 'anthropic-messages' };
  assert.equal(allowProviderOwnedThinkingReplay(on, opts), true);
  assert.equal(allowProviderOwnedThinkingReplay(on, { ...opts, modelApi: 'bedrock-converse-stream' }), true);
  assert.equal(allowProviderOwnedThinkingReplay(on, { ...opts, modelApi: 'openai-completions' }), false);
  assert.equal(allowProviderOwnedThinkingReplay(testPolicy({ preserveSignatures: true }), opts), false);
  assert.equal(allowProviderOwnedThinkingReplay(testPolicy({ validateAnthropicTurns: true }), opts), false);
  assert.equal(allowProviderOwnedThinkingReplay(testPolicy({ validateAnthropicTurns: true }), { ...opts, provider: 'anthropic-vertex' }), true);
  assert.equal(allowProviderOwnedThinkingReplay(testPolicy({ validateAnthropicTurns: true }), { ...opts, provider: 'amazon-bedrock' }), true);
  assert.equal(allowProviderOwnedThinkingReplay(testPolicy({ validateAnthropicTurns: true, preserveSignatures: true, dropThinkingBlocks: true }), opts), false);
});

const PRESERVE: SanitizeToolCallIdsOptions = { preserveReplaySafeThinkingToolCallIds: true };
const thinkingTurn = (...blocks: ContentBlock[]): Message => assistant([thinking('t', 'sig'), ...blocks], { stopReason: 'toolUse' });

test('§5.5: a preserved turn keeps k-1 verbatim; without §5.5 it becomes k1', () => {
  const input = JSON.stringify([thinkingTurn(toolCall('k-1')), toolResult('k-1', ok)]);
  assert.deepEqual(ids(run(input, 'strict', PRESERVE)[0]!), [undefined, 'k-1']);
  assert.deepEqual(ids(run(input, 'strict')[0]!), [undefined, 'k1']);
});

test('§5.5: preserved turns do not advance assistant occurrences', () => {
  const out = run(JSON.stringify([
    thinkingTurn(toolCall('k-1')), toolResult('k-1', ok),
    assistant([toolCall('k-1')]), toolResult('k-1', ok),
  ]), 'strict', PRESERVE);
  assert.deepEqual(ids(out[2]!), ['k1']); // seed "k-1" (occ 1), not "k-1:2"
  assert.equal(out[1]!.toolCallId, 'k-1');
  assert.equal(out[3]!.toolCallId, 'k1');
});

test('§5.5: a later replay-safe turn reusing a reserved id is not preserved', () => {
  const out = run(JSON.stringify([
    thinkingTurn(toolCall('k-1')), toolResult('k-1', ok),
    thinkingTurn(toolCall('k-1'), toolCall('m-1')), toolResult('k-1', ok), toolResult('m-1', ok),
  ]), 'strict', PRESERVE);
  assert.deepEqual(ids(out[0]!), [undefined, 'k-1']);
  assert.deepEqual(ids(out[2]!), [undefined, 'k1', 'm1']);
});

const notReplaySafe: { name: string; turn: Message }[] = [
  { name: 'no thinking block', turn: assistant([toolCall('k-1')]) },
  { name: 'redactedThinking is not a thinking block (oracle)', turn: assistant([{ type: 'redactedThinking', data: 'x' }, toolCall('k-1')]) },
  { name: 'a call without input', turn: thinkingTurn({ type: 'toolCall', id: 'k-1', name: 'read' } as never) },
  { name: 'a blank id', turn: thinkingTurn(toolCall('k-1'), toolCall(' ')) },
  { name: 'a duplicate id', turn: thinkingTurn(toolCall('k-1'), toolCall('k-1')) },
  { name: 'a name that needs trimming', turn: thinkingTurn(toolCall('k-1', ' read')) },
];

for (const c of notReplaySafe) {
  test(`§5.5: not replay-safe: ${c.name}`, () => {
    const out = run(JSON.stringify([c.turn, toolResult('k-1', ok)]), 'strict', PRESERVE);
    assert.ok(ids(out[0]!).includes('k1'), JSON.stringify(ids(out[0]!)));
  });
}

test('§5.5, ours (issue 20): a name outside §2.3 needs a real result in its frame, as a disallowed one does', () => {
  // validate-tool-call-inputs keeps such a call only when a tool answered it; the turn is then as
  // replay-safe as with any valid name (the reference, shown a valid name there, preserves it).
  const synthetic = toolResult('k-1', ok, { isError: true, details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' } });
  for (const name of ['bad/name', 'r'.repeat(65), 'mcp.s3/list objects']) {
    assert.deepEqual(ids(run(JSON.stringify([thinkingTurn(toolCall('k-1', name)), toolResult('k-1', ok)]), 'strict', PRESERVE)[0]!), [undefined, 'k-1'], `${name}: answered`);
    assert.deepEqual(ids(run(JSON.stringify([thinkingTurn(toolCall('k-1', name))]), 'strict', PRESERVE)[0]!), [undefined, 'k1'], `${name}: unanswered`);
    assert.deepEqual(ids(run(JSON.stringify([thinkingTurn(toolCall('k-1', name)), synthetic]), 'strict', PRESERVE)[0]!), [undefined, 'k1'], `${name}: synthetic result`);
  }
  const nameless = { type: 'toolCall', id: 'k-1', arguments: {} } as never;
  assert.deepEqual(ids(run(JSON.stringify([thinkingTurn(nameless), toolResult('k-1', ok)]), 'strict', PRESERVE)[0]!), [undefined, 'k-1'], 'no name, answered');
  assert.deepEqual(ids(run(JSON.stringify([thinkingTurn(toolCall('k-1', '  '))]), 'strict', PRESERVE)[0]!), [undefined, 'k1'], 'a blank name needs trimming');
});

test('§5.5: redacted_thinking counts (oracle)', () => {
  const out = run(JSON.stringify([assistant([{ type: 'redacted_thinking', data: 'x' }, toolCall('k-1')]), toolResult('k-1', ok)]), 'strict', PRESERVE);
  assert.deepEqual(ids(out[0]!), [undefined, 'k-1']);
});

test('§5.5: tool_use blocks are not call blocks of the check', () => {
  const out = run(JSON.stringify([thinkingTurn(toolCall('k-1'), { type: 'tool_use', id: ' ', name: 'bad name' } as never), toolResult('k-1', ok)]), 'strict', PRESERVE);
  assert.deepEqual(ids(out[0]!), [undefined, 'k-1', ' ']);
});

test('§5.5 allowlist: disallowed name needs a real result in its frame (completed exemption)', () => {
  const opts = { ...PRESERVE, allowedToolNames: [' READ '] };
  const turn = (id: string): Message => thinkingTurn(toolCall(id, 'write'));
  const synthetic = (id: string): Message => toolResult(id, ok, { isError: true, details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' } });
  const cases: { name: string; messages: Message[]; preserved: boolean }[] = [
    { name: 'allowed name, no result', messages: [thinkingTurn(toolCall('k-1', 'Read'))], preserved: true },
    { name: 'disallowed, real result', messages: [turn('k-1'), user('u'), toolResult(' k-1 ', ok)], preserved: true },
    { name: 'disallowed, no result', messages: [turn('k-1')], preserved: false },
    { name: 'disallowed, synthetic result (details marker)', messages: [turn('k-1'), synthetic('k-1')], preserved: false },
    { name: 'disallowed, synthetic result (default text)', messages: [turn('k-1'), toolResult('k-1', [text('[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.')], { isError: true })], preserved: false },
    { name: 'disallowed, result only in a later frame', messages: [turn('k-1'), assistant([toolCall('z')]), toolResult('k-1', ok)], preserved: false },
    { name: 'disallowed, result after an assistant without calls (same frame)', messages: [turn('k-1'), assistant([text('x')]), toolResult('k-1', ok)], preserved: true },
    { name: 'disallowed, result for another id', messages: [turn('k-1'), toolResult('k-2', ok)], preserved: false },
  ];
  for (const c of cases) {
    const out = sanitizeToolCallIds(deepFreeze(c.messages), 'strict', opts);
    assert.equal(ids(out[0]!)[1], c.preserved ? 'k-1' : 'k1', c.name);
  }
  // An empty allowlist is no allowlist.
  const none = sanitizeToolCallIds(deepFreeze([turn('k-1')]), 'strict', { ...PRESERVE, allowedToolNames: [' ', 5 as never] });
  assert.equal(ids(none[0]!)[1], 'k-1');
});

test('ReplaySafeThinkingScan: reservations and preserved indices', () => {
  const scan = new ReplaySafeThinkingScan();
  const messages = [user('q'), thinkingTurn(toolCall('a')), toolResult('a', ok), thinkingTurn(toolCall('a')), thinkingTurn(toolCall('b'), toolCall('c'))];
  for (const m of messages) scan.observe(m);
  const { reserved, preserved } = scan.finish();
  assert.deepEqual([...reserved], ['a', 'b', 'c']);
  assert.deepEqual([...preserved], [1, 4]);
});

// ---------------------------------------------------------------------------------------------
// Rule

test('rule: meta', () => {
  assert.equal(sanitizeToolCallIdsRule.unit, 'buffered');
  assert.equal(sanitizeToolCallIdsRule.meta.name, 'sanitize-tool-call-ids');
  assert.deepEqual(sanitizeToolCallIdsRule.meta.counters, ['idsRewritten', 'resultsRewritten', 'orphanResultIds', 'preservedThinkingTurns', 'spilledMessages']);
});

test('rule: Ex 15 through the chain, with counters', () => {
  const input = parse(examples[0]!.input);
  const { output, counts } = runRule(sanitizeToolCallIdsRule, input, { policy: { sanitizeToolCallIds: true, toolCallIdMode: 'strict' } });
  assert.equal(JSON.stringify(output), JSON.stringify(JSON.parse(examples[0]!.output)));
  assert.deepEqual(counts, { idsRewritten: 4, resultsRewritten: 5, orphanResultIds: 1 });
});

test('rule: strict9 and openai style come from the policy', () => {
  const ex17 = runRule(sanitizeToolCallIdsRule, parse(examples[2]!.input), { policy: { sanitizeToolCallIds: true, toolCallIdMode: 'strict9' } });
  assert.equal(JSON.stringify(ex17.output), JSON.stringify(JSON.parse(examples[2]!.output)));
  const ex18 = runRule(sanitizeToolCallIdsRule, parse(examples[3]!.input), {
    policy: { sanitizeToolCallIds: true, toolCallIdMode: 'strict', duplicateToolCallIdStyle: 'openai' },
  });
  assert.equal(JSON.stringify(ex18.output), JSON.stringify(JSON.parse(examples[3]!.output)));
  const ex16 = runRule(sanitizeToolCallIdsRule, parse(examples[1]!.input), {
    policy: { sanitizeToolCallIds: true, toolCallIdMode: 'strict', preserveNativeAnthropicToolUseIds: true },
  });
  assert.equal(JSON.stringify(ex16.output), JSON.stringify(JSON.parse(examples[1]!.output)));
});

test('rule: untouched messages come out as the same objects', () => {
  const input = parse(JSON.stringify([user('q'), assistant([toolCall('a-1')]), toolResult('a-1', ok), assistant([toolCall('b')]), toolResult('b', ok)]));
  const { output, counts } = runRule(sanitizeToolCallIdsRule, input, { policy: { toolCallIdMode: 'strict' } });
  assert.equal(output[0], input[0]);
  assert.notEqual(output[1], input[1]);
  assert.equal(output[3], input[3]);
  assert.equal(output[4], input[4]);
  assert.deepEqual(counts, { idsRewritten: 1, resultsRewritten: 1 });
});

test('rule without §5.5 emits each message as it arrives', () => {
  const out: Message[] = [];
  const chain = createRuleChain(
    [sanitizeToolCallIdsRule],
    { policy: testPolicy({ toolCallIdMode: 'strict' }), options: resolveHygieneOptions({}), stats: new StatsRecorder() },
    (m) => out.push(m),
  );
  chain.write(assistant([toolCall('a-1')]));
  assert.equal(out.length, 1);
  chain.write(toolResult('a-1', ok));
  assert.equal(out.length, 2);
  chain.end();
  chain.dispose();
});

test('rule with §5.5 holds everything until the end', () => {
  const out: Message[] = [];
  const chain = createRuleChain(
    [sanitizeToolCallIdsRule],
    { policy: testPolicy(THINKING_POLICY), options: resolveHygieneOptions(ANTHROPIC_OPTIONS), stats: new StatsRecorder() },
    (m) => out.push(m),
  );
  for (const m of parse(examples[5]!.input)) chain.write(m);
  assert.equal(out.length, 0);
  chain.end();
  chain.dispose();
  assert.equal(JSON.stringify(out), JSON.stringify(JSON.parse(examples[5]!.output)));
});

test('rule: §5.5 is off when the route does not allow thinking replay', () => {
  const { output } = runRule(sanitizeToolCallIdsRule, parse(examples[5]!.input), {
    policy: { ...THINKING_POLICY, dropThinkingBlocks: true },
    options: ANTHROPIC_OPTIONS,
  });
  assert.deepEqual(ids(output[0]!), ['toolu01']);
});

/** A transcript with repeated ids, orphans, thinking turns whose ids clash with earlier ones, and padding text. */
function bigTranscript(frames: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < frames; i++) {
    const id = `toolu-${i % 7}`;
    messages.push(user(`question ${i} ${'x'.repeat(200)}`));
    if (i % 5 === 4) {
      messages.push(thinkingTurn(toolCall(`toolu${i % 7}`), toolCall(`k-${i}`, 'write')));
      messages.push(toolResult(`toolu${i % 7}`, ok), toolResult(`k-${i}`, ok));
    } else {
      messages.push(assistant([text('a'), toolCall(id), toolCall(`c.${i}`)], { stopReason: 'toolUse' }));
      messages.push(toolResult(id, ok), toolResult(`c.${i}`, ok, { details: { big: 'y'.repeat(300) } }));
    }
    if (i % 11 === 0) messages.push(toolResult(`stray-${i % 3}`, ok));
  }
  return deepFreeze(messages);
}

test('rule §5.5 held mode: output equals the whole-array fold', () => {
  const input = bigTranscript(60);
  const expected = sanitizeToolCallIds(input, 'strict', { preserveNativeAnthropicToolUseIds: true, preserveReplaySafeThinkingToolCallIds: true, allowedToolNames: ['read'] });
  const { output, counts } = runRule(sanitizeToolCallIdsRule, input, {
    policy: THINKING_POLICY,
    options: { ...ANTHROPIC_OPTIONS, allowedToolNames: ['read'] },
  });
  assert.deepEqual(output, expected);
  assert.ok(counts.preservedThinkingTurns! > 0);
  assert.equal(counts.spilledMessages, undefined);
  // Untouched messages kept their identity when nothing spilled.
  assert.equal(output[0], input[0]);
});

test('rule §5.5 held mode with a 1024-byte budget spills and gives identical output', () => {
  const input = bigTranscript(60);
  const inMemory = runRule(sanitizeToolCallIdsRule, input, { policy: THINKING_POLICY, options: ANTHROPIC_OPTIONS });
  const spilled = runRule(sanitizeToolCallIdsRule, input, { policy: THINKING_POLICY, options: { ...ANTHROPIC_OPTIONS, memoryBudgetBytes: 1024 } });
  assert.ok(spilled.counts.spilledMessages! > input.length / 2, `spilled ${spilled.counts.spilledMessages}`);
  assert.deepEqual(spilled.output, inMemory.output);
  const { spilledMessages: _s, ...rest } = spilled.counts;
  assert.deepEqual(rest, inMemory.counts);
  assert.deepEqual(inMemory.output, sanitizeToolCallIds(input, 'strict', { preserveNativeAnthropicToolUseIds: true, preserveReplaySafeThinkingToolCallIds: true }));
  // The later thinking turns own toolu0..toolu6, so earlier toolu-N calls were pushed off them.
  assert.ok(inMemory.output.some((m) => m.role === 'assistant' && ids(m).includes(`toolu4${sha256Hex('toolu-4').slice(0, 8)}`)));
});

test('rule §5.5 held mode: dispose releases the queue without end', () => {
  const chain = createRuleChain(
    [sanitizeToolCallIdsRule],
    { policy: testPolicy(THINKING_POLICY), options: resolveHygieneOptions({ ...ANTHROPIC_OPTIONS, memoryBudgetBytes: 1024 }), stats: new StatsRecorder() },
    () => assert.fail('nothing is emitted before end'),
  );
  for (const m of bigTranscript(10)) chain.write(m);
  chain.dispose();
  chain.dispose();
});
