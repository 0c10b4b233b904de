import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { buildSessionIndex, type SessionIndex } from '../../lib/session/index-pass.ts';
import { activePath } from '../../lib/session/active-path.ts';
import { modelOf, modelSwitchedAtOf, thinkingLevelOf } from '../../lib/session/settings.ts';
import { HEADER, assistant, entry, tempDir, user, writeSession } from './helpers/files.ts';

async function indexOf(lines: unknown[]): Promise<SessionIndex> {
  const { dir, cleanup } = await tempDir();
  try {
    return await buildSessionIndex(await writeSession(path.join(dir, 's.jsonl'), lines));
  } finally {
    await cleanup();
  }
}

const snapshot = (id: string, parentId: string | null, data: unknown): Record<string, unknown> => ({ type: 'custom', customType: 'model-snapshot', data, id, parentId, timestamp: 't' });
const route = { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' };

test('E17: a switch between two snapshots on the path gives S = the later one', async () => {
  const index = await indexOf([
    HEADER,
    snapshot('s1', null, { timestamp: 50, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }),
    snapshot('s2', 's1', { timestamp: 200, ...route }),
    entry('a', 's2', user('q')),
  ]);
  assert.equal(modelSwitchedAtOf(index, activePath(index), route, () => 999), 200);
});

test('the route differs from the last snapshot: S is now; the first snapshot alone is no switch', async () => {
  const index = await indexOf([HEADER, snapshot('s1', null, { timestamp: 50, provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-4.1' })]);
  const path1 = activePath(index);
  assert.equal(modelSwitchedAtOf(index, path1, route, () => 999), 999);
  assert.equal(modelSwitchedAtOf(index, path1, { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-4.1' }, () => 999), undefined);
  assert.equal(modelSwitchedAtOf(index, path1, {}, () => 999), undefined, 'no route: nothing derived');
});

test('a non-numeric timestamp does not set S but still becomes the previous snapshot; off-path snapshots do not count', async () => {
  const index = await indexOf([
    HEADER,
    snapshot('s1', null, { timestamp: 50, provider: 'a' }),
    snapshot('s2', 's1', { timestamp: '200', ...route }),
    snapshot('off', 's1', { timestamp: 300, provider: 'zzz' }),
    entry('a', 's2', user('q')),
    snapshot('bad', 'a', 'not an object'),
  ]);
  assert.equal(modelSwitchedAtOf(index, activePath(index), route, () => 999), undefined);
});

test('thinking level and model: the last of each on the path', async () => {
  const index = await indexOf([
    HEADER,
    { type: 'thinking_level_change', id: 't', parentId: null, thinkingLevel: 'low' },
    { type: 'model_change', id: 'm', parentId: 't', provider: 'openai', modelId: 'gpt-5' },
    entry('a', 'm', assistant('x', 1, { provider: 'anthropic', model: 'claude' })),
    entry('u', 'a', user('later')),
  ]);
  const p = activePath(index);
  assert.equal(thinkingLevelOf(index, p), 'low');
  const reads: number[] = [];
  const model = await modelOf(index, p, async (e) => {
    reads.push(e);
    return assistant('x', 1, { provider: 'anthropic', model: 'claude' });
  });
  assert.deepEqual(model, { provider: 'anthropic', modelId: 'claude' });
  assert.deepEqual(reads, [2], 'only the last assistant is read');
  const none = await indexOf([HEADER, entry('u', null, user('q'))]);
  assert.equal(thinkingLevelOf(none, activePath(none)), 'off');
  assert.equal(await modelOf(none, activePath(none), async () => undefined), null);
});
