/** Temporary directories and fixture paths for the session tests. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const readFixtures = path.join(root, 'fixtures/sessions/read');
export const repairFixtures = path.join(root, 'fixtures/sessions/repair');

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'th-session-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes lines (objects are stringified) joined by LF with a final LF; returns the path. */
export async function writeSession(file: string, lines: unknown[], options: { eol?: string; final?: boolean } = {}): Promise<string> {
  const eol = options.eol ?? '\n';
  const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join(eol) + (options.final === false ? '' : eol);
  await writeFile(file, text);
  return file;
}

export const HEADER = { type: 'session', version: 3, id: '01982c00-0000-7000-8000-0000000000aa', timestamp: '2026-07-23T10:00:00.000Z', cwd: '/w' };

export function entry(id: string, parentId: string | null, message: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'message', id, parentId, timestamp: '2026-07-23T10:00:01.000Z', ...extra, message };
}

export const user = (text: string, timestamp = 1): Record<string, unknown> => ({ role: 'user', content: text, timestamp });
export const assistant = (text: string, timestamp = 2, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  stopReason: 'stop',
  timestamp,
  ...extra,
});

/** JSON round trip: drops undefined keys, as the JSONL output does. */
export const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
