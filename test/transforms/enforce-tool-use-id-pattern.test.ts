import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TOOL_USE_ID_PATTERNS,
  enforceToolUseIdPattern,
  enforceToolUseIdPatternRule,
  ToolUseIdEnforcer,
  couldBeAllocatedId,
} from '../../transforms/enforce-tool-use-id-pattern.ts';
import { sha256Hex } from '../../transforms/tool-call-shapes.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { JsonlLineParser, stringifyMessage } from '../../lib/jsonl.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const call = (id: string): Record<string, unknown> => ({ type: 'toolCall', id, name: 'read', arguments: {} });
const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse' });
const R = (id: string, extra: Record<string, unknown> = {}): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [], ...extra });
const U = (text: string): Message => ({ role: 'user', content: text });
const idsOf = (message: Message): string[] => (message.content as Array<{ id: string }>).map((block) => block.id);
const expectedId = (raw: string, occurrence: number, attempt = 0): string =>
  `${raw.replace(/[^a-zA-Z0-9]/g, '').slice(0, 28)}${sha256Hex(`${raw}:${occurrence}:${attempt}`).slice(0, 12)}`;

test('a Kimi-native id is replaced in the call and in the results that answer it', () => {
  const input = deepFreeze([U('q'), A(call('functions.read:0'), call('toolu_ok')), R('functions.read:0', { call_id: 'functions.read:0' }), R('toolu_ok'), U('next')]);
  const out = enforceToolUseIdPattern(input, 'anthropic');
  const next = expectedId('functions.read:0', 1);
  assert.match(next, TOOL_USE_ID_PATTERNS.anthropic);
  assert.match(next, TOOL_USE_ID_PATTERNS['openai-chat']);
  assert.match(next, /^[a-zA-Z0-9]{1,40}$/, 'an id the strict sanitizer keeps: a second run changes nothing');
  assert.deepEqual(idsOf(out[1]!), [next, 'toolu_ok']);
  assert.deepEqual(out[2], { ...input[2], toolCallId: next, call_id: next });
  assert.equal(out[3], input[3], 'a result with a valid id is the same object');
  assert.equal(out[0], input[0]);
});

test('the same bad id called twice gets two ids; each result takes its own, in order', () => {
  const out = enforceToolUseIdPattern(deepFreeze([A(call('a.b')), R('a.b'), A(call('a.b')), R('a.b')]), 'anthropic');
  const first = expectedId('a.b', 1);
  const second = expectedId('a.b', 2);
  assert.notEqual(first, second);
  assert.deepEqual([idsOf(out[0]!)[0], out[1]!.toolCallId, idsOf(out[2]!)[0], out[3]!.toolCallId], [first, first, second, second]);
});

test('Bedrock: an id over 64 characters is replaced (Anthropic keeps it); a taken candidate moves to the next attempt', () => {
  const long = 'x'.repeat(65);
  const taken = expectedId('||', 1, 0);
  const input = deepFreeze([A(call(taken)), R(taken), A(call(long), call('||'), call('functions.read:0')), R(long), R('||'), R('functions.read:0')]);
  assert.deepEqual(idsOf(enforceToolUseIdPattern(input, 'anthropic')[2]!)[0], long);
  const out = enforceToolUseIdPattern(input, 'bedrock');
  assert.deepEqual(idsOf(out[2]!), [expectedId(long, 1), expectedId('||', 1, 1), 'functions.read:0'], 'a Kimi id fits the relaxed pattern');
  assert.equal(out[3]!.toolCallId, expectedId(long, 1));
  assert.equal(out[4]!.toolCallId, expectedId('||', 1, 1));
  assert.equal(out[5], input[5]);
  for (const id of idsOf(out[2]!)) assert.match(id, TOOL_USE_ID_PATTERNS.bedrock);
});

test('the collision check holds only ids shaped like an allocated one, and still sees those', () => {
  const enforcer = new ToolUseIdEnforcer('anthropic', () => {});
  const out: Message[] = [];
  for (let i = 0; i < 1000; i++) enforcer.push(A(call(`toolu_01${i}`), call(`call${i}x`)), (m) => out.push(m));
  assert.equal(enforcer.heldIds, 0, 'ids with `_`, or not ending in 12 hex digits, can never equal an allocated id');
  const taken = expectedId('a.b', 1, 0);
  assert.equal(couldBeAllocatedId(taken), true);
  enforcer.push(A(call(taken)), (m) => out.push(m));
  assert.equal(enforcer.heldIds, 1);
  enforcer.push(A(call('a.b')), (m) => out.push(m));
  assert.deepEqual(idsOf(out.at(-1)!), [expectedId('a.b', 1, 1)], 'the taken candidate moves to the next attempt');
  for (const id of ['abc', 'x'.repeat(28) + '0123456789ab', '0123456789ab', 'ABCDEF0123456789ab']) assert.equal(couldBeAllocatedId(id), /^[A-Za-z0-9]{0,28}[0-9a-f]{12}$/.test(id), id);
  for (const id of ['x'.repeat(29) + '0123456789ab', '0123456789aB', 'a_0123456789ab', '123456789ab']) assert.equal(couldBeAllocatedId(id), false, id);
});

