import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropMergedBlankUserText, dropMergedBlankUserTextEnabled, dropMergedBlankUserTextRule } from '../../transforms/drop-merged-blank-user-text.ts';
import { EMPTY_CONTENT_PLACEHOLDER } from '../../transforms/drop-blank-text-blocks.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const media = { media: [{ path: 'media/a.png', contentType: 'image/png' }] };

test('blank text blocks leave a user turn; other blocks and other roles stay as they are', () => {
  const merged = deepFreeze({ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'look at this' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] } as Message);
  assert.deepEqual(dropMergedBlankUserText(merged).content, [{ type: 'text', text: 'look at this' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]);
  const assistant = deepFreeze({ role: 'assistant', content: [{ type: 'text', text: ' ' }] } as Message);
  assert.equal(dropMergedBlankUserText(assistant), assistant);
  const plain = deepFreeze({ role: 'user', content: '' } as Message);
  assert.equal(dropMergedBlankUserText(plain), plain, 'string content (a media-only turn that was not merged) stays');
});

test('a turn left with nothing gets the placeholder, and the rule counts', () => {
  const input = deepFreeze([{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: ' ' }], __openclaw: media } as Message]);
  const { output, counts } = runRule(dropMergedBlankUserTextRule, input);
  assert.deepEqual(output[0]!.content, [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }]);
  assert.deepEqual(counts, { droppedBlocks: 2, placeholders: 1 });
});

test('enabled exactly where merge-consecutive-users runs', () => {
  assert.equal(dropMergedBlankUserTextEnabled(resolveTranscriptPolicy({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' })), true);
  assert.equal(dropMergedBlankUserTextEnabled(resolveTranscriptPolicy({ provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' })), false);
});

test('through the pipeline: a media-only turn merged with the next user turn replays without a blank block', async () => {
  const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const session: Message[] = [
    { role: 'user', content: '', __openclaw: media, timestamp: 1 },
    { role: 'user', content: 'what is in the picture?', timestamp: 2 },
    { role: 'assistant', content: [{ type: 'text', text: 'a cat' }], stopReason: 'stop', timestamp: 3 },
  ];
  const out = await sanitizeSessionHistory(structuredClone(session), route);
  assert.deepEqual(out[0]!.content, [{ type: 'text', text: 'what is in the picture?' }]);
  assert.deepEqual(checkTranscript(out, route), []);
});
