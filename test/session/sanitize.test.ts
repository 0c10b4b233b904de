import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { readSessionMessages } from '../../lib/session/read.ts';
import { probeFileKind, sanitizeSessionFile } from '../../lib/session/sanitize.ts';
import { sanitizeFile } from '../../lib/run.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { readJsonlMessages } from '../../lib/jsonl.ts';
import type { Message } from '../../lib/types.ts';
import { HEADER, assistant, entry, readFixtures, root, tempDir, user, writeSession } from './helpers/files.ts';

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  return {
    stream: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out += chunk.toString();
        callback();
      },
    }),
    text: () => out,
  };
}

const anthropic = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', now: () => 1798761600000 };
const responses = { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5', now: () => 1798761600000 };

async function parseOut(text: string): Promise<Message[]> {
  const out: Message[] = [];
  for await (const batch of readJsonlMessages([text])) out.push(...batch);
  return out;
}

test('the replay copy of a session file equals sanitizeSessionHistory of its projection, with the index facts', async () => {
  for (const name of ['branches', 'leaf-record', 'custom-entries', 'two-compactions']) {
    for (const route of [anthropic, responses]) {
      const file = path.join(readFixtures, `${name}.jsonl`);
      const session = await readSessionMessages(file, route);
      const facts = session.hygieneOptions(route);
      const expected = await sanitizeSessionHistory(await session.toArray(), { ...route, modelSwitchedAt: facts.modelSwitchedAt, compactionTimestamp: facts.compactionTimestamp }).catch(() => undefined);
      const out = sink();
      const stats = await sanitizeFile({ path: file, output: out.stream, options: route }).catch(() => undefined);
      if (expected === undefined) {
        assert.equal(stats, undefined, `${name}: both fail`);
        continue;
      }
      assert.ok(stats !== undefined, name);
      assert.deepEqual(await parseOut(out.text()), JSON.parse(JSON.stringify(expected)), `${name} ${route.modelApi}`);
    }
  }
});

test('sanitizeFile reads a session file through the index (stats say so); a bare message file as before', async () => {
  const out = sink();
  const stats = (await sanitizeFile({ path: path.join(readFixtures, 'branches.jsonl'), output: out.stream, options: anthropic })) as Awaited<ReturnType<typeof sanitizeSessionFile>>;
  assert.equal(stats.session.pathEntries, 13);
  assert.equal(stats.session.leafId, 'd8cee316');
  assert.equal(stats.session.compacted, true);
  assert.equal(stats.messagesIn, 6);
  assert.equal(stats.entriesSkipped, 19 - 6);
  assert.equal(await probeFileKind(path.join(readFixtures, 'branches.jsonl')), 'session');
  const { dir, cleanup } = await tempDir();
  try {
    const bare = await writeSession(path.join(dir, 'bare.jsonl'), [user('q'), assistant('r')]);
    assert.equal(await probeFileKind(bare), 'messages');
    const bareOut = sink();
    const bareStats = await sanitizeFile({ path: bare, output: bareOut.stream, options: anthropic });
    assert.equal(bareStats.messagesIn, 2);
    assert.equal('session' in bareStats, false);
  } finally {
    await cleanup();
  }
});

test('the demo session reads the same through the session path as its message entries did', async () => {
  const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
  const messages: unknown[] = [];
  for await (const batch of readJsonlMessages([await readFile(demo)])) messages.push(...batch);
  const out = sink();
  await sanitizeFile({ path: demo, output: out.stream, options: anthropic });
  assert.deepEqual(await parseOut(out.text()), JSON.parse(JSON.stringify(await sanitizeSessionHistory(messages, anthropic))));
});

test('a session without compaction holds nothing in the compaction-stale rule', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const signed = (text: string, ts: number): Record<string, unknown> => assistant(text, ts, { content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'c2ln' }, { type: 'text', text }] });
    const lines: unknown[] = [HEADER];
    let parent: string | null = null;
    for (let i = 0; i < 200; i++) {
      const id = `e${i}`;
      lines.push(entry(id, parent, i % 2 === 0 ? user(`q${i}`, i) : signed(`a${i}`, i)));
      parent = id;
    }
    const file = await writeSession(path.join(dir, 's.jsonl'), lines);
    const out = sink();
    const stats = await sanitizeSessionFile({ path: file, output: out.stream, options: { ...anthropic, memoryBudgetBytes: 1 } });
    assert.equal(stats.rules['strip-stale-thinking-signatures']?.spilledEntries, undefined);
    assert.equal(stats.session.compacted, false);
    assert.equal(stats.messagesIn, 200);
  } finally {
    await cleanup();
  }
});
