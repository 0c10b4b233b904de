/**
 * `npm run bench:redact`: what `redact: { secrets: true }` costs on the mixed-provider workload.
 *
 * Generates the mixed-provider workload (bench/generate.ts, full payload) as bare messages and
 * as a session file, then runs the anthropic and openai-responses routes with and without
 * redaction, interleaved, `--rounds` times (default 5), keeping each case's best wall time and
 * best CPU time. Prints each route's throughput both ways and the cost, 1 - (MB/s with) / (MB/s
 * without), by wall time and by CPU time (steadier when other work shares the machine). The
 * issue's budget is 15%. The workload holds no secret: this is the cost of looking.
 *
 *   npm run bench:redact -- [--messages 20000] [--rounds 5] [--formats messages,session] [--generic off]
 *
 * `-- --secretlint-api N` instead times secretlint's own API (`lintSource` of @secretlint/core,
 * the recommended preset) against this project's scanner on the strings of N messages of the
 * same workload: why the rules are called directly (lib/secrets/secretlint.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchArgs } from './args.ts';
import { generateSession } from './generate.ts';
import { ROUTES, measureRoute } from './measure.ts';
import { readFile } from 'node:fs/promises';
import { createSecretScanner } from '../lib/secrets/scanner.ts';

/** Every string value of a message but ids and signatures: what the rule scans, roughly. */
function stringsOf(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) if (!/^(id|toolCallId|thinkingSignature|textSignature)$/.test(key)) stringsOf(item, out);
  }
}

async function compareWithLintSource(count: number): Promise<void> {
  const { lintSource } = await import('@secretlint/core');
  const { creator } = await import('@secretlint/secretlint-rule-preset-recommend');
  const dir = await mkdtemp(path.join(tmpdir(), 'th-redact-api-'));
  try {
    const input = path.join(dir, 'mixed.jsonl');
    await generateSession(input, { messages: count, format: 'messages', workload: 'mixed-provider', seed: 7 });
    const strings: string[] = [];
    for (const line of (await readFile(input, 'utf8')).split('\n')) if (line !== '') stringsOf(JSON.parse(line), strings);
    const mb = strings.reduce((sum, s) => sum + s.length, 0) / 1e6;
    const config = { rules: [{ id: creator.meta.id, rule: creator, rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }] }] };
    let started = performance.now();
    for (const content of strings) await lintSource({ source: { content, filePath: 'x.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } });
    const api = performance.now() - started;
    const scanner = createSecretScanner();
    started = performance.now();
    for (const content of strings) scanner.find(content);
    const ours = performance.now() - started;
    process.stdout.write(`${strings.length} strings of ${count} messages, ${mb.toFixed(1)} MB\n`);
    process.stdout.write(`  lintSource       ${((api * 1000) / strings.length).toFixed(1).padStart(8)} us a string ${(mb / (api / 1000)).toFixed(1).padStart(8)} MB/s\n`);
    process.stdout.write(`  scanner.find     ${((ours * 1000) / strings.length).toFixed(1).padStart(8)} us a string ${(mb / (ours / 1000)).toFixed(1).padStart(8)} MB/s\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const { values } = benchArgs(import.meta.url, { options: { messages: { type: 'string' }, rounds: { type: 'string' }, formats: { type: 'string' }, generic: { type: 'string' }, 'secretlint-api': { type: 'string' } } });
if (values['secretlint-api'] !== undefined) {
  await compareWithLintSource(Number(values['secretlint-api']));
  process.exit(0);
}
const messages = Number(values.messages ?? 20_000);
const rounds = Number(values.rounds ?? 5);
const formats = (values.formats ?? 'messages,session').split(',') as Array<'messages' | 'session'>;
const mode = values.generic === 'off' ? 'redact-no-generic' : 'redact';
const routes = ROUTES.filter((route) => route.label === 'anthropic' || route.label === 'openai-responses');
const dir = await mkdtemp(path.join(tmpdir(), 'th-redact-bench-'));
try {
  const output = path.join(dir, 'out.jsonl');
  for (const format of formats) {
    const input = path.join(dir, `mixed-${format}.jsonl`);
    const generated = await generateSession(input, { messages, format, workload: 'mixed-provider', seed: 7, compactionEvery: 0 });
    const mb = generated.bytes / 1e6;
    const wall: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      for (const route of routes) {
        for (const redact of [false, true]) {
          const key = `${route.label}${redact ? ' redact' : ''}`;
          const measured = await measureRoute(input, output, route, undefined, redact ? mode : undefined);
          wall[key] = Math.min(wall[key] ?? Infinity, measured.ms);
          cpu[key] = Math.min(cpu[key] ?? Infinity, measured.cpuMs ?? Infinity);
        }
      }
    }
    process.stdout.write(`mixed-provider (${format === 'messages' ? 'bare messages' : 'session file'}): ${generated.messages} messages, ${mb.toFixed(0)} MB, best of ${rounds}${mode === 'redact' ? '' : ', generic detector off'}\n`);
    for (const route of routes) {
      const plain = mb / (wall[route.label]! / 1000);
      const redacted = mb / (wall[`${route.label} redact`]! / 1000);
      const cpuCost = 1 - cpu[route.label]! / cpu[`${route.label} redact`]!;
      process.stdout.write(
        `  ${route.label.padEnd(18)} ${plain.toFixed(1).padStart(7)} MB/s, with redaction ${redacted.toFixed(1).padStart(7)} MB/s: cost ${((1 - redacted / plain) * 100).toFixed(1)}% (by CPU time ${(cpuCost * 100).toFixed(1)}%)\n`,
      );
    }
    await rm(input, { force: true });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
