import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignToolResultIds, alignToolResultIdsRule } from '../../transforms/align-tool-result-ids.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { JsonlLineParser, stringifyMessage } from '../../lib/jsonl.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const R = (fields: Record<string, unknown>): Message => ({ role: 'toolResult', toolName: 'read', content: [{ type: 'text', text: 'ok' }], ...fields });

const cases: Array<[string, Message, Record<string, unknown>]> = [
  ['a padded toolCallId is trimmed', R({ toolCallId: ' a ' }), { toolCallId: 'a' }],
  ['an alias-only id gets a toolCallId', R({ call_id: 'b' }), { call_id: 'b', toolCallId: 'b' }],
  ['a blank toolCallId takes the alias', R({ toolCallId: '', tool_use_id: ' c' }), { toolCallId: 'c', tool_use_id: 'c' }],
  ['fields that disagree all take the pairing id (toolCallId first)', R({ toolCallId: 'a', call_id: 'z', toolUseId: 'q' }), { toolCallId: 'a', call_id: 'a', toolUseId: 'a' }],
  ['a non-string toolCallId is replaced', R({ toolCallId: 5, callId: 'd' }), { toolCallId: 'd', callId: 'd' }],
  ['no pairing id: whitespace-only fields are emptied, other values left', R({ call_id: ' ', toolCallId: '\t', toolUseId: 7 }), { call_id: '', toolCallId: '', toolUseId: 7 }],
];

for (const [name, input, ids] of cases) {
  test(`alignToolResultIds: ${name}`, () => {
    const out = alignToolResultIds(deepFreeze(structuredClone(input)));
    assert.deepEqual(out, { ...input, ...ids });
  });
}

test('results already aligned, results without any id and other roles are the same objects', () => {
  for (const message of [R({ toolCallId: 'a', call_id: 'a' }), R({}), R({ toolCallId: '' }), { role: 'user', content: 'x', toolCallId: ' a ' } as Message]) {
    const frozen = deepFreeze(message);
    assert.equal(alignToolResultIds(frozen), frozen);
  }
});

test('the rule counts, and patches the original line when only string ids change', () => {
  const line = '{"role":"toolResult","toolCallId":" a ","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}';
  const { output, counts } = runRule(alignToolResultIdsRule, [new JsonlLineParser().parse(line)!]);
  assert.deepEqual(counts, { aligned: 1 });
  assert.equal(stringifyMessage(output[0]!), line.replace('" a "', '"a"') + '\n');
});

test('OpenAI Responses: a blank toolCallId with the id in an alias answers its call instead of going out as call_id ""', async () => {
  const route = { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' };
  for (const alias of ['call_id', 'tool_use_id', 'toolUseId']) {
    const session: Message[] = [
      { role: 'user', content: 'q', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'call_a|fc_1', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 2 },
      R({ toolCallId: '', [alias]: 'call_a|fc_1', timestamp: 3 }),
      { role: 'user', content: 'next', timestamp: 4 },
    ];
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], alias);
    const result = out.find((m) => m.role === 'toolResult')!;
    assert.equal(result.toolCallId, 'call_a', alias);
    assert.deepEqual(result.content, [{ type: 'text', text: 'ok' }], `${alias}: the real output is kept`);
  }
});

test('through the pipeline: a padded or alias-only result id answers its call instead of being orphaned', async () => {
  const session: Message[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {} }, { type: 'toolCall', id: 'toolu_2', name: 'read', arguments: {} }], stopReason: 'toolUse' },
    R({ toolCallId: ' toolu_1 ' }),
    R({ tool_use_id: 'toolu_2' }),
    { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop' },
  ];
  for (const route of [
    { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
    { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
    { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
  ]) {
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], route.provider);
    const results = out.filter((m) => m.role === 'toolResult');
    assert.equal(results.length, 2, route.provider);
    assert.ok(results.every((m) => (m.content as Array<{ text: string }>)[0]!.text === 'ok'), `${route.provider}: the real results, not synthetic ones`);
  }
});
