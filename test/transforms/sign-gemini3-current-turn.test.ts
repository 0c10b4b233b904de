import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SKIP_SIGNATURE_SENTINEL, repairCurrentTurn, signGemini3CurrentTurnRule } from '../../transforms/sign-gemini3-current-turn.ts';
import { isGemini3OrLater, resolveTranscriptPolicy } from '../../lib/policy.ts';
import { ruleNamesFor } from '../../lib/pipeline.ts';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';

const ROUTE = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-3-pro-preview' };
const GEMINI = { provider: 'google', api: 'google-generative-ai', model: 'gemini-3-pro-preview' };
const CLAUDE = { provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5' };
const SIG = 'c2lnbmF0dXJlMQ==';
const signed = (id: string, name = 'read', args: unknown = {}) => ({ ...toolCall(id, name, args), thoughtSignature: SIG });

/** An older turn by Claude, then the current turn: a Claude step (unsigned), then a signed Gemini step. */
const switched = (): Message[] =>
  deepFreeze([
    user('first task'),
    assistant([toolCall('old1', 'ls', { d: '.' })], { ...CLAUDE, stopReason: 'toolUse' }),
    toolResult('old1', [text('a.md')], { toolName: 'ls' }),
    assistant([text('done')], CLAUDE),
    user('read a.md then b.md'),
    assistant([text('reading a'), toolCall('c1', 'read', { path: 'a.md' })], { ...CLAUDE, stopReason: 'toolUse' }),
    toolResult('c1', [text('alpha')], { toolName: 'read' }),
    assistant([signed('c2', 'read', { path: 'b.md' })], { ...GEMINI, stopReason: 'toolUse' }),
    toolResult('c2', [text('beta')], { toolName: 'read' }),
  ]);

test('Gemini 3 and later, on every api that sends Gemini contents', () => {
  for (const id of ['gemini-3-pro-preview', 'gemini-3.1-flash-lite-preview', 'google/gemini-3-pro-preview', 'gemini-4-pro']) assert.equal(isGemini3OrLater(id), true, id);
  for (const id of ['gemini-2.5-pro', 'claude-sonnet-4-5', 'gemini-live-2.5-flash']) assert.equal(isGemini3OrLater(id), false, id);
  for (const [provider, modelApi] of [['google', 'google-generative-ai'], ['google-vertex', 'google-vertex'], ['google-gemini-cli', 'google-gemini-cli'], ['google-antigravity', 'google-gemini-cli']]) {
    assert.equal(resolveTranscriptPolicy({ provider, modelApi, modelId: 'gemini-3-pro-preview' }).signGemini3CurrentTurn, true, provider);
  }
  assert.equal(resolveTranscriptPolicy({ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }).signGemini3CurrentTurn, false);
  assert.equal(resolveTranscriptPolicy({ provider: 'openrouter', modelApi: 'openai-completions', modelId: 'google/gemini-3-pro-preview' }).signGemini3CurrentTurn, false);
  assert.equal(ruleNamesFor(ROUTE).includes('sign-gemini3-current-turn'), true);
});

test('the current turn\'s unsigned step becomes text with its results; the signed step and the older turn stay calls', () => {
  const input = switched();
  const counts = { stepsAsText: 0, callsAsText: 0, resultsAsText: 0, sentinels: 0 };
  const out = repairCurrentTurn(input.slice(5), { provider: 'google', modelId: 'gemini-3-pro-preview' }, 'text', counts);
  assert.deepEqual(out[0]!.content, [text('reading a'), text('[called read {"path":"a.md"}]')]);
  assert.deepEqual(out[1], { role: 'user', content: [text('[result of read: alpha]')] });
  assert.equal(out[2], input[7]);
  assert.equal(out[3], input[8]);
  assert.deepEqual(counts, { stepsAsText: 1, callsAsText: 1, resultsAsText: 1, sentinels: 0 });
});

test('rule: the older turn passes as it came, the current turn is held to the end; sentinel mode signs the first call only', () => {
  const input = switched();
  const { output, counts, emittedAfter } = runRule(signGemini3CurrentTurnRule, input, { options: ROUTE });
  assert.deepEqual(output.slice(0, 5), input.slice(0, 5));
  for (let i = 0; i < 5; i++) assert.equal(output[i], input[i]);
  assert.deepEqual(emittedAfter.slice(0, 6), [1, 1, 1, 1, 5, 5]);
  assert.deepEqual(counts, { stepsAsText: 1, callsAsText: 1, resultsAsText: 1 });
  const two = deepFreeze([user('go'), assistant([toolCall('a', 'x'), toolCall('b', 'y')], CLAUDE)]);
  const sentinel = runRule(signGemini3CurrentTurnRule, two, { options: { ...ROUTE, unsignedGeminiCalls: 'sentinel' } });
  assert.deepEqual(sentinel.output[1]!.content, [{ ...toolCall('a', 'x'), thoughtSignature: SKIP_SIGNATURE_SENTINEL }, toolCall('b', 'y')]);
  assert.deepEqual(sentinel.counts, { sentinels: 1 });
});

test('check: gemini/unsigned-function-call names the current turn\'s unsigned step only; clean after hygiene', async () => {
  assert.deepEqual(checkTranscript(switched(), ROUTE).map((v) => [v.rule, v.index]), [['gemini/unsigned-function-call', 5]]);
  assert.deepEqual(checkTranscript(switched(), { ...ROUTE, modelId: 'gemini-2.5-pro' }).filter((v) => v.rule === 'gemini/unsigned-function-call'), []);
  assert.deepEqual(checkTranscript(await hygieneOutput(switched(), ROUTE), ROUTE), []);
});

type Part = { text?: string; functionCall?: { name: string }; functionResponse?: unknown; thoughtSignature?: string };
type Content = { role: string; parts: Part[] };

/** Each step of the current turn (after the last user text part) whose first function call has no signature. */
function unsignedCurrentSteps(contents: Content[]): number {
  let start = 0;
  contents.forEach((content, i) => {
    if (content.role === 'user' && content.parts.some((part) => typeof part.text === 'string' && part.text.trim() !== '')) start = i + 1;
  });
  return contents.slice(start).filter((content) => {
    const first = content.parts.find((part) => part.functionCall !== undefined);
    return content.role === 'model' && first !== undefined && first.thoughtSignature === undefined;
  }).length;
}

for (const [provider, modelApi] of [['google', 'google-generative-ai'], ['google-vertex', 'google-vertex']] as const) {
  test(`through pi-ai (${provider}): the raw history sends an unsigned call in the current turn; the cleaned one sends none, keeps the signed call and the older calls`, async () => {
    const model = piModel(provider, 'gemini-3-pro-preview');
    const route = { provider, modelApi, modelId: 'gemini-3-pro-preview' };
    const history = switched().map((m) => (m.provider === 'google' ? { ...m, provider, api: modelApi } : m));
    const raw = (await piPayload(model, history)).contents as Content[];
    assert.equal(unsignedCurrentSteps(raw), 1);
    const body = await piPayload(model, await hygieneOutput(history, route));
    const contents = body.contents as Content[];
    assert.equal(unsignedCurrentSteps(contents), 0);
    const calls = contents.flatMap((c) => c.parts).filter((p) => p.functionCall !== undefined);
    assert.deepEqual(calls.map((p) => [p.functionCall!.name, p.thoughtSignature]), [['ls', undefined], ['read', SIG]]);
    assert.match(JSON.stringify(contents), /\[called read \{\\"path\\":\\"a.md\\"\}\]/);
    assert.match(JSON.stringify(contents), /\[result of read: alpha\]/);
  });
}

test('through pi-ai: the sentinel never reaches the wire (why text is the default)', async () => {
  const model = piModel('google', 'gemini-3-pro-preview');
  const out = await hygieneOutput(switched(), { ...ROUTE, unsignedGeminiCalls: 'sentinel' });
  assert.equal(JSON.stringify(out).includes(SKIP_SIGNATURE_SENTINEL), true);
  const body = await piPayload(model, out);
  assert.equal(JSON.stringify(body).includes(SKIP_SIGNATURE_SENTINEL), false);
  assert.equal(unsignedCurrentSteps(body.contents as Content[]), 1);
});

test('another Gemini model\'s signature, and a signature that is not base64, count as unsigned (pi-ai sends neither)', () => {
  const route = { provider: 'google', modelId: 'gemini-3-pro-preview' };
  const otherModel = deepFreeze(assistant([signed('a')], { ...GEMINI, model: 'gemini-2.5-pro' }));
  const notBase64 = deepFreeze(assistant([{ ...toolCall('b'), thoughtSignature: 'not base64!' }], GEMINI));
  const own = deepFreeze(assistant([signed('c')], GEMINI));
  const counts = { stepsAsText: 0, callsAsText: 0, resultsAsText: 0, sentinels: 0 };
  const out = repairCurrentTurn([otherModel, notBase64, own], route, 'text', counts);
  assert.deepEqual(out.map((m) => (m.content as Array<{ type: string }>)[0]!.type), ['text', 'text', 'toolCall']);
  assert.equal(out[2], own);
});
