import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { assistant, text, toolCall, toolResult, user } from '../helpers/build.ts';

const check = (messages: readonly unknown[], modelApi = 'google-generative-ai'): Violation[] =>
  checkTranscript(messages, { provider: 'google', modelApi, modelId: 'gemini-2.5-pro' });
const rules = (violations: Violation[]): string[] => violations.map((violation) => `${violation.index} ${violation.rule}`);

describe('gemini invariants', () => {
  test('a well-formed history: calls after user and function-response turns, users in a row allowed', () => {
    const messages = [
      user('q'),
      assistant([toolCall('a'), toolCall('b')]),
      toolResult('a', [text('1')]),
      toolResult('b', [text('2')]),
      assistant([toolCall('c')]),
      toolResult('c', [text('3')]),
      user('and'),
      user('more'),
      assistant([text('done')]),
    ];
    for (const api of ['google-generative-ai', 'google-gemini-cli', 'google-vertex']) assert.deepEqual(check(messages, api), [], api);
  });

  test('first-turn-user: a model turn first', () => {
    assert.deepEqual(rules(check([assistant([text('hi')]), user('q')])), ['0 gemini/first-turn-user']);
  });

  test('alternation: two model turns in a row', () => {
    assert.deepEqual(rules(check([user('q'), assistant([text('a')]), assistant([text('b')])])), ['2 gemini/alternation']);
  });

  test('function-call-position: a call turn after a model turn, or first', () => {
    assert.deepEqual(rules(check([user('q'), assistant([text('a')]), assistant([toolCall('c')]), toolResult('c', [text('1')])])), [
      '2 gemini/alternation',
      '2 gemini/function-call-position',
    ]);
    assert.ok(rules(check([assistant([toolCall('c')]), toolResult('c', [text('1')])])).includes('0 gemini/function-call-position'));
  });

  test('function-response-position: a response turn after a user turn', () => {
    assert.deepEqual(rules(check([user('q'), assistant([toolCall('c')]), user('wait'), toolResult('c', [text('1')])])), ['3 gemini/function-response-position']);
  });

  test('function-response-count: fewer or more responses than calls', () => {
    assert.deepEqual(rules(check([user('q'), assistant([toolCall('a'), toolCall('b')]), toolResult('a', [text('1')])])), ['2 gemini/function-response-count']);
    assert.deepEqual(rules(check([user('q'), assistant([toolCall('a')]), toolResult('a', [text('1')]), toolResult('a', [text('2')])])), ['2 gemini/function-response-count']);
  });
  test('empty-parts: a model or user content Gemini would get no part from', () => {
    const blankThinking = assistant([{ type: 'thinking', thinking: ' ' }]);
    const redactedOnly = assistant([{ type: 'redacted_thinking', data: 'opaque' } as never]);
    const fileOnly = user([{ type: 'file', name: 'x' } as never]);
    assert.deepEqual(rules(check([user('q'), blankThinking, user('n')])), ['1 gemini/empty-parts']);
    assert.deepEqual(rules(check([user('q'), redactedOnly])), ['1 gemini/empty-parts']);
    assert.deepEqual(rules(check([user('q'), assistant([text('a')]), fileOnly])), ['2 gemini/empty-parts']);
    // Blank user text goes out as a space; signed blank thinking carries its signature.
    assert.deepEqual(rules(check([user(''), assistant([{ type: 'thinking', thinking: '', thinkingSignature: 'c2ln' }])])), []);
  });
});
