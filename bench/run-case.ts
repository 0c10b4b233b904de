/**
 * One pipeline run, as the CLI does it (file in, file out), in its own process so that
 * peak RSS belongs to this run alone.
 *
 * Usage: node --import tsx bench/run-case.ts IN OUT PROVIDER MODEL_API MODEL_ID [SESSION] [--redact=MODE] [--memory-budget=BYTES]
 * (with SESSION, IN is an OpenClaw database and SESSION one of its sessions; MODE `redact` runs
 * with `redact: { secrets: true }`, `redact-no-generic` without the generic detector: bench/redact.ts;
 * BYTES sets memoryBudgetBytes, so that bench/long-line.ts can put every line size past it)
 * Prints one JSON line: {ms, cpuMs, maxRssKb, messagesIn, messagesOut} (cpuMs: the process's CPU time over the same span, all threads).
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { sanitizeFile } from '../lib/run.ts';
import { sanitizeDatabaseSession } from '../lib/session/db-sanitize.ts';
import { OUTPUT_HIGH_WATER_MARK } from '../lib/atomic-write.ts';
import { peakRssKb } from '../lib/peak-rss.ts';
import { benchArgs, benchUsageError } from './args.ts';

const { values, positionals } = benchArgs(import.meta.url, {
  options: { redact: { type: 'string' }, 'memory-budget': { type: 'string' } },
  allowPositionals: true,
});
const mode = values.redact;
const budget = values['memory-budget'];
if (positionals.length < 5 || positionals.length > 6) benchUsageError(import.meta.url, `expected IN OUT PROVIDER MODEL_API MODEL_ID [SESSION], got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}`);
if (mode !== undefined && mode !== 'redact' && mode !== 'redact-no-generic') benchUsageError(import.meta.url, `--redact: ${mode} is not redact or redact-no-generic`);
if (budget !== undefined && !(Number(budget) > 0)) benchUsageError(import.meta.url, `--memory-budget: ${budget} is not a number of bytes`);
const [input, output, provider, modelApi, modelId, session] = positionals;
const started = performance.now();
const cpuStart = process.cpuUsage();
// The command's own output setting (lib/atomic-write.ts), so the case measures what `-o` does.
const out = createWriteStream(output!, { highWaterMark: OUTPUT_HIGH_WATER_MARK });
const redact = mode === 'redact' ? { secrets: true } : mode === 'redact-no-generic' ? { secrets: true, generic: false } : undefined;
const options = { provider, modelApi, modelId, ...(redact === undefined ? {} : { redact }), ...(budget === undefined ? {} : { memoryBudgetBytes: Number(budget) }) };
const stats =
  session === undefined
    ? await sanitizeFile({ path: input!, output: out, options })
    : await sanitizeDatabaseSession({ path: input!, session, output: out, options });
out.end();
await finished(out);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssKb: peakRssKb(), messagesIn: stats.messagesIn, messagesOut: stats.messagesOut, rules: stats.rules }) + '\n');
