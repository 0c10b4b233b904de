/**
 * The floor: what it costs on this machine to read a JSONL file, split it into lines,
 * JSON.parse and JSON.stringify every line and write the result, with no rules at all.
 * The pipeline is reported as a ratio to this, measured in the same run, so machine
 * noise cancels out.
 *
 * With --parse-only, the same read, split and JSON.parse of every line, with nothing
 * stringified or written: what any pipeline that hands its rules message objects pays before
 * its rules run (bench.ts --parse-floor prints it beside the floor).
 *
 * Usage (a child process of bench/bench.ts): node --import tsx bench/floor.ts IN OUT [--parse-only]
 * Prints one JSON line: {ms, messages, bytes, maxRssKb}.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { peakRssKb } from '../lib/peak-rss.ts';
import { benchArgs, benchUsageError } from './args.ts';

/** The input's non-empty lines, a chunk's worth at a time (the floor's own reading and splitting). */
async function* chunkLines(input: string): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of createReadStream(input, { encoding: 'utf8' })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    yield lines.filter((line) => line !== '');
  }
  if (rest !== '') yield [rest];
}

export async function runFloor(input: string, output: string, parseOnly = false): Promise<{ ms: number; messages: number; bytes: number }> {
  if (parseOnly) return runParseFloor(input);
  const started = performance.now();
  const out = createWriteStream(output);
  let messages = 0;
  for await (const lines of chunkLines(input)) {
    let text = '';
    for (const line of lines) text += JSON.stringify(JSON.parse(line)) + '\n';
    messages += lines.length;
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { ms: performance.now() - started, messages, bytes: (await stat(input)).size };
}

/** The floor's read, split and parse alone; a field of each value is read so the parse cannot be skipped. */
async function runParseFloor(input: string): Promise<{ ms: number; messages: number; bytes: number }> {
  const started = performance.now();
  let messages = 0;
  let keys = 0;
  for await (const lines of chunkLines(input)) {
    for (const line of lines) keys += Object.keys(JSON.parse(line) as object).length;
    messages += lines.length;
  }
  if (keys < messages) throw new Error(`${input}: a line without keys`);
  return { ms: performance.now() - started, messages, bytes: (await stat(input)).size };
}

if (process.argv[1]?.endsWith('floor.ts')) {
  const { values, positionals } = benchArgs(import.meta.url, { options: { 'parse-only': { type: 'boolean' } }, allowPositionals: true });
  if (positionals.length !== 2) benchUsageError(import.meta.url, `expected IN OUT, got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}`);
  const [input, output] = positionals;
  const result = await runFloor(input!, output!, values['parse-only'] === true);
  process.stdout.write(JSON.stringify({ ...result, maxRssKb: peakRssKb() }) + '\n');
}
