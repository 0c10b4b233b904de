import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readLines, readRange } from '../../lib/session/line-reader.ts';
import { tempDir } from './helpers/files.ts';

async function linesOf(content: Buffer | string, chunkSize?: number): Promise<{ lines: Array<[string, number, number]>; result: Awaited<ReturnType<typeof readLines>> }> {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'f');
    await writeFile(file, content);
    const handle = await open(file, 'r');
    const lines: Array<[string, number, number]> = [];
    let chunks = 0;
    const result = await readLines(
      handle,
      { line: (buffer, start, end, offset, line) => lines.push([buffer.toString('utf8', start, end), offset, line]), chunk: () => void chunks++ },
      chunkSize,
    );
    await handle.close();
    assert.ok(chunks > 0 || lines.length === 0);
    return { lines, result };
  } finally {
    await cleanup();
  }
}

test('LF and CRLF lines with their byte offsets; the unterminated last line is delivered', async () => {
  const { lines, result } = await linesOf('a\r\nbé\n\nlast');
  assert.deepEqual(lines, [
    ['a', 0, 1],
    ['bé', 3, 2],
    ['', 7, 3],
    ['last', 8, 4],
  ]);
  assert.equal(result.endsWithNewline, false);
  assert.equal(result.lines, 4);
  assert.equal(result.bytes, 12);
});

test('tiny chunks and lines longer than the chunk give the same lines', async () => {
  const content = ['x'.repeat(1000), 'short', 'y'.repeat(5000), ''].join('\n');
  const whole = await linesOf(content);
  for (const size of [1, 7, 64, 999]) assert.deepEqual((await linesOf(content, size)).lines, whole.lines);
  assert.equal(whole.result.endsWithNewline, true);
});

test('an empty file has no lines; a lone CR line is empty', async () => {
  assert.deepEqual((await linesOf('')).lines, []);
  assert.deepEqual((await linesOf('\r\n')).lines, [['', 0, 1]]);
  assert.deepEqual((await linesOf('a\r')).lines, [['a', 0, 1]]);
});

test('readRange reads a byte range, short at the end of the file', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'f');
    await writeFile(file, 'hello world');
    const handle = await open(file, 'r');
    assert.equal((await readRange(handle, 6, 5)).toString(), 'world');
    assert.equal((await readRange(handle, 6, 50)).toString(), 'world');
    await handle.close();
  } finally {
    await cleanup();
  }
});
