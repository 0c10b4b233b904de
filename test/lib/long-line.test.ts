/**
 * One long line costs work in proportion to its length: the readers that join a line cut across
 * chunks copy it once, not once per chunk it spans (which made a 64 MB line take 20 times as
 * long as an 8 MB one). Counted in bytes copied by Buffer.concat, so the test does not time.
 */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpillQueue, messageCodec } from '../../lib/frames.ts';
import { scanInputFile } from '../../lib/result-index.ts';
import type { Message } from '../../lib/types.ts';

const LINE_MB = 24;
const originalConcat = Buffer.concat;
let copied = 0;

/** Counts the bytes Buffer.concat copies while `work` runs. */
async function countCopies(work: () => Promise<void> | void): Promise<number> {
  copied = 0;
  Buffer.concat = ((list: readonly Uint8Array[], totalLength?: number) => {
    const joined = originalConcat(list, totalLength);
    copied += joined.length;
    return joined;
  }) as typeof Buffer.concat;
  try {
    await work();
  } finally {
    Buffer.concat = originalConcat;
  }
  return copied;
}
afterEach(() => {
  Buffer.concat = originalConcat;
});

const bigResult = (): Message => ({
  role: 'toolResult',
  toolCallId: 'toolu_log',
  toolName: 'read',
  content: [{ type: 'text', text: 'x'.repeat(LINE_MB << 20) }],
  isError: false,
  timestamp: 3,
});

test('a spilled message of one long line is read back in one piece, never joined from chunks', async () => {
  const queue = new SpillQueue<Message>(messageCodec, { budgetBytes: 1 << 20 });
  const message = bigResult();
  let back: Message | undefined;
  queue.push({ role: 'user', content: 'first', timestamp: 1 });
  queue.push(message);
  assert.ok(queue.spilledEntries >= 1, 'the long message spilled');
  const bytes = await countCopies(() => {
    queue.shift();
    back = queue.shift();
  });
  queue.dispose();
  assert.deepEqual(back, message);
  // The spill file knows each line's length, so the line is read with one read of its bytes.
  assert.equal(bytes, 0, `joined ${(bytes / 2 ** 20).toFixed(0)} MiB of pieces to read back a ${LINE_MB} MiB line`);
});

test('the input scan joins a long line once', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-long-line-'));
  try {
    const file = path.join(dir, 'long.jsonl');
    const lines = [
      { role: 'user', content: 'read it', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_log', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 2 },
      bigResult(),
    ];
    await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    let found = false;
    const bytes = await countCopies(async () => {
      const scan = await scanInputFile(file);
      found = scan.resultIndex.size > 0;
    });
    assert.ok(found, 'the scan indexed the result');
    assert.ok(bytes <= 2 * (LINE_MB << 20) + (8 << 20), `copied ${(bytes / 2 ** 20).toFixed(0)} MiB to scan a ${LINE_MB} MiB line`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
