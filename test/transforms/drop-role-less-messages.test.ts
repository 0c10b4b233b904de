import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropRoleLessMessagesRule, isRoleLess } from '../../transforms/drop-role-less-messages.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import type { Message } from '../../lib/types.ts';

test('objects without a role, or with a falsy one, are role-less; any other role is not', () => {
  for (const message of [{ content: 'x' }, { role: '' }, { role: null }, { role: 0 }, { type: 'custom', data: {} }]) assert.equal(isRoleLess(message as unknown as Message), true, JSON.stringify(message));
  for (const message of [{ role: 'user' }, { role: 'system' }, { role: 'compactionSummary' }]) assert.equal(isRoleLess(message as unknown as Message), false, JSON.stringify(message));
});

test('the rule drops and counts them, and keeps every other message as the same object', () => {
  const user = { role: 'user', content: 'q' } as Message;
  const odd = { role: 'narrator', content: 'x' } as unknown as Message;
  const { output, counts } = runRule(dropRoleLessMessagesRule, [user, { content: 'lost' } as unknown as Message, odd, { role: '' } as unknown as Message]);
  assert.deepEqual(output, [user, odd]);
  assert.equal(output[0], user);
  assert.deepEqual(counts, { dropped: 2 });
});

test('through the pipeline: an assistant after a role-less object is no longer merged into it', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const session = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {} }], stopReason: 'toolUse' },
    { content: 'a stray object' },
    { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'read', content: [{ type: 'text', text: 'ok' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop' },
  ] as unknown as Message[];
  const out = await sanitizeSessionHistory(structuredClone(session), route);
  assert.deepEqual(out.map((m) => m.role), ['user', 'assistant', 'toolResult', 'assistant']);
  assert.deepEqual(checkTranscript(out, route), []);
});
