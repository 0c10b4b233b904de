import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enforceToolNamePattern, enforceToolNamePatternRule, toolNameNote } from '../../transforms/enforce-tool-name-pattern.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { acceptedToolName } from '../../lib/tool-names.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const MCP = 'mcp.s3/list_objects';
const call = (id: string, name: unknown = 'read'): Record<string, unknown> => ({ type: 'toolCall', id, name, arguments: {} });
const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse' });
const R = (id: string, toolName: string, content: unknown = [{ type: 'text', text: 'out' }]): Message => ({ role: 'toolResult', toolCallId: id, toolName, content, isError: false } as Message);
const U = (text: string): Message => ({ role: 'user', content: text });
const namesOf = (message: Message): unknown[] => (message.content as Array<{ name: unknown }>).map((block) => block.name);

test('strict route: a name outside [a-zA-Z0-9_-]{1,64} is replaced; its result follows and says the original name', () => {
  const input = deepFreeze([U('q'), A(call('a', MCP), call('b')), R('a', MCP), R('b', 'read')]);
  const out = enforceToolNamePattern(input, 'strict');
  assert.deepEqual(namesOf(out[1]!), ['mcp_s3_list_objects', 'read']);
  assert.deepEqual(out[2], { ...input[2], toolName: 'mcp_s3_list_objects', content: [{ type: 'text', text: toolNameNote(MCP) }, { type: 'text', text: 'out' }] });
  assert.equal(toolNameNote(MCP), '[tool name: mcp.s3/list_objects]');
  assert.equal(out[3], input[3], 'a result of a call with a valid name is the same object');
  assert.equal(out[0], input[0]);
  assert.deepEqual(enforceToolNamePattern(out, 'strict'), out, 'a second run changes nothing');
});

test('claude route: any non-blank name up to 200 characters stays as it is; blank and longer ones do not', () => {
  const long = 'x'.repeat(201);
  const input = deepFreeze([A(call('a', MCP), call('b', 'list files'), call('c', ''), call('d', long)), R('a', MCP), R('b', 'list files'), R('c', ''), R('d', long)]);
  const out = enforceToolNamePattern(input, 'claude');
  assert.deepEqual(namesOf(out[0]!), [MCP, 'list files', 'unnamed_tool', acceptedToolName(long)]);
  assert.equal(out[1], input[1]);
  assert.equal(out[2], input[2]);
  assert.deepEqual(out[3], { ...input[3], toolName: 'unnamed_tool' }, 'nothing readable to keep: no note');
  assert.equal(out[4]!.toolName, acceptedToolName(long));
  assert.deepEqual((out[4]!.content as unknown[])[0], { type: 'text', text: toolNameNote(long) });
});

test('gemini route: dots and colons stay; a leading digit does not', () => {
  const input = deepFreeze([A(call('a', 'ns:tool.v-1'), call('b', '1read')), R('a', 'ns:tool.v-1'), R('b', '1read')]);
  const out = enforceToolNamePattern(input, 'gemini');
  assert.deepEqual(namesOf(out[0]!), ['ns:tool.v-1', '_1read']);
  assert.equal(out[1], input[1]);
  assert.equal(out[2]!.toolName, '_1read');
  assert.deepEqual(enforceToolNamePattern(input, 'strict').map((m) => m.role === 'assistant' ? namesOf(m) : m.toolName), [['ns_tool_v-1', '1read'], 'ns_tool_v-1', '1read']);
});

test('string content gets the note as a first line; a note for a huge name is cut at 200 characters', () => {
  const out = enforceToolNamePattern(deepFreeze([A(call('a', 'a b')), R('a', 'a b', 'plain')]), 'strict');
  assert.equal(out[1]!.content, '[tool name: a b]\nplain');
  const note = toolNameNote('y'.repeat(5000));
  assert.ok(note.length < 220 && note.endsWith('…]'), note);
});

test('each occurrence of a repeated id takes its own new name, in order; an untouched result stays', () => {
  const input = deepFreeze([A(call('a', 'x/y')), R('a', 'x/y'), A(call('a', 'p q')), R('a', 'p q'), R('z', 'z/z')]);
  const out = enforceToolNamePattern(input, 'strict');
  assert.deepEqual([out[1]!.toolName, out[3]!.toolName], ['x_y', 'p_q']);
  assert.equal(out[4], input[4], 'a result that answers no renamed call is left alone');
});

test('the rule counts renamed calls and results, and the calls it keeps although their names fail the name check', () => {
  const input = deepFreeze([A(call('a', MCP), call('b')), R('a', MCP), R('b', 'read')]);
  const strict = runRule(enforceToolNamePatternRule, input, { policy: { toolNameRule: 'strict' } });
  assert.deepEqual(strict.counts, { namesRenamed: 1, resultsRenamed: 1 });
  assert.deepEqual(strict.output, enforceToolNamePattern(input, 'strict'));
  const claude = runRule(enforceToolNamePatternRule, input, { policy: { toolNameRule: 'claude' } });
  assert.deepEqual(claude.counts, { malformedNamesKept: 1 });
  assert.deepEqual(claude.output, input);
  assert.deepEqual(enforceToolNamePatternRule.meta.counters, ['namesRenamed', 'resultsRenamed', 'malformedNamesKept']);
});

const ROUTES = [
  { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
  { provider: 'minimax', modelApi: 'anthropic-messages', modelId: 'MiniMax-M2' },
];

test('whole pipeline: an answered MCP call keeps its output on every route, under a name the route takes, and check finds nothing', async () => {
  const session = [
    { role: 'user', content: 'list the bucket', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: MCP, arguments: { bucket: 'b' } }], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'call_1', toolName: MCP, content: [{ type: 'text', text: 'a.txt b.txt' }], isError: false, timestamp: 3 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_2', name: 'gone/tool', arguments: {} }], stopReason: 'toolUse', timestamp: 4 },
    { role: 'user', content: 'never mind', timestamp: 5 },
  ];
  for (const route of ROUTES) {
    const out = await sanitizeSessionHistory(structuredClone(session) as Message[], route);
    const results = out.filter((m) => m.role === 'toolResult');
    const real = results.find((m) => JSON.stringify(m.content).includes('a.txt b.txt'));
    assert.ok(real !== undefined, `${route.provider}/${route.modelApi}: the tool output is kept`);
    const calls = out.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : [])).filter((b) => (b as { type?: string }).type === 'toolCall');
    assert.equal(calls.length, 1, `${route.provider}/${route.modelApi}: the unanswered misnamed call goes, as before`);
    const name = (calls[0] as { name: string }).name;
    if (route.modelApi === 'anthropic-messages' && route.provider === 'anthropic') {
      assert.equal(name, MCP);
      assert.equal(real.toolName, MCP);
    } else {
      assert.equal(name, 'mcp_s3_list_objects', `${route.provider}/${route.modelApi}`);
      assert.equal(real.toolName, 'mcp_s3_list_objects');
      assert.ok(JSON.stringify(real.content).includes(toolNameNote(MCP)), 'the original name is readable in the result');
    }
    assert.deepEqual(checkTranscript(out, route), [], `${route.provider}/${route.modelApi}`);
    assert.deepEqual(await sanitizeSessionHistory(structuredClone(out), route), out, `${route.provider}/${route.modelApi}: a second run is a fixed point`);
  }
});
