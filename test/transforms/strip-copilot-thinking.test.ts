import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripCopilotThinking, stripCopilotThinkingRule } from '../../transforms/strip-copilot-thinking.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const A = (content: unknown[]): Message => ({ role: 'assistant', content: content as Message['content'], stopReason: 'stop' });

// Cases as the reference returned them for github-copilot on anthropic-messages and openai-responses.
const cases: Array<[string, Message, Message]> = [
  ['signed thinking beside text goes', A([{ type: 'thinking', thinking: 't', thinkingSignature: 'SIG' }, { type: 'text', text: 'a' }]), A([{ type: 'text', text: 'a' }])],
  ['redacted and unsigned thinking only: placeholder', A([{ type: 'redacted_thinking', data: 'xx' }, { type: 'thinking', thinking: 't2' }]), A([{ type: 'text', text: '[assistant reasoning omitted]' }])],
  [
    'camel-case redactedThinking and calls stay',
    A([{ type: 'thinking', thinking: 't3' }, { type: 'redactedThinking', data: 'yy' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }]),
    A([{ type: 'redactedThinking', data: 'yy' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }]),
  ],
];

for (const [name, input, expected] of cases) {
  test(`stripCopilotThinking: ${name}`, () => {
    assert.deepEqual(stripCopilotThinking(deepFreeze(structuredClone(input))).message, expected);
  });
}

test('untouched messages are the same objects; users and string content pass', () => {
  const messages = deepFreeze([{ role: 'user', content: [{ type: 'thinking', thinking: 'x' }] }, A([{ type: 'text', text: 'a' }]), { role: 'assistant', content: 'text' }] as Message[]);
  const { output, counts } = runRule(stripCopilotThinkingRule, messages);
  output.forEach((message, i) => assert.equal(message, messages[i]));
  assert.deepEqual(counts, {});
});

test('the rule counts removed blocks and placeholders', () => {
  const { counts } = runRule(stripCopilotThinkingRule, cases.map(([, input]) => input));
  assert.deepEqual(counts, { removedBlocks: 4, placeholders: 1 });
});
