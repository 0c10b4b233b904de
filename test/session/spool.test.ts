import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { peekInputKind, sanitizeStdin, spoolToTempFile } from '../../lib/session/spool.ts';
import { sanitizeFile } from '../../lib/run.ts';
import { readFixtures, tempDir } from './helpers/files.ts';

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

const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', now: () => 1 };

test('a session on stdin is spooled, read through the index, and its temporary file removed', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const content = await readFile(path.join(readFixtures, 'branches.jsonl'));
    // In small chunks, as a pipe delivers it.
    const chunks: Buffer[] = [];
    for (let i = 0; i < content.length; i += 100) chunks.push(content.subarray(i, i + 100));
    const out = sink();
    const stats = await sanitizeStdin({ input: Readable.from(chunks), output: out.stream, options: route, spoolDirectory: dir });
    const direct = sink();
    await sanitizeFile({ path: path.join(readFixtures, 'branches.jsonl'), output: direct.stream, options: route });
    assert.equal(out.text(), direct.text());
    assert.equal((stats as { session?: { leafId: string } }).session?.leafId, 'd8cee316');
    assert.deepEqual(await readdir(dir), [], 'the spool file is gone');
  } finally {
    await cleanup();
  }
});

test('a plain message stream is not spooled: it flows through as it arrives', async () => {
  const input = new PassThrough();
  const out = sink();
  const done = sanitizeStdin({ input, output: out.stream, options: route });
  input.write('{"role":"user","content":"first","timestamp":1}\n');
  // Decided from the first line: the rest has not been written yet.
  const { kind } = await peekInputKind(Readable.from(['{"role":"user","content":"x"}\n', 'never read']));
  assert.equal(kind, 'messages');
  input.end('{"role":"user","content":"   ","timestamp":2}\n');
  const stats = await done;
  assert.equal(stats.messagesIn, 2);
  assert.match(out.text(), /"first"/);
});

test('a JSON array on stdin, and an empty stdin', async () => {
  const out = sink();
  const stats = await sanitizeStdin({ input: Readable.from(['[{"role":"user","content":"a","timestamp":1}]']), output: out.stream, options: route });
  assert.equal(stats.messagesIn, 1);
  const forced = await sanitizeStdin({ input: Readable.from(['[{"role":"user","content":"a","timestamp":1}]']), output: sink().stream, options: route, format: 'json' });
  assert.equal(forced.messagesIn, 1);
  const empty = await sanitizeStdin({ input: Readable.from([]), output: sink().stream, options: route });
  assert.equal(empty.messagesIn, 0);
});

test('the spool file is private and removed when the input fails', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = await spoolToTempFile(Readable.from(['a', Buffer.from('b')]), dir);
    assert.equal(await readFile(file, 'utf8'), 'ab');
    const { mode } = await import('node:fs/promises').then((fs) => fs.stat(file));
    assert.equal(mode & 0o777, 0o600);
    async function* failing(): AsyncGenerator<string> {
      yield 'x';
      throw new Error('pipe broke');
    }
    const other = await tempDir();
    await assert.rejects(spoolToTempFile(failing(), other.dir), /pipe broke/);
    assert.deepEqual(await readdir(other.dir), []);
    await other.cleanup();
  } finally {
    await cleanup();
  }
});
