import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { BEDROCK_RULES } from '../../lib/invariants/bedrock.ts';
import { assistant, text, toolCall, toolResult, user } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const route = { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
const check = (messages: readonly unknown[]): Violation[] => checkTranscript(messages, route);
const only = (violations: Violation[], rule: string): Violation[] => violations.filter((violation) => violation.rule === rule);

const valid: Message[] = [
  user('q'),
  assistant([text('reading'), toolCall('tooluse_1'), toolCall('b-2')], { stopReason: 'toolUse' }),
  toolResult('tooluse_1', [text('one')]),
  toolResult('b-2', [text('two')]),
  assistant([text('done')]),
  user('next'),
  assistant([text('ok')]),
];

describe('bedrock converse invariants', () => {
  test('a well-formed tool loop has no violation', () => {
    assert.deepEqual(check(valid), []);
  });

  test('every rule has a source', () => {
    for (const rule of BEDROCK_RULES) assert.ok(rule.id.startsWith('bedrock/') && rule.source.length > 20, rule.id);
  });

  test('first-message-user: an assistant first', () => {
    assert.deepEqual(only(check([assistant([text('hi')]), user('q')]), 'bedrock/first-message-user').map((v) => v.index), [0]);
    assert.deepEqual(only(check([{ role: 'custom', content: 'x' }, assistant([text('hi')])]), 'bedrock/first-message-user'), []);
  });

  test('alternation: a user turn after a tool result run, two assistants, two users', () => {
    const violations = check([
      user('q'),
      assistant([toolCall('a')]),
      toolResult('a', [text('ok')]),
      user('next'),
      assistant([text('x')]),
      assistant([text('y')]),
      user('u1'),
      user('u2'),
    ]);
    assert.deepEqual(only(violations, 'bedrock/alternation').map((v) => v.index), [3, 5, 7]);
  });

  test('alternation: a tool result run is one user message', () => {
    assert.deepEqual(only(check(valid), 'bedrock/alternation'), []);
  });

  test('empty-content: no exception for the final assistant', () => {
    const violations = check([user('q'), assistant([text('a')]), user([]), assistant([])]);
    assert.deepEqual(only(violations, 'bedrock/empty-content').map((v) => v.index), [2, 3]);
  });

  test('blank-text: a blank text block', () => {
    assert.deepEqual(only(check([user([text('q'), text('  ')]), assistant([text('a')])]), 'bedrock/blank-text').map((v) => [v.index, v.block]), [[0, 1]]);
  });

  test('tool-result-missing, unexpected-tool-result and duplicate-tool-result: the Anthropic pairing', () => {
    const violations = check([
      user('q'),
      assistant([toolCall('a'), toolCall('b')]),
      toolResult('a', [text('1')]),
      toolResult('a', [text('2')]),
      toolResult('c', [text('3')]),
    ]);
    assert.deepEqual(only(violations, 'bedrock/tool-result-missing').map((v) => v.id), ['b']);
    assert.deepEqual(only(violations, 'bedrock/duplicate-tool-result').map((v) => v.index), [3]);
    assert.deepEqual(only(violations, 'bedrock/unexpected-tool-result').map((v) => v.id), ['c']);
  });

  test('tool-use-id-pattern: characters and the 64-character limit (dots and colons allowed since 2026-04-02)', () => {
    const long = 'a'.repeat(65);
    const violations = check([user('q'), assistant([toolCall(long), toolCall('a|b'), toolCall('functions.read:0')]), toolResult(long, [text('1')]), toolResult('a|b', [text('2')]), toolResult('functions.read:0', [text('3')])]);
    assert.deepEqual(only(violations, 'bedrock/tool-use-id-pattern').map((v) => `${v.index} ${v.id}`), [`1 ${long}`, '1 a|b', `2 ${long}`, '3 a|b']);
    assert.deepEqual(only(check([user('q'), assistant([toolCall('a'.repeat(64))]), toolResult('a'.repeat(64), [text('1')])]), 'bedrock/tool-use-id-pattern'), []);
  });
});
