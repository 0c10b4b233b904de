import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultIdIndex, hashResultId, hashResultIdAscii, scanInputFile, scanResultIds } from '../../lib/result-index.ts';
import { sanitizeFile } from '../../lib/run.ts';
import { routeWantsCompactionTime } from '../../lib/session/sanitize.ts';
import { Writable } from 'node:stream';
import { readJsonlMessages } from '../../lib/jsonl.ts';
import { repairToolResultPairing } from '../../transforms/repair-tool-result-pairing.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import type { Message } from '../../lib/types.ts';

async function indexOf(text: string): Promise<ResultIdIndex> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-index-'));
  try {
    const file = path.join(dir, 'in.jsonl');
    await writeFile(file, text);
    return await scanResultIds(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('scanResultIds', () => {
  test('records every id under any of the six keys, trimmed, with spacing and escapes (small file: one buffer, its last line)', async () => {
    const index = await indexOf(
      [
        '{"role":"user","content":"x"}',
        '{"role":"toolResult","toolCallId":"a","content":[]}',
        '{"role":"toolResult", "toolUseId" : " b ","content":[]}',
        '{"role":"toolResult","call_id":"c\\u0031","content":[]}',
        '{"type":"message","message":{"role":"toolResult","tool_use_id":"a","content":[]}}',
        '{"role":"toolResult","callId":5,"tool_call_id":"d"}',
        '{"role":"assistant","content":[{"type":"toolCall","id":"e","name":"read"}]}',
      ].join('\r\n'),
    );
    // Lines 1-6 end with a newline and form one buffer; line 7 (no newline) is read on its own.
    for (const id of ['a', 'b', ' b', 'c1', 'd']) assert.equal(index.lastLineOf(id), 6, id);
    assert.equal(index.lastLineOf('e'), 0, 'a call id is not a result id');
    assert.equal(index.lastLineOf('nope'), 0);
  });

  test('a key mentioned inside a string value is escaped and not read as an id', async () => {
    const index = await indexOf('{"role":"user","content":"the \\"toolCallId\\":\\"zz\\" field"}\n');
    assert.equal(index.lastLineOf('zz'), 0);
  });

  test('over many buffers every id gets an upper bound of its line, close enough to finalize early', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(JSON.stringify({ role: 'toolResult', toolCallId: `id-${i}`, content: [{ type: 'text', text: 'x'.repeat(i % 997) }] }));
    const index = await indexOf(lines.join('\n') + '\n');
    for (let i = 0; i < 40_000; i += 1234) {
      const line = index.lastLineOf(`id-${i}`);
      assert.ok(line >= i + 1, `id-${i} at ${line}, really ${i + 1}`);
      // Upper bound within one read buffer (4 MiB of ~550-byte lines: well under 10,000 lines).
      assert.ok(line - (i + 1) < 10_000, `id-${i} at ${line}, really ${i + 1}`);
    }
  });
});

describe('pairing with a result index', () => {
  const call = (id: string) => ({ type: 'toolCall', id, name: 'read', arguments: {} });
  function session(): Message[] {
    const out: Message[] = [{ role: 'user', content: 'go' }];
    for (let i = 0; i < 300; i++) {
      out.push({ role: 'assistant', content: [call(`c${i}`), call(`m${i}`)], stopReason: 'toolUse' });
      out.push({ role: 'toolResult', toolCallId: `c${i}`, toolName: 'read', content: [{ type: 'text', text: `r${i}` }] });
      if (i % 50 === 7) out.push({ role: 'user', content: `u${i}` }, { role: 'toolResult', toolCallId: `m${i - 3}`, toolName: 'read', content: [] });
    }
    return out;
  }

  test('finalizes frames early and gives exactly the output of the full holdback', async () => {
    const text = session().map((m) => JSON.stringify(m)).join('\n') + '\n';
    const dir = await mkdtemp(path.join(tmpdir(), 'th-index-'));
    try {
      const file = path.join(dir, 'in.jsonl');
      await writeFile(file, text);
      const resultIndex = await scanResultIds(file);
      const read = async (recordLines: boolean): Promise<Message[]> => {
        const out: Message[] = [];
        for await (const batch of readJsonlMessages([text], { recordLines })) out.push(...batch);
        return out;
      };
      const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6', now: () => 1 };
      let indexedStats: Record<string, Record<string, number>> = {};
      let plainStats: Record<string, Record<string, number>> = {};
      const indexed = await sanitizeSessionHistory(await read(true), { ...route, resultIndex, memoryBudgetBytes: 2048, onStats: (s) => (indexedStats = s.rules) });
      const plain = await sanitizeSessionHistory(await read(false), { ...route, memoryBudgetBytes: 2048, onStats: (s) => (plainStats = s.rules) });
      assert.deepEqual(indexed, plain);
      assert.ok((indexedStats['repair-tool-result-pairing']?.finalizedEarly ?? 0) > 250);
      // Only the few frames a displaced result really skips are held; the control holds to the end.
      const indexedSpill = indexedStats['repair-tool-result-pairing']?.spilledEntries ?? 0;
      const plainSpill = plainStats['repair-tool-result-pairing']?.spilledEntries ?? 0;
      assert.ok(plainSpill > 500, `the control spills (${plainSpill})`);
      assert.ok(indexedSpill * 10 < plainSpill, `indexed ${indexedSpill} vs plain ${plainSpill}`);
      assert.deepEqual(repairToolResultPairing(session(), { now: () => 1 }).messages.length, plain.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('compaction summaries in the pre-scan', () => {
  test('collects compactionSummary messages, bare or in message entries, and ignores mentions in text', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-index-'));
    try {
      const file = path.join(dir, 'in.jsonl');
      await writeFile(
        file,
        [
          '{"role":"user","content":"the role \\"compactionSummary\\" is special"}',
          '{"role":"compactionSummary","summary":"s1","timestamp":100}',
          '{"type":"message","id":"a","parentId":null,"message":{"role":"compactionSummary","summary":"s2","timestamp":200}}',
        ].join('\n'),
      );
      const scan = await scanInputFile(file);
      assert.deepEqual(
        scan.compactionSummaries.map((m) => m.summary),
        ['s1', 's2'],
      );
      assert.deepEqual((await scanInputFile(file, { compactionSummaries: false })).compactionSummaries, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('only routes whose rules read the compaction time have the scan look for summaries', () => {
    assert.equal(routeWantsCompactionTime({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }), true);
    assert.equal(routeWantsCompactionTime({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', compactionTimestamp: 5 }), false);
    assert.equal(routeWantsCompactionTime({ provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' }), false);
    assert.equal(routeWantsCompactionTime({ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }), false);
  });

  test('sanitizeFile knows the compaction time up front: same output as the holding array API, nothing held', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-index-'));
    try {
      const signed = (ts: number, text: string): Message => ({
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 't', thinkingSignature: 'c2ln' }, { type: 'text', text }],
        stopReason: 'stop',
        timestamp: ts,
      });
      const messages: Message[] = [
        { role: 'user', content: 'q1', timestamp: 1 },
        signed(2, 'a1'),
        { role: 'user', content: 'q2', timestamp: 3 },
        signed(10, 'a2'),
        { role: 'compactionSummary', summary: 'earlier', tokensBefore: 5, timestamp: 5 },
        { role: 'user', content: 'q3', timestamp: 11 },
      ];
      const file = path.join(dir, 'in.jsonl');
      await writeFile(file, messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
      const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6', now: () => 1 };
      let out = '';
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          out += chunk.toString();
          callback();
        },
      });
      const stats = await sanitizeFile({ path: file, output: sink, options: route });
      const fromFile = out.trim().split('\n').map((line) => JSON.parse(line) as Message);
      assert.deepEqual(fromFile, await sanitizeSessionHistory(messages, route));
      assert.equal(stats.rules['strip-stale-thinking-signatures']?.spilledEntries, undefined);
      assert.equal(stats.rules['strip-stale-thinking-signatures']?.unsignedTurns, 1, 'the turn before the summary lost its signature');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test('ResultIdIndex: the last line per trimmed id, by id or by its hash', () => {
  const index = new ResultIdIndex();
  index.record(' call_1 ', 3);
  index.record('call_1', 2);
  index.recordHash(hashResultId('call_2'), 9);
  assert.equal(index.lastLineOf('call_1'), 3);
  assert.equal(index.lastLineOf('call_2 '), 9);
  assert.equal(index.lastLineOf('nope'), 0);
  assert.equal(index.size, 2);
});

test('grows past its first table and keeps every id', () => {
  const index = new ResultIdIndex();
  for (let i = 1; i <= 50_000; i++) index.record(`toolu_${i}`, i);
  for (let i = 1; i <= 50_000; i += 997) assert.equal(index.lastLineOf(`toolu_${i}`), i);
  assert.equal(index.size, 50_000);
});

test('past its bound the index moves ids to disk and still gives the last line of each', () => {
  const index = new ResultIdIndex(100);
  const reference = new Map<string, number>();
  try {
    let state = 5;
    const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 20_000; i++) {
      const id = `toolu_${next() % 6000}`;
      const line = 1 + (next() % 100_000);
      index.record(id, line);
      reference.set(id, Math.max(reference.get(id) ?? 0, line));
    }
    for (const [id, line] of reference) assert.equal(index.lastLineOf(id), line, id);
    for (let i = 6000; i < 7000; i++) assert.equal(index.lastLineOf(`toolu_${i}`), 0);
    // About 2.7 bytes a record moved to disk (its filter), against 8-16 in the table.
    assert.ok(index.byteLength < 4096 + 20_000 * 3, `${index.byteLength} bytes for 20,000 records`);
  } finally {
    index.dispose();
  }
});

test('hashResultIdAscii: the bytes of an ASCII id hash as its string does; any other byte gives -1', () => {
  for (const id of ['toolu_01jcnGf2v41gr4EU2NRPRBQd', 'call_2', 'a', '', 'x|y:z~']) {
    const bytes = Buffer.from(`"${id}"`, 'utf8');
    assert.equal(hashResultIdAscii(bytes, 1, bytes.length - 1), hashResultId(id), id);
  }
  const accented = Buffer.from('call_é', 'utf8');
  assert.equal(hashResultIdAscii(accented, 0, accented.length), -1);
});