test('a bad result id that answers no rewritten call is left for drop-orphaned-tool-results', () => {
  const input = deepFreeze([A(call('ok')), R('ok'), R('stray.id')]);
  const { output, counts } = runRule(enforceToolUseIdPatternRule, input, { policy: { enforceToolUseIdPattern: 'anthropic' } });
  assert.deepEqual(output, input);
  assert.deepEqual(counts, {});
});

test('the rule counts, and patches the original line instead of stringifying the turn', () => {
  const line = '{"role":"assistant","content":[{"type":"text","text":"go"},{"type":"toolCall","id":"functions.bash:3","name":"bash","arguments":{"cmd":"ls"}}],"stopReason":"toolUse"}';
  // Anthropic's pattern: Bedrock keeps this id since its pattern was relaxed.
  const parsed = new JsonlLineParser().parse(line)!;
  const { output, counts } = runRule(enforceToolUseIdPatternRule, [parsed, R('functions.bash:3')], { policy: { enforceToolUseIdPattern: 'anthropic' } });
  assert.deepEqual(counts, { idsRewritten: 1, resultsRewritten: 1 });
  assert.equal(stringifyMessage(output[0]!), JSON.stringify(output[0]) + '\n');
  assert.equal(stringifyMessage(output[0]!), line.replace('functions.bash:3', expectedId('functions.bash:3', 1)) + '\n');
});

test('through the pipeline: a session that switched from Kimi to Claude replays with ids Claude accepts; Bedrock and MiniMax keep them', async () => {
  const session = [U('q'), A(call('functions.read:0')), R('functions.read:0'), U('again'), A(call('functions.read:1')), R('functions.read:1'), U('done?')];
  const ids = (out: Message[]): string[] => out.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId as string);
  for (const route of [
    { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
    { provider: 'google-antigravity', modelApi: 'google-gemini-cli', modelId: 'claude-sonnet-4-5' },
  ]) {
    assert.ok(checkTranscript(session, route).some((v) => v.rule.endsWith('/tool-use-id-pattern')), `${route.provider}: the input breaks the pattern`);
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], route.provider);
    assert.equal(ids(out).length, 2, 'both results kept, none synthetic');
    assert.ok(ids(out).every((id) => TOOL_USE_ID_PATTERNS.anthropic.test(id)), route.provider);
    assert.ok(out.filter((m) => m.role === 'toolResult').every((m) => (m.content as Array<{ text: string }>)[0]?.text !== undefined && !(m.isError === true)));
  }
  // Ids the provider accepts are not rewritten: Bedrock's relaxed pattern, MiniMax's own ids.
  for (const route of [
    { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
    { provider: 'minimax', modelApi: 'anthropic-messages', modelId: 'MiniMax-M2' },
  ]) {
    assert.ok(!checkTranscript(session, route).some((v) => v.rule.endsWith('/tool-use-id-pattern')), route.provider);
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], route.provider);
    assert.ok(ids(out).includes('functions.read:0'), `${route.provider}: ${ids(out).join(', ')}`);
  }
});

test('OpenAI chat completions: an id over 40 characters gets a new one, its result with it', async () => {
  const long = `call_${'a'.repeat(41)}`;
  const route = { provider: 'github-copilot', modelApi: 'openai-completions', modelId: 'gpt-4o' };
  const session = [U('q'), A(call(long)), R(long), U('next')];
  assert.deepEqual(checkTranscript(session, route).map((v) => v.rule), ['chat-completions/tool-call-id-length', 'chat-completions/tool-call-id-length']);
  const out = await sanitizeSessionHistory(structuredClone(session), route);
  assert.deepEqual(checkTranscript(out, route), []);
  assert.equal(idsOf(out[1]!)[0], out[2]!.toolCallId);
  assert.ok((out[2]!.toolCallId as string).length <= 40);
});
