import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
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

/** What readLines stands for: the text split at LF, one CR before it dropped, offsets and numbers counted. */
function splitLines(content: string): Array<[string, number, number]> {
  const bytes = Buffer.from(content);
  const out: Array<[string, number, number]> = [];
  let start = 0;
  while (start < bytes.length) {
    let newline = bytes.indexOf(10, start);
    if (newline < 0) newline = bytes.length;
    let end = newline;
    if (end > start && bytes[end - 1] === 13) end--;
    out.push([bytes.toString('utf8', start, end), start, out.length + 1]);
    start = newline + 1;
  }
  return out;
}

test('property: every chunk size gives the lines of a plain split', async () => {
  const line = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '\r', 'x'.repeat(300)));
  await fc.assert(
    fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 200 }), async (lines, finalNewline, chunkSize) => {
      const content = lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '');
      const { lines: read } = await linesOf(content, chunkSize);
      assert.deepEqual(read, splitLines(content));
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
  );
});

test('a visitor that throws stops the reading with its error', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'f');
    await writeFile(file, 'a\n'.repeat(10000));
    const handle = await open(file, 'r');
    let seen = 0;
    await assert.rejects(
      readLines(
        handle,
        {
          line: () => {
            if (++seen === 50) throw new Error('visitor failed');
          },
        },
        64,
      ),
      /visitor failed/,
    );
    await handle.close();
    assert.equal(seen, 50);
  } finally {
    await cleanup();
  }
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
