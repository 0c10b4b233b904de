import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { LineWindow } from '../../lib/session/line-window.ts';
import { tempDir } from './helpers/files.ts';

interface Line {
  offset: number;
  length: number;
  text: string;
}

function linesOf(content: string): Line[] {
  const bytes = Buffer.from(content);
  const out: Line[] = [];
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    out.push({ offset: start, length: end - start, text: bytes.toString('utf8', start, end) });
    start = end + 1;
  }
  return out;
}

/** Reads `wanted` (indexes into the file's lines) as the read pass does: prepare awaited, then text. */
async function readThrough(content: string, wanted: readonly number[], size: number, withHandle: boolean): Promise<{ texts: string[]; window: LineWindow }> {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'f.jsonl');
    await writeFile(file, content);
    const handle = await open(file, 'r');
    const window = withHandle ? new LineWindow(handle.fd, size, handle) : new LineWindow(handle.fd, size);
    const lines = linesOf(content);
    const texts: string[] = [];
    try {
      for (const index of wanted) {
        const { offset, length } = lines[index]!;
        const ready = window.prepare(offset, length);
        if (ready !== undefined) await ready;
        texts.push(window.covers(offset, length) ? window.text(offset, length) : window.read(offset, length));
      }
    } finally {
      await window.settle();
      await handle.close();
    }
    return { texts, window };
  } finally {
    await cleanup();
  }
}

test('lines read in order come from the read-ahead, straddling lines included', async () => {
  const content = Array.from({ length: 200 }, (_, i) => `{"n":${i},"text":"${'é'.repeat(i % 13)}"}`).join('\n') + '\n';
  const all = linesOf(content).map((_, i) => i);
  const { texts, window } = await readThrough(content, all, 64, true);
  assert.deepEqual(texts, linesOf(content).map((line) => line.text));
  assert.ok(window.readAheadWindows > 10, `only ${window.readAheadWindows} windows came from the read-ahead`);
  assert.equal(window.bytesRead >= Buffer.byteLength(content) - 64, true);
});

test('without a handle nothing is read ahead, and the texts are the same', async () => {
  const content = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
  const all = linesOf(content).map((_, i) => i);
  const { texts, window } = await readThrough(content, all, 16, false);
  assert.deepEqual(texts, linesOf(content).map((line) => line.text));
  assert.equal(window.readAheadWindows, 0);
});

test('property: any lines, any window size, in order with jumps (and now and then back): the file\'s bytes', async () => {
  const lineText = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', 'x'.repeat(90), 'ü€'.repeat(20)));
  await fc.assert(
    fc.asyncProperty(
      fc.array(lineText.map((text) => text.replace(/\n/g, ' ')), { minLength: 1, maxLength: 40 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      fc.integer({ min: 4, max: 80 }),
      async (lines, picks, size) => {
        const content = lines.join('\n');
        const count = linesOf(content).length;
        fc.pre(count > 0);
        // Mostly ascending with skips, as an active path reads; a pick divisible by 7 goes back.
        const wanted: number[] = [];
        let at = 0;
        for (const pick of picks) {
          at = pick % 7 === 0 ? pick % count : Math.min(count - 1, at + (pick % 4));
          wanted.push(at);
        }
        const { texts } = await readThrough(content, wanted, size, true);
        assert.deepEqual(texts, wanted.map((index) => linesOf(content)[index]!.text));
      },
    ),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
  );
});
