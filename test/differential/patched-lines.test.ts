/**
 * The patch path against the stringify path: every message the pipeline writes, read from lines
 * as JSON.stringify writes them, must come out as the same bytes whether the writer patches its
 * original line (lib/line-splice.ts, through patchedLineOf) or stringifies it.
 *
 * Inputs: the recorded oracle cases (fixtures/oracle, each with its own route), the property
 * generator's transcripts (test/properties/arbitraries.ts) on every representative policy, and
 * the bench workloads (bench/generate.ts) on the routes the bench runs, both as bare messages
 * and as session entries (the reader's fast path keeps the message's own text as its line).
 * The bench workloads run again with a one-byte memory budget, so every held message goes
 * through a spill file and back (lib/spill-lines.ts keeps its line). Each input also asserts the patch path was taken (some copies came out patched), so a change
 * that quietly sends every copy to the stringify path fails here too.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { createPipeline } from '../../lib/pipeline.ts';
import { JsonlLineParser, patchedLineOf, rawLineOf, stringifyMessage } from '../../lib/jsonl.ts';
import { writtenLines } from '../helpers/written-lines.ts';
import { derivationOf } from '../../lib/message-edits.ts';
import { isHygieneError } from '../../lib/errors.ts';
import type { HygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { loadOracleCases } from './load.ts';
import { transcriptArbitrary } from '../properties/arbitraries.ts';
import { POLICIES, PROPERTY_NOW } from '../properties/harness.ts';
import { generateSession } from '../../bench/generate.ts';

/** How the pipeline's messages were written: their line copied, patched, or stringified. */
interface Tally {
  copied: number;
  patched: number;
  stringified: number;
}

const tallies = new Map<string, Tally>();
after(() => {
  for (const [name, t] of tallies) process.stdout.write(`# ${name}: ${t.copied} lines copied, ${t.patched} patched, ${t.stringified} stringified\n`);
});

/**
 * Runs `lines` through the pipeline for `options` and checks each output message's patched line
 * against JSON.stringify of it. Undefined when the pipeline rejected the input (a documented
 * rejection is not this test's concern).
 */
async function checkLines(lines: readonly string[], options: HygieneOptions, tally: Tally): Promise<void> {
  const parser = new JsonlLineParser();
  const out: Message[] = [];
  const pipeline = createPipeline({ ...options, now: () => PROPERTY_NOW }, (message) => out.push(message));
  try {
    for (const line of lines) {
      const message = parser.parse(line);
      if (message === undefined) continue;
      const wait = pipeline.write(message);
      if (wait !== undefined) await wait;
    }
    await pipeline.end();
  } catch (error) {
    if (isHygieneError(error)) return;
    throw error;
  } finally {
    pipeline.dispose();
  }
  const expected: string[] = [];
  for (const message of out) {
    const stringified = JSON.stringify(message) + '\n';
    expected.push(stringified);
    assert.equal(stringifyMessage(message), stringified);
    if (rawLineOf(message) !== undefined) tally.copied++;
    else if (derivationOf(message) !== undefined && patchedLineOf(message) !== undefined) tally.patched++;
    else tally.stringified++;
  }
  // The writer encodes a patched line's pieces straight into its chunks: the same bytes.
  assert.equal((await writtenLines(out)).text, expected.join(''));
}

function tallyOf(name: string): Tally {
  let t = tallies.get(name);
  if (t === undefined) tallies.set(name, (t = { copied: 0, patched: 0, stringified: 0 }));
  return t;
}

/** A session entry for a message, as OpenClaw writes it (the message last). */
function entryLine(message: unknown, index: number): string {
  return JSON.stringify({ type: 'message', id: index.toString(16).padStart(8, '0'), parentId: index === 0 ? null : (index - 1).toString(16).padStart(8, '0'), timestamp: '2026-07-20T00:00:00.000Z', message });
}

describe('patched lines are the bytes JSON.stringify writes', () => {
  test('the oracle cases', async () => {
    for (const suite of ['foundation', 'thinking', 'tool-calls', 'tool-names', 'turns']) {
      const tally = tallyOf(`oracle ${suite}`);
      for (const recorded of loadOracleCases(suite)) {
        const lines = recorded.messages.map((message) => JSON.stringify(message));
        await checkLines(lines, recorded.options as HygieneOptions, tally);
      }
    }
    const all = [...tallies].filter(([name]) => name.startsWith('oracle')).reduce((sum, [, t]) => sum + t.patched, 0);
    assert.ok(all > 0, 'some copies were patched');
  });

  test('the property generator on every representative policy', async () => {
    const runs = Math.max(1, Math.min(Number(process.env.PROPERTY_RUNS ?? 50), 2000));
    for (const policy of POLICIES) {
      const tally = tallyOf(`properties ${policy.name}`);
      await fc.assert(
        fc.asyncProperty(transcriptArbitrary(), async (messages) => {
          await checkLines(messages.map((message) => JSON.stringify(message)), policy.route as HygieneOptions, tally);
          await checkLines(messages.map(entryLine), policy.route as HygieneOptions, tally);
        }),
        { numRuns: runs, seed: 20270101 },
      );
      assert.ok(tally.patched > 0, `${policy.name}: some copies were patched`);
    }
  });

  test('the bench workloads on the bench routes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-patched-'));
    try {
      const routes: HygieneOptions[] = [
        { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
        { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
        { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
      ];
      for (const workload of ['agent', 'mixed-provider', 'mixed-details'] as const) {
        const file = path.join(dir, `${workload}.jsonl`);
        await generateSession(file, { messages: 1500, workload, format: 'messages', seed: 3, payloadScale: 0.05 });
        const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
        for (const route of routes) {
          const tally = tallyOf(`bench ${workload} ${route.modelApi}`);
          await checkLines(lines, route, tally);
          await checkLines(lines.map((line, i) => entryLine(JSON.parse(line), i)), route, tally);
          if (workload === 'mixed-details') assert.ok(tally.patched > 0, `${workload} on ${route.modelApi}: some copies were patched`);
          // A one-byte memory budget: everything any rule holds goes to disk and back (lib/spill-lines.ts).
          const spilled = tallyOf(`bench ${workload} ${route.modelApi}, spilled`);
          await checkLines(lines, { ...route, memoryBudgetBytes: 1 }, spilled);
          // Anthropic: held messages spill through the queues' codec. Other routes also park results
          // in lib/frames.ts's SpillStore, which still stringifies (most of them at this budget).
          if (route.provider === 'anthropic') {
            const kept = spilled.copied + spilled.patched;
            assert.ok(kept > 4 * spilled.stringified, `${workload} on ${route.modelApi}, spilled: ${kept} lines kept, ${spilled.stringified} stringified`);
          }
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
