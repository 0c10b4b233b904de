/**
 * One pipeline run, as the CLI does it (file in, file out), in its own process so that
 * peak RSS belongs to this run alone.
 *
 * Usage: node --import tsx bench/run-case.ts IN OUT PROVIDER MODEL_API MODEL_ID [redact]
 * (`redact`: with `redact: { secrets: true }`; `redact-no-generic`: without the generic detector; bench/redact.ts).
 * Prints one JSON line: {ms, cpuMs, maxRssKb, messagesIn, messagesOut} (cpuMs: the process's CPU time over the same span, all threads).
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { sanitizeFile } from '../lib/run.ts';
import { OUTPUT_HIGH_WATER_MARK } from '../lib/atomic-write.ts';
import { peakRssKb } from '../lib/peak-rss.ts';

const [input, output, provider, modelApi, modelId, mode] = process.argv.slice(2);
const started = performance.now();
const cpuStart = process.cpuUsage();
const out = createWriteStream(output!, { highWaterMark: 1 << 20 });
const stats = await sanitizeFile({ path: input!, output: out, options: { provider, modelApi, modelId, ...(mode === 'redact' ? { redact: { secrets: true } } : mode === 'redact-no-generic' ? { redact: { secrets: true, generic: false } } : {}) } });
out.end();
await finished(out);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssKb: peakRssKb(), messagesIn: stats.messagesIn, messagesOut: stats.messagesOut, rules: stats.rules }) + '\n');
