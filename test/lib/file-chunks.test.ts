import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FILE_READS_AHEAD, readFileChunks } from '../../lib/file-chunks.ts';
import { readJsonlMessages } from '../../lib/jsonl.ts';

test('readFileChunks: every byte once, in order, through reads-ahead + 1 reused buffers; a chunk is not written while it is held', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-chunks-'));
  try {
    const file = path.join(dir, 'in.bin');
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    await writeFile(file, bytes);
    for (const readsAhead of [1, 2, FILE_READS_AHEAD]) {
      const copies: Buffer[] = [];
      const views = new Set<ArrayBuffer>();
      let at = 0;
      for await (const chunk of readFileChunks(file, 64, readsAhead)) {
        assert.ok(chunk.length <= 64);
        // The reads in flight land meanwhile: none of them may be into this chunk.
        await new Promise((resolve) => setTimeout(resolve, 1));
        assert.deepEqual(chunk, bytes.subarray(at, at + chunk.length), `${readsAhead} ahead, chunk at ${at}`);
        at += chunk.length;
        copies.push(Buffer.from(chunk));
        views.add(chunk.buffer as ArrayBuffer);
      }
      assert.deepEqual(Buffer.concat(copies), bytes);
      assert.equal(copies.length, Math.ceil(1000 / 64));
      assert.equal(views.size, readsAhead + 1, `${readsAhead} ahead: the buffers take turns`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('readFileChunks feeds the JSONL reader: lines cut by every chunk boundary come out whole', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-chunks-'));
  try {
    const file = path.join(dir, 'in.jsonl');
    const messages = Array.from({ length: 50 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ` + 'é'.repeat(i) }));
    await writeFile(file, messages.map((m) => JSON.stringify(m)).join('\r\n') + '\n');
    for (const size of [3, 17, 256]) {
      const read = [];
      for await (const batch of readJsonlMessages(readFileChunks(file, size), { source: file })) read.push(...batch);
      assert.deepEqual(read, messages, `chunks of ${size}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
