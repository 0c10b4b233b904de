/**
 * One pipeline run, as the CLI does it (file in, file out), in its own process so that
 * peak RSS belongs to this run alone.
 *
 * Usage: node --import tsx bench/run-case.ts IN OUT PROVIDER MODEL_API MODEL_ID [SESSION]
 * (with SESSION, IN is an OpenClaw database and SESSION one of its sessions)
 * Prints one JSON line: {ms, maxRssKb, messagesIn, messagesOut}.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { sanitizeFile } from '../lib/run.ts';
import { sanitizeDatabaseSession } from '../lib/session/db-sanitize.ts';
import { OUTPUT_HIGH_WATER_MARK } from '../lib/atomic-write.ts';
import { peakRssKb } from '../lib/peak-rss.ts';

const [input, output, provider, modelApi, modelId, session] = process.argv.slice(2);
const started = performance.now();
const out = createWriteStream(output!, { highWaterMark: 1 << 20 });
const options = { provider, modelApi, modelId };
const stats =
  session === undefined
    ? await sanitizeFile({ path: input!, output: out, options })
    : await sanitizeDatabaseSession({ path: input!, session, output: out, options });
out.end();
await finished(out);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, maxRssKb: peakRssKb(), messagesIn: stats.messagesIn, messagesOut: stats.messagesOut, rules: stats.rules }) + '\n');
