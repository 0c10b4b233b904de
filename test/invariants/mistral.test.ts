import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { assistant, text, toolCall, toolResult, user } from '../helpers/build.ts';

const rules = (violations: Violation[]): string[] => violations.map((violation) => `${violation.index} ${violation.rule} ${violation.id ?? ''}`.trim());

describe('mistral invariants (strict9 chat routes)', () => {
  const routes = [
    { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
    { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'mistralai/mistral-large' },
    { provider: 'my-local', modelApi: 'openai-completions', modelId: 'devstral-small' },
  ];

  test('9 alphanumerics pass', () => {
    for (const route of routes) assert.deepEqual(checkTranscript([user('q'), assistant([toolCall('abcDEF123')]), toolResult('abcDEF123', [text('1')])], route), [], route.modelId);
  });

  test('tool-call-id: wrong length or characters, in calls and tool messages', () => {
    const messages = [user('q'), assistant([toolCall('call_1'), toolCall('abcdefghij')]), toolResult('call_1', [text('1')]), toolResult('abcdefghij', [text('2')])];
    for (const route of routes) {
      assert.deepEqual(
        rules(checkTranscript(messages, route)).filter((line) => line.includes('mistral/')),
        ['1 mistral/tool-call-id call_1', '1 mistral/tool-call-id abcdefghij', '2 mistral/tool-call-id call_1', '3 mistral/tool-call-id abcdefghij'],
        route.modelId,
      );
    }
  });

  test('routes without strict9 ids do not get the rule', () => {
    const messages = [user('q'), assistant([toolCall('call_1')]), toolResult('call_1', [text('1')])];
    assert.deepEqual(checkTranscript(messages, { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' }), []);
    assert.deepEqual(checkTranscript(messages, { provider: 'mistral', modelApi: 'mistral-conversations', modelId: 'mistral-large-latest' }), []);
  });
});
