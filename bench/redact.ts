/**
 * `npm run bench:redact`: what `redact: { secrets: true }` costs on the mixed-provider workload.
 *
 * Generates the mixed-provider workload (bench/generate.ts, full payload) as bare messages and
 * as a session file, then runs the anthropic and openai-responses routes with and without
 * redaction, interleaved, `--rounds` times (default 5), keeping each case's best time. Prints
 * each route's throughput both ways and the cost: 1 - (MB/s with) / (MB/s without). The issue's
 * budget is 15%. The workload holds no secret, so this is the cost of looking.
 *
 *   npm run bench:redact -- [--messages 20000] [--rounds 5] [--formats messages,session]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateSession } from './generate.ts';
import { ROUTES, measureRoute } from './measure.ts';

const { values } = parseArgs({ options: { messages: { type: 'string' }, rounds: { type: 'string' }, formats: { type: 'string' } } });
const messages = Number(values.messages ?? 20_000);
const rounds = Number(values.rounds ?? 5);
const formats = (values.formats ?? 'messages,session').split(',') as Array<'messages' | 'session'>;
const routes = ROUTES.filter((route) => route.label === 'anthropic' || route.label === 'openai-responses');
const dir = await mkdtemp(path.join(tmpdir(), 'th-redact-bench-'));
try {
  const output = path.join(dir, 'out.jsonl');
  for (const format of formats) {
    const input = path.join(dir, `mixed-${format}.jsonl`);
    const generated = await generateSession(input, { messages, format, workload: 'mixed-provider', seed: 7, compactionEvery: 0 });
    const mb = generated.bytes / 1e6;
    const best: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      for (const route of routes) {
        for (const mode of [undefined, 'redact'] as const) {
          const key = `${route.label}${mode === undefined ? '' : ' redact'}`;
          const measured = await measureRoute(input, output, route, mode);
          best[key] = Math.min(best[key] ?? Infinity, measured.ms);
        }
      }
    }
    process.stdout.write(`mixed-provider (${format === 'messages' ? 'bare messages' : 'session file'}): ${generated.messages} messages, ${mb.toFixed(0)} MB, best of ${rounds}\n`);
    for (const route of routes) {
      const plain = mb / (best[route.label]! / 1000);
      const redacted = mb / (best[`${route.label} redact`]! / 1000);
      process.stdout.write(`  ${route.label.padEnd(18)} ${plain.toFixed(1).padStart(7)} MB/s, with redaction ${redacted.toFixed(1).padStart(7)} MB/s: cost ${((1 - redacted / plain) * 100).toFixed(1)}%\n`);
    }
    await rm(input, { force: true });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
