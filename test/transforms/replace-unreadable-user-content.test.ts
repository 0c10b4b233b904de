import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replaceUnreadableUserContent, replaceUnreadableUserContentRule } from '../../transforms/replace-unreadable-user-content.ts';
import { EMPTY_CONTENT_PLACEHOLDER } from '../../transforms/drop-blank-text-blocks.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const placeholder = [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }];

test('content that is neither a string nor an array becomes the placeholder; the turn keeps its fields', () => {
  for (const content of [42, null, { text: 'x' }, true]) {
    const input = deepFreeze({ role: 'user', content, timestamp: 5, provenance: { kind: 'inter_session' } } as unknown as Message);
    assert.deepEqual(replaceUnreadableUserContent(input), { role: 'user', content: placeholder, timestamp: 5, provenance: { kind: 'inter_session' } });
  }
  const missing = deepFreeze({ role: 'user', timestamp: 1 } as unknown as Message);
  assert.deepEqual(replaceUnreadableUserContent(missing).content, placeholder);
});

test('strings, arrays and other roles are the same objects', () => {
  for (const message of [{ role: 'user', content: '' }, { role: 'user', content: [] }, { role: 'assistant', content: 42 }, { role: 'toolResult', content: null }] as unknown as Message[]) {
    const frozen = deepFreeze(message);
    assert.equal(replaceUnreadableUserContent(frozen), frozen);
  }
});

test('the rule counts what it replaces', () => {
  const { output, counts } = runRule(replaceUnreadableUserContentRule, [{ role: 'user', content: 42 } as unknown as Message, { role: 'user', content: 'ok' }]);
  assert.deepEqual(counts, { replaced: 1 });
  assert.deepEqual(output[0]!.content, placeholder);
});

test('through the pipeline: such a turn merged with its neighbours no longer leaves empty content', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const session = [{ role: 'user', content: null }, { role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }, { role: 'user', content: { odd: true } }] as unknown as Message[];
  const out = await sanitizeSessionHistory(structuredClone(session), route);
  assert.deepEqual(checkTranscript(out, route), []);
  assert.deepEqual(out[2]!.content, placeholder);
});
