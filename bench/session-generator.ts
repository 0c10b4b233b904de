/**
 * The session file `npm run bench:session` reads (bench/session.ts): a header, a trunk with a
 * model snapshot and a compaction, an abandoned branch, a branch summary and the way back, every
 * message entry an 8-hex id, of about `bytes` in all. Seeded: the same shape gives the same file.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rng } from './rng.ts';

const WORDS = 'the a stream parser reads each line of the session file and keeps only what the index needs while the pipeline writes the replay copy with every rule applied in bounded memory for any provider route'.split(' ');

/** The most source text the generator builds, in characters (the default shape's pool takes 18M). */
export const POOL_CHARS = 24 << 20;

/**
 * How many source texts of `payload * 3` characters the pool holds: 4,096, fewer when they would
 * pass POOL_CHARS. Few entries in a large file make each text long, and 4,096 of them (300 KB each
 * for 20,000 entries in 2 GB) ran node out of heap.
 */
export function poolTextCount(payload: number): number {
  return Math.max(4, Math.min(4096, Math.floor(POOL_CHARS / (payload * 3))));
}

export interface SessionBenchShape {
  /** Entries on the active branch (root to leaf). */
  entries: number;
  /** Entries of the abandoned branch. */
  abandoned: number;
  /** Approximate file size in bytes. */
  bytes: number;
  seed: number;
}

/** Writes the bench session; returns its size. */
export async function generateBenchSession(file: string, shape: SessionBenchShape): Promise<number> {
  const random = rng(shape.seed);
  const total = shape.entries + shape.abandoned;
  // Average payload per message entry, to land near the wanted size (envelope and fields ~420 bytes).
  const payload = Math.max(64, Math.floor(shape.bytes / total) - 420);
  const poolTexts = poolTextCount(payload);
  const pool: string[] = [];
  for (let i = 0; i < poolTexts; i++) {
    let text = '';
    while (text.length < payload * 3) text += WORDS[Math.floor(random() * WORDS.length)] + ' ';
    pool.push(text);
  }
  const text = (size: number): string => {
    const source = pool[Math.floor(random() * pool.length)]!;
    const start = Math.floor(random() * (source.length - size));
    return source.slice(start, start + size);
  };
  // Distinct 8-hex ids that look random: multiplication by an odd constant is a bijection mod 2^32.
  const idOf = (n: number): string => (Math.imul(n + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
  const out = createWriteStream(file, { highWaterMark: 1 << 22 });
  let pending: string[] = [];
  let pendingChars = 0;
  let written = 0;
  const write = async (entry: unknown): Promise<void> => {
    const line = JSON.stringify(entry) + '\n';
    pending.push(line);
    pendingChars += line.length;
    written += line.length;
    if (pendingChars >= 1 << 22) {
      const chunk = pending.join('');
      pending = [];
      pendingChars = 0;
      if (!out.write(chunk)) await once(out, 'drain');
    }
  };
  let clock = Date.parse('2026-07-01T00:00:00.000Z');
  let serial = 0;
  let callSerial = 0;
  const stamp = (): string => new Date((clock += 1000)).toISOString();
  await write({ type: 'session', version: 3, id: '01982a6e-5c00-7a3b-9d2e-4f1c8b7a6e01', timestamp: stamp(), cwd: '/srv/bench' });
  const usage = { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, totalTokens: 1280, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  /** Appends `count` message entries after `parent`; returns the last id. */
  const branch = async (parent: string | null, count: number, onEntry?: (written: number, id: string) => Promise<string | undefined>): Promise<string | null> => {
    let openCall: string | undefined;
    for (let i = 0; i < count; i++) {
      const id = idOf(serial++);
      const timestamp = stamp();
      const ms = clock;
      const kind = i % 3;
      let message: Record<string, unknown>;
      if (kind === 0) {
        message = { role: 'user', content: text(Math.floor(payload * 0.3)), timestamp: ms };
        openCall = undefined;
      } else if (kind === 1) {
        openCall = `toolu_${(callSerial++).toString(36).padStart(8, '0')}`;
        message = {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: text(Math.floor(payload * 0.3)), thinkingSignature: 'c2lnbmF0dXJl' },
            { type: 'text', text: text(Math.floor(payload * 0.3)) },
            { type: 'toolCall', id: openCall, name: 'read', arguments: { path: `src/file-${i % 97}.ts` } },
          ],
          api: 'anthropic-messages',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          usage,
          stopReason: 'toolUse',
          timestamp: ms,
        };
      } else {
        message = { role: 'toolResult', toolCallId: openCall, toolName: 'read', content: [{ type: 'text', text: text(Math.floor(payload * 2.4)) }], isError: false, timestamp: ms };
      }
      await write({ type: 'message', id, parentId: parent, timestamp, message });
      parent = id;
      const next = await onEntry?.(i + 1, id);
      if (next !== undefined) parent = next;
    }
    return parent;
  };
  const branchPoint = Math.floor(shape.entries * 0.3);
  const compactionAt = Math.floor(shape.entries * 0.1);
  let firstKept = '';
  // Trunk, with a compaction at 10% keeping from 5% (so most of the branch is still emitted) and a model snapshot.
  const trunkEnd = await branch(null, branchPoint, async (n, id) => {
    if (n === Math.floor(shape.entries * 0.05)) firstKept = id;
    if (n === 10) {
      const snapshot = idOf(serial++);
      await write({ type: 'custom', customType: 'model-snapshot', data: { timestamp: clock, provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }, id: snapshot, parentId: id, timestamp: stamp() });
      return snapshot;
    }
    if (n === compactionAt) {
      const compaction = idOf(serial++);
      await write({ type: 'compaction', id: compaction, parentId: id, timestamp: stamp(), summary: text(2000), firstKeptEntryId: firstKept, tokensBefore: 180_000 });
      return compaction;
    }
    return undefined;
  });
  // The abandoned branch, then the way back: a branch summary under the branch point.
  await branch(trunkEnd, shape.abandoned);
  const summary = idOf(serial++);
  await write({ type: 'branch_summary', id: summary, parentId: trunkEnd, timestamp: stamp(), fromId: trunkEnd, summary: text(600) });
  await branch(summary, shape.entries - branchPoint - 1);
  if (pending.length > 0) out.write(pending.join(''));
  out.end();
  await once(out, 'finish');
  return written;
}
