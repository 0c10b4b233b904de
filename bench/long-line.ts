/**
 * One long line must cost time in proportion to its length. A transcript with one huge tool
 * result (a file read whole, a base64 blob) is held by the pairing stages and, past their memory
 * budget, spilled and read back; each step that joined the line's pieces one chunk at a time
 * copied it once per chunk, so a 64 MB line took 20 times as long as an 8 MB one.
 *
 * The gate sanitizes a transcript whose tool result is one line of SMALL MB and one of LARGE MB
 * and compares their time per MB (best of two runs). Both run under a memory budget below the
 * small line, so both take the same path: held by the lookahead stages, spilled, read back.
 * Linear work keeps the two about equal; work quadratic in the line's length makes the large
 * one's about LARGE / SMALL times the small one's. (Under the default budget only the large line
 * spills, and four stages each spilling it cost about 3.5 times the small line's time per MB:
 * a change of path, not of growth, so the two sizes must share the path. The floor cannot be
 * the yardstick either: a plain reader that joins each chunk to the rest of its line is itself
 * quadratic on one long line.)
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { measureRoute, type Route } from './measure.ts';

export const LONG_LINE_SIZES_MB = { small: 8, large: 64 } as const;
/** The memory budget both sizes run under: below the small line, so both spill. */
export const LONG_LINE_MEMORY_BUDGET_BYTES = 4 << 20;
/** How far the large line's time per MB may rise above the small one's (linear: about 1). */
export const LONG_LINE_MAX_SLOWDOWN = 2.5;

/** A read call answered by one tool result whose text is one line of `megabytes` MB. */
export async function writeLongLineTranscript(file: string, megabytes: number): Promise<void> {
  const model = { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' };
  const messages = [
    { role: 'user', content: 'Read the log.', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_log', name: 'read', arguments: { path: 'app.log' } }], stopReason: 'toolUse', ...model, timestamp: 2 },
    { role: 'toolResult', toolCallId: 'toolu_log', toolName: 'read', content: [{ type: 'text', text: 'log line\\t'.repeat(Math.ceil((megabytes * 1e6) / 10)) }], isError: false, timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: 'The log is clean.' }], stopReason: 'stop', ...model, timestamp: 4 },
  ];
  await writeFile(file, messages.map((message) => JSON.stringify(message)).join('\n') + '\n');
}

export interface LongLineResult {
  /** Milliseconds per MB of the line, per line size (MB). */
  readonly msPerMb: Record<number, number>;
  /** msPerMb(large) / msPerMb(small): about 1 when the cost is linear in the line's length. */
  readonly slowdown: number;
}

export async function measureLongLines(dir: string, route: Route, rounds = 2): Promise<LongLineResult> {
  const msPerMb: Record<number, number> = {};
  const output = path.join(dir, 'long-line.out.jsonl');
  for (const megabytes of [LONG_LINE_SIZES_MB.small, LONG_LINE_SIZES_MB.large]) {
    const input = path.join(dir, `long-line-${megabytes}.jsonl`);
    await writeLongLineTranscript(input, megabytes);
    let best = Infinity;
    for (let round = 0; round < rounds; round++) best = Math.min(best, (await measureRoute(input, output, route, undefined, undefined, LONG_LINE_MEMORY_BUDGET_BYTES)).ms);
    msPerMb[megabytes] = best / megabytes;
    await rm(input, { force: true });
  }
  return { msPerMb, slowdown: msPerMb[LONG_LINE_SIZES_MB.large]! / msPerMb[LONG_LINE_SIZES_MB.small]! };
}
