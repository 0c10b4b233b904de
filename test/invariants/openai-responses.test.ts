import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { splitResponsesId } from '../../lib/invariants/openai-responses.ts';
import { assistant, text, toolCall, toolResult, user } from '../helpers/build.ts';

const check = (messages: readonly unknown[], modelApi = 'openai-responses'): Violation[] => checkTranscript(messages, { provider: 'openai', modelApi, modelId: 'gpt-5' });
const rules = (violations: Violation[]): string[] => violations.map((violation) => `${violation.index} ${violation.rule} ${violation.id ?? ''}`.trim());

describe('openai responses invariants', () => {
  test('ids split at the first inner "|"', () => {
    assert.deepEqual(splitResponsesId('call_1|fc_1'), { callId: 'call_1', itemId: 'fc_1' });
    assert.deepEqual(splitResponsesId('|call_1'), { callId: '|call_1' });
    assert.deepEqual(splitResponsesId('call_1|'), { callId: 'call_1|' });
  });

  test('well-formed: outputs after their calls, not necessarily adjacent; item ids optional', () => {
    const messages = [user('q'), assistant([toolCall('call_1|fc_1'), toolCall('call_2')]), toolResult('call_1|fc_1', [text('1')]), user('x'), toolResult('call_2', [text('2')])];
    for (const api of ['openai-responses', 'openai-chatgpt-responses', 'azure-openai-responses']) assert.deepEqual(check(messages, api), [], api);
  });

  test('orphan-output: an output with no earlier call (or only a later one)', () => {
    assert.deepEqual(rules(check([user('q'), toolResult('call_9', [text('1')]), assistant([toolCall('call_9')]), toolResult('call_9', [text('2')])])), ['1 openai-responses/orphan-output call_9']);
  });

  test('orphan-output: an output matches its call by the call part only', () => {
    assert.deepEqual(check([user('q'), assistant([toolCall('call_1|fc_1')]), toolResult('call_1', [text('1')])]), []);
  });

  test('missing-output: a call never answered', () => {
    assert.deepEqual(rules(check([user('q'), assistant([toolCall('call_1'), toolCall('call_2')]), toolResult('call_2', [text('1')])])), ['1 openai-responses/missing-output call_1']);
  });

  test('id-shape: call ids that are not call_*, item ids that are not fc_*, over 64 characters', () => {
    const long = `call_${'a'.repeat(60)}`;
    const violations = check([
      user('q'),
      assistant([toolCall('toolu_1'), toolCall('call_2|item 2'), toolCall(long)]),
      toolResult('toolu_1', [text('1')]),
      toolResult('call_2|item 2', [text('2')]),
      toolResult(long, [text('3')]),
    ]);
    assert.deepEqual(
      violations.filter((v) => v.rule === 'openai-responses/id-shape').map((v) => [v.index, v.block]),
      [
        [1, 0],
        [1, 1],
        [1, 2],
        [2, undefined],
        [4, undefined],
      ],
    );
  });
});
