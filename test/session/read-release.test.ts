import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { buildSessionIndex, LARGE_INDEX_ENTRIES, type SessionIndex } from '../../lib/session/index-pass.ts';
import { fileEntries, readIndexedSession, sessionFileLineOf } from '../../lib/session/read.ts';
import type { Message } from '../../lib/types.ts';
import { HEADER, entry, tempDir, user, writeSession } from './helpers/files.ts';

const idOf = (i: number): string => (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');

/** Bytes the index's per-entry columns hold. */
function columnBytes(index: SessionIndex): number {
  return index.offset.byteLength + index.length.byteLength + index.type.byteLength + index.flags.byteLength + index.role.byteLength;
}

/**
 * A linear session of `count` messages with a blank line now and then (so file lines and entries
 * part), or, with `branchBack`, one whose leaf hangs off its third entry: read front to back, then back.
 */
async function largeSession(dir: string, count: number, branchBack: boolean): Promise<{ file: string; expected: Array<{ text: string; line: number }> }> {
  const lines: unknown[] = [HEADER];
  const lineOfId = new Map<string, { text: string; line: number; parent: string | null }>();
  for (let i = 0; i < count; i++) {
    if (i % 1000 === 999) lines.push('');
    const parent = i === 0 ? null : branchBack && i === count - 1 ? idOf(2) : idOf(i - 1);
    lines.push(entry(idOf(i), parent, user(`m${i}`)));
    lineOfId.set(idOf(i), { text: `m${i}`, line: lines.length, parent });
  }
  const expected: Array<{ text: string; line: number }> = [];
  for (let id: string | null = idOf(count - 1); id !== null; id = lineOfId.get(id)!.parent) expected.push(lineOfId.get(id)!);
  expected.reverse();
  return { file: await writeSession(path.join(dir, 's.jsonl'), lines), expected };
}

async function readAll(index: SessionIndex, file: string): Promise<Message[]> {
  const session = await readIndexedSession(index, fileEntries(file, file, { dev: index.dev, ino: index.ino, size: index.size }, 1 << 20), { recordFileLines: true });
  return session.toArray();
}

test('a large session read front to back: the read plan gives back the index columns it has passed, and keeps every file line', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const { file, expected } = await largeSession(dir, LARGE_INDEX_ENTRIES + 5_000, false);
    const index = await buildSessionIndex(file);
    const before = columnBytes(index);
    assert.ok(before > LARGE_INDEX_ENTRIES * 11, `${before} bytes of columns`);
    const messages = await readAll(index, file);
    assert.ok(columnBytes(index) < 1024, `${columnBytes(index)} bytes of columns left`);
    assert.equal(messages.length, expected.length);
    for (let i = 0; i < messages.length; i += 997) {
      assert.equal(messages[i]!.content, expected[i]!.text);
      assert.equal(sessionFileLineOf(messages[i]!), expected[i]!.line, `message ${i}'s line`);
    }
    assert.equal(sessionFileLineOf(messages.at(-1)!), expected.at(-1)!.line);
  } finally {
    await cleanup();
  }
});

test('a path that goes back in the file keeps the columns, and reads the same', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const { file, expected } = await largeSession(dir, LARGE_INDEX_ENTRIES + 5_000, true);
    const index = await buildSessionIndex(file);
    const messages = await readAll(index, file);
    assert.ok(columnBytes(index) > 0, 'entries out of file order: nothing given back');
    assert.deepEqual(
      messages.map((message) => [message.content, sessionFileLineOf(message)]),
      expected.map(({ text, line }) => [text, line]),
    );
  } finally {
    await cleanup();
  }
});
