/**
 * One pipeline run, as the CLI does it (file in, file out), in its own process so that
 * peak RSS belongs to this run alone.
 *
 * Usage: node --import tsx bench/run-case.ts IN OUT PROVIDER MODEL_API MODEL_ID [redact]
 * (`redact`: with `redact: { secrets: true }`, bench/redact.ts's case).
 * Prints one JSON line: {ms, maxRssKb, messagesIn, messagesOut}.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { sanitizeFile } from '../lib/run.ts';
import { OUTPUT_HIGH_WATER_MARK } from '../lib/atomic-write.ts';
import { peakRssKb } from '../lib/peak-rss.ts';

const [input, output, provider, modelApi, modelId, mode] = process.argv.slice(2);
const started = performance.now();
const out = createWriteStream(output!, { highWaterMark: 1 << 20 });
const stats = await sanitizeFile({ path: input!, output: out, options: { provider, modelApi, modelId, ...(mode === 'redact' ? { redact: { secrets: true } } : {}) } });
out.end();
await finished(out);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, maxRssKb: peakRssKb(), messagesIn: stats.messagesIn, messagesOut: stats.messagesOut, rules: stats.rules }) + '\n');
