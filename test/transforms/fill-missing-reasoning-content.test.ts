import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MISSING_REASONING_TEXT, fillMissingReasoningContent, fillMissingReasoningContentRule } from '../../transforms/fill-missing-reasoning-content.ts';
import { isDeepSeekThinkingModel, resolveTranscriptPolicy } from '../../lib/policy.ts';
import { ruleNamesFor } from '../../lib/pipeline.ts';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';

const DEEPSEEK = { provider: 'deepseek', modelApi: 'openai-completions', modelId: 'deepseek-v4-pro' };
const OPENROUTER = { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'deepseek/deepseek-v4-pro' };
const own = (route: typeof DEEPSEEK) => ({ provider: route.provider, api: route.modelApi, model: route.modelId });

test('the DeepSeek thinking models, by the last segment of the id; their reasoning is kept on chat completions', () => {
  for (const id of ['deepseek-v4-pro', 'deepseek-v4-flash', 'deepseek-reasoner', 'deepseek/deepseek-v4-pro', 'openrouter/deepseek/deepseek-v4-flash', 'deepseek-ai/DeepSeek-V4-Pro', 'accounts/fireworks/models/deepseek-v4-pro']) {
    assert.equal(isDeepSeekThinkingModel(id), true, id);
  }
  for (const id of ['deepseek-chat', 'deepseek-v3.2', 'gpt-4o', 'kimi-k2.5']) assert.equal(isDeepSeekThinkingModel(id), false, id);
  // Before issue 29 the transport fallback dropped a DeepSeek route's reasoning unless `reasoning` was set.
  assert.equal(resolveTranscriptPolicy(DEEPSEEK).dropReasoningFromHistory, false);
  assert.equal(resolveTranscriptPolicy(DEEPSEEK).fillMissingReasoningContent, true);
  assert.equal(resolveTranscriptPolicy(OPENROUTER).fillMissingReasoningContent, true);
  assert.equal(resolveTranscriptPolicy({ provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' }).fillMissingReasoningContent, false);
  assert.equal(ruleNamesFor(DEEPSEEK).includes('fill-missing-reasoning-content'), true);
});

test('a tool-call turn of another model without reasoning is sent as the route\'s own, with the placeholder', () => {
  const turn = deepFreeze(assistant([text('looking'), toolCall('c1', 'read', { path: 'a' })], { provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5' }));
  const { message, outcome } = fillMissingReasoningContent(turn, DEEPSEEK);
  assert.equal(outcome, 'filled');
  assert.deepEqual(message, assistant([thinking(MISSING_REASONING_TEXT, 'reasoning_content'), text('looking'), toolCall('c1', 'read', { path: 'a' })], own(DEEPSEEK)));
});

test('another model\'s reasoning is kept as reasoning; its thoughtSignature and signatures go', () => {
  const turn = deepFreeze(assistant([thinking('plan A', 'c2lnbmF0dXJl'), { ...toolCall('c1'), thoughtSignature: 'Zm9v' }], { provider: 'google', api: 'google-generative-ai', model: 'gemini-3-pro-preview' }));
  const { message, outcome } = fillMissingReasoningContent(turn, DEEPSEEK);
  assert.equal(outcome, 'relabelled');
  assert.deepEqual(message.content, [thinking('plan A', 'reasoning_content'), toolCall('c1')]);
});

test('own turns: sent reasoning is the same object; unnamed reasoning is named; turns without calls are left alone', () => {
  const sent = deepFreeze(assistant([thinking('r', 'reasoning_content'), toolCall('c1')], own(DEEPSEEK)));
  assert.equal(fillMissingReasoningContent(sent, DEEPSEEK).message, sent);
  const unnamed = deepFreeze(assistant([thinking('r'), toolCall('c1')], own(DEEPSEEK)));
  assert.deepEqual(fillMissingReasoningContent(unnamed, DEEPSEEK), { message: assistant([thinking('r', 'reasoning_content'), toolCall('c1')], own(DEEPSEEK)), outcome: 'signed' });
  const plain = deepFreeze(assistant([text('hi')], { provider: 'anthropic' }));
  assert.equal(fillMissingReasoningContent(plain, DEEPSEEK).message, plain);
});

const switched = (): Message[] =>
  deepFreeze([
    user('read a'),
    assistant([text('reading'), toolCall('c1', 'read', { path: 'a' })], { provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5', stopReason: 'toolUse' }),
    toolResult('c1', [text('alpha')], { toolName: 'read' }),
    assistant([thinking('now b', 'reasoning_content'), toolCall('c2', 'read', { path: 'b' })], { ...own(DEEPSEEK), stopReason: 'toolUse' }),
    toolResult('c2', [text('beta')], { toolName: 'read' }),
  ]);

test('rule and check: the switched turn is reported as chat-completions/reasoning-content-missing, then filled', async () => {
  assert.deepEqual(checkTranscript(switched(), DEEPSEEK).map((v) => [v.rule, v.index]), [['chat-completions/reasoning-content-missing', 1]]);
  const { counts } = runRule(fillMissingReasoningContentRule, switched(), { options: DEEPSEEK, policy: { fillMissingReasoningContent: true } });
  assert.deepEqual(counts, { filled: 1 });
  assert.deepEqual(checkTranscript(await hygieneOutput(switched(), DEEPSEEK), DEEPSEEK), []);
});

type WireMessage = { role: string; tool_calls?: unknown[]; reasoning_content?: string };

const HUGGINGFACE = { provider: 'huggingface', modelApi: 'openai-completions', modelId: 'deepseek-ai/DeepSeek-V4-Pro' };

test('through pi-ai: on a relay whose catalogue entry has no DeepSeek compat (Hugging Face) the raw history sends a tool-call turn without reasoning_content; the cleaned one does not', async () => {
  const model = piModel('huggingface', 'deepseek-ai/DeepSeek-V4-Pro');
  assert.equal((model.compat as { requiresReasoningContentOnAssistantMessages?: boolean } | undefined)?.requiresReasoningContentOnAssistantMessages, undefined);
  const history = switched().map((m) => (m.role === 'assistant' && m.provider === 'deepseek' ? { ...m, ...own(HUGGINGFACE) } : m));
  const calls = (body: Record<string, unknown>): WireMessage[] => (body.messages as WireMessage[]).filter((m) => m.role === 'assistant' && m.tool_calls !== undefined);
  const raw = calls(await piPayload(model, history));
  assert.deepEqual(raw.map((m) => m.reasoning_content), [undefined, 'now b']);
  const cleaned = calls(await piPayload(model, await hygieneOutput(history, HUGGINGFACE)));
  assert.deepEqual(cleaned.map((m) => m.reasoning_content), [MISSING_REASONING_TEXT, 'now b']);
});

test('through pi-ai: OpenRouter\'s and opencode-go\'s catalogue entries carry the compat, so there too the builder adds an empty reasoning_content', async () => {
  for (const [provider, id] of [['openrouter', 'deepseek/deepseek-v4-pro'], ['opencode-go', 'deepseek-v4-pro']] as const) {
    const model = piModel(provider, id);
    assert.equal((model.compat as { requiresReasoningContentOnAssistantMessages?: boolean } | undefined)?.requiresReasoningContentOnAssistantMessages, true, provider);
    const route = { provider, modelApi: 'openai-completions', modelId: id };
    const body = await piPayload(model, await hygieneOutput(switched(), route));
    const calls = (body.messages as WireMessage[]).filter((m) => m.role === 'assistant' && m.tool_calls !== undefined);
    assert.deepEqual(calls.map((m) => typeof m.reasoning_content), ['string', 'string'], provider);
  }
  assert.equal(OPENROUTER.provider, 'openrouter');
});

test('through pi-ai: on provider deepseek the builder adds an empty reasoning_content itself (compat), and the cleaned copy still sends one', async () => {
  const model = piModel('deepseek', 'deepseek-v4-pro');
  const calls = (body: Record<string, unknown>): WireMessage[] => (body.messages as WireMessage[]).filter((m) => m.role === 'assistant' && m.tool_calls !== undefined);
  assert.deepEqual(calls(await piPayload(model, switched())).map((m) => m.reasoning_content), ['', 'now b']);
  assert.deepEqual(calls(await piPayload(model, await hygieneOutput(switched(), DEEPSEEK))).map((m) => m.reasoning_content), [MISSING_REASONING_TEXT, 'now b']);
});

test('through pi-ai: which field the completions builder emits for reasoning, and when', async () => {
  const model = piModel('huggingface', 'deepseek-ai/DeepSeek-V4-Pro');
  const mine = own(HUGGINGFACE);
  const turn = (blocks: Message['content'], extra: Record<string, unknown> = mine): Message[] => [user('q'), assistant(blocks as never, { ...extra, stopReason: 'toolUse' }), toolResult('c1', [text('r')], { toolName: 'read' })];
  const sent = async (messages: Message[], compat?: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const m = compat === undefined ? model : { ...model, compat: { ...(model.compat ?? {}), ...compat } as never };
    return ((await piPayload(m, messages)).messages as Array<Record<string, unknown>>).find((x) => x.role === 'assistant')!;
  };
  // The field is the thinking block's signature: reasoning_content (DeepSeek), reasoning (OpenRouter), any other name.
  assert.equal((await sent(turn([thinking('r1', 'reasoning_content'), toolCall('c1')])))['reasoning_content'], 'r1');
  assert.equal((await sent(turn([thinking('r1', 'reasoning'), toolCall('c1')])))['reasoning'], 'r1');
  // No signature: nothing; another model's thinking: text content, no field.
  const unsigned = await sent(turn([thinking('r1'), toolCall('c1')]));
  assert.deepEqual(Object.keys(unsigned).filter((k) => k.startsWith('reasoning')), []);
  const foreign = await sent(turn([thinking('r1', 'reasoning_content'), toolCall('c1')], { provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5' }));
  assert.equal(foreign['reasoning_content'], undefined);
  assert.equal(foreign.content, 'r1');
  // reasoning_details: from a call's thoughtSignature when it is JSON (OpenRouter's encrypted reasoning).
  const details = await sent(turn([{ ...toolCall('c1'), thoughtSignature: '{"type":"reasoning.encrypted","data":"x"}' }]));
  assert.deepEqual(details['reasoning_details'], [{ type: 'reasoning.encrypted', data: 'x' }]);
  // compat requiresReasoningContentOnAssistantMessages: an empty reasoning_content on every assistant message.
  assert.equal((await sent(turn([toolCall('c1')]), { requiresReasoningContentOnAssistantMessages: true }))['reasoning_content'], '');
  // compat requiresThinkingAsText: thinking goes out as text, never as a field.
  const asText = await sent(turn([thinking('r1', 'reasoning_content'), toolCall('c1')]), { requiresThinkingAsText: true });
  assert.equal(asText['reasoning_content'], undefined);
});

test('a tool-call turn merged into an earlier text turn of another model is filled again after the merge', async () => {
  // The fill runs on each turn before the validate step merges consecutive assistants; the merged
  // turn keeps the first turn's fields (no model here), so without a second fill its calls would
  // go out with the reasoning as plain text (found by the property tests).
  const input = deepFreeze([
    user('answer'),
    { role: 'assistant', content: [text('x y')], stopReason: 'toolUse', timestamp: 2 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: 'read', arguments: { p: 1 } }], stopReason: 'stop', timestamp: 3 },
  ] as Message[]);
  const out = await hygieneOutput(input, DEEPSEEK);
  assert.deepEqual(checkTranscript(out, DEEPSEEK), []);
  const merged = out[1]!;
  assert.equal(merged.model, DEEPSEEK.modelId);
  assert.deepEqual((merged.content as Array<{ type: string }>).map((block) => block.type), ['thinking', 'text', 'toolCall']);
  assert.deepEqual(await hygieneOutput(out, DEEPSEEK), out, 'a second run changes nothing');
});
