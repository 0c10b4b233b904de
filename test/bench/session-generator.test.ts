/**
 * The session `npm run bench:session` reads (bench/session-generator.ts): its size, its shape,
 * the same file from the same seed, and a pool of source text that stays bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { POOL_CHARS, generateBenchSession, poolTextCount } from '../../bench/session-generator.ts';

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-session-generator-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('lands near the size asked, with a header, a compaction, a branch summary and distinct ids', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'a.jsonl');
    const written = await generateBenchSession(file, { entries: 1500, abandoned: 90, bytes: 2_000_000, seed: 7 });
    assert.equal((await stat(file)).size, written);
    assert.ok(written > 1_500_000 && written < 2_500_000, `${written} bytes for 2,000,000 asked`);
    const entries = (await readFile(file, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(entries[0]!.type, 'session');
    const types = entries.map((entry) => entry.type);
    assert.equal(types.filter((type) => type === 'message').length, 1500 - 1 + 90);
    assert.equal(types.filter((type) => type === 'compaction').length, 1);
    assert.equal(types.filter((type) => type === 'branch_summary').length, 1);
    const ids = entries.slice(1).map((entry) => entry.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});

test('the same shape and seed give the same bytes, another seed others', async () => {
  await withDir(async (dir) => {
    const digest = async (name: string, seed: number): Promise<string> => {
      const file = path.join(dir, name);
      await generateBenchSession(file, { entries: 600, abandoned: 30, bytes: 600_000, seed });
      return createHash('sha256').update(await readFile(file)).digest('hex');
    };
    const first = await digest('a.jsonl', 3);
    assert.equal(await digest('b.jsonl', 3), first);
    assert.notEqual(await digest('c.jsonl', 4), first);
  });
});

test('the pool of source text: 4,096 texts for the default shape, bounded for few entries in a large file', () => {
  // The default shape (1M entries, 150k abandoned, 2 GiB): about 1,450 characters a message, as before the bound.
  assert.equal(poolTextCount(Math.floor((2 * 1024 ** 3) / 1_150_000) - 420), 4096);
  // 20,000 entries in 2 GiB made 4,096 texts of 300 KB: 1.2G characters, more than node's heap.
  const payload = Math.floor((2 * 1024 ** 3) / 22_000) - 420;
  const texts = poolTextCount(payload);
  assert.ok(texts >= 4 && texts * payload * 3 <= POOL_CHARS, `${texts} texts of ${payload * 3} characters`);
});
