import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callAsText, renderToolsAsText, renderToolsAsTextRule } from '../../transforms/render-tools-as-text.ts';
import { ruleNamesFor } from '../../lib/pipeline.ts';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, image, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';

const history = (): Message[] =>
  deepFreeze([
    user('read a.md and b.md'),
    assistant([thinking('plan', 'sig'), text('reading'), toolCall('c1', 'read', { path: 'a.md' }), toolCall('c2', 'read', { path: 'b.md' })], { stopReason: 'toolUse' }),
    toolResult('c1', [text('alpha')], { toolName: 'read' }),
    toolResult('c2', [text('no such file')], { toolName: 'read', isError: true }),
    assistant([text('done')]),
    user('summarize'),
  ]);

test('calls become [called NAME ARGS] text in place; a run of results becomes one user message', () => {
  const input = history();
  const out = renderToolsAsText(input);
  assert.equal(out.length, 5);
  assert.equal(out[0], input[0]);
  assert.deepEqual(out[1]!.content, [thinking('plan', 'sig'), text('reading'), text('[called read {"path":"a.md"}]'), text('[called read {"path":"b.md"}]')]);
  assert.deepEqual(out[2], { role: 'user', content: [text('[result of read: alpha]'), text('[error from read: no such file]')] });
});

test('untouched messages are the same objects; images of a result follow its text', () => {
  const input = deepFreeze([user('q'), assistant([toolCall('c1', 'shot')]), toolResult('c1', [image('AAAA'), text('a picture')], { toolName: 'shot' }), assistant([text('ok')])]);
  const out = renderToolsAsText(input);
  assert.equal(out[0], input[0]);
  assert.equal(out[3], input[3]);
  assert.deepEqual(out[2]!.content, [text('[result of shot: a picture]'), image('AAAA')]);
});

test('callAsText: string arguments verbatim, `input` when there are no arguments, a name-less call as tool', () => {
  assert.equal(callAsText({ type: 'toolUse', name: 'ls', input: { d: 1 } }), '[called ls {"d":1}]');
  assert.equal(callAsText({ type: 'toolCall', name: 'ls', arguments: '{"raw"' }), '[called ls {"raw"]');
  assert.equal(callAsText({ type: 'toolCall' }), '[called tool {}]');
});

test('rule: counts calls and results, holds only the result run', () => {
  const { output, counts, emittedAfter } = runRule(renderToolsAsTextRule, history());
  assert.equal(output.length, 5);
  assert.deepEqual(counts, { callsRendered: 2, resultsRendered: 2 });
  assert.deepEqual(emittedAfter, [1, 2, 2, 2, 4, 5, 5]);
});

test('pipeline: only with tools: false; the output has no tool block left on any route', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  assert.equal(ruleNamesFor(route).includes('render-tools-as-text'), false);
  assert.equal(ruleNamesFor({ ...route, tools: false }).includes('render-tools-as-text'), true);
  const out = await hygieneOutput(history(), { ...route, tools: false });
  const json = JSON.stringify(out);
  assert.doesNotMatch(json, /"toolCall"|"toolResult"/);
  assert.deepEqual(checkTranscript(out, { ...route, tools: false }), []);
  assert.notDeepEqual(checkTranscript(history(), { ...route, tools: false }), []);
});

function wireHasToolBlocks(body: unknown): boolean {
  return /"tool_use"|"tool_result"|"toolUse"|"toolResult"/.test(JSON.stringify(body));
}

test('through pi-ai: the Anthropic request without tools carries no tool_use/tool_result, and keeps the content', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const model = piModel('anthropic', 'claude-sonnet-4-5');
  assert.equal(wireHasToolBlocks(await piPayload(model, history())), true, 'the raw history sends tool blocks');
  const body = await piPayload(model, await hygieneOutput(history(), { ...route, tools: false }));
  assert.equal(wireHasToolBlocks(body), false);
  assert.equal('tools' in body && Array.isArray(body.tools) && body.tools.length > 0, false);
  const wire = JSON.stringify(body.messages);
  assert.match(wire, /\[called read \{\\"path\\":\\"a.md\\"\}\]/);
  assert.match(wire, /\[result of read: alpha\]/);
});

test('through pi-ai: the Bedrock Converse request without toolConfig carries no toolUse/toolResult and alternates', async () => {
  const route = { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
  const model = piModel('amazon-bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0');
  const body = await piPayload(model, await hygieneOutput(history(), { ...route, tools: false }));
  assert.equal(wireHasToolBlocks(body), false);
  assert.equal(body.toolConfig, undefined);
  const roles = (body.messages as Array<{ role: string }>).map((m) => m.role);
  roles.forEach((role, i) => assert.notEqual(role, roles[i - 1], `messages ${i - 1} and ${i} are both ${role}`));
});
