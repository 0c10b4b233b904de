import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { assistant, text, toolCall, toolResult, user } from '../helpers/build.ts';

const route = { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' };
const rules = (violations: Violation[]): string[] => violations.map((violation) => `${violation.index} ${violation.rule} ${violation.id ?? ''}`.trim());

describe('chat completions invariants', () => {
  test('well-formed: tool messages right after the assistant that names them', () => {
    const messages = [user('q'), assistant([toolCall('call_1'), toolCall('call_2')]), toolResult('call_2', [text('2')]), toolResult('call_1', [text('1')]), assistant([text('ok')]), user('x'), user('y')];
    assert.deepEqual(checkTranscript(messages, route), []);
  });

  test('missing-tool-message: an unanswered call, or one answered after another message', () => {
    assert.deepEqual(rules(checkTranscript([user('q'), assistant([toolCall('call_1'), toolCall('call_2')]), toolResult('call_1', [text('1')])], route)), [
      '1 chat-completions/missing-tool-message call_2',
    ]);
    assert.deepEqual(rules(checkTranscript([user('q'), assistant([toolCall('call_1')]), user('wait'), toolResult('call_1', [text('1')])], route)), [
      '1 chat-completions/missing-tool-message call_1',
      '3 chat-completions/tool-message-position call_1',
    ]);
  });

  test('tool-message-position: an orphan tool message, and one without an id', () => {
    assert.deepEqual(rules(checkTranscript([user('q'), toolResult('call_9', [text('1')]), { role: 'toolResult', content: [text('x')] }], route)), [
      '1 chat-completions/tool-message-position call_9',
      '2 chat-completions/tool-message-position',
    ]);
  });

  test('every OpenRouter route gets the chat rules', () => {
    const orphan = [user('q'), toolResult('x', [text('1')])];
    assert.deepEqual(rules(checkTranscript(orphan, { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'openai/gpt-5' })), ['1 chat-completions/tool-message-position x']);
    assert.deepEqual(rules(checkTranscript(orphan, { provider: 'OpenRouter', modelApi: '', modelId: 'openai/gpt-5' })), ['1 chat-completions/tool-message-position x']);
  });

  test('OpenRouter Anthropic models also get the Anthropic id pattern and, with thinking, the prefill rule', () => {
    const orAnthropic = { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' };
    const messages = [user('q'), assistant([toolCall('functions.read:0')]), toolResult('functions.read:0', [text('1')]), assistant([text('Sure')])];
    assert.deepEqual(rules(checkTranscript(messages, orAnthropic)), ['1 anthropic/tool-use-id-pattern functions.read:0', '2 anthropic/tool-use-id-pattern functions.read:0']);
    assert.ok(rules(checkTranscript(messages, { ...orAnthropic, thinking: true })).includes('3 anthropic/trailing-prefill'));
  });
});
