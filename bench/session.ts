/**
 * `npm run bench:session`: the session-file reader on a large session (2 GB, 1,000,000 entries
 * on the active branch, plus a long abandoned branch and a compaction), each measurement in its
 * own process so that peak RSS is that run's alone:
 *
 *   index   pass 1 only (buildSessionIndex)
 *   read    pass 1 + pass 2 (readSessionMessages, every message read and dropped)
 *   full    sanitize to /dev/null for a route (index, read, every rule, JSONL out), as the
 *           CLI does it
 *
 * Fails (exit 1) when the reader's peak RSS (the index and read runs) reaches the budget
 * (250 MB). The full runs are reported beside them: their peak is mostly V8's heap sizing for
 * the rules' allocation rate (their live heap stays under 10 MB; see the notes printed).
 * `--node-flags=--optimize-for-size` runs every child with those Node flags (space-separated).
 *
 * The session is generated once (seeded) into the OS temporary directory and reused.
 *
 * Usage: node --import tsx bench/session.ts [--entries N] [--abandoned N] [--bytes N] [--seed N]
 *        [--routes anthropic,openai-responses] [--regenerate] [--keep] [--json]
 */
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { cliChildSettings } from './cli-settings.ts';
import { mkdir, rm, open } from 'node:fs/promises';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { benchArgs, benchUsageError } from './args.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateBenchSession, type SessionBenchShape } from './session-generator.ts';

const RSS_BUDGET_MB = 250;
const here = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------
// One measurement (child process)

async function child(mode: string, file: string, route: string[]): Promise<void> {
  const started = performance.now();
  const result: Record<string, unknown> = { mode };
  if (mode === 'index') {
    const { buildSessionIndex } = await import('../lib/session/index-pass.ts');
    const index = await buildSessionIndex(file);
    result.indexMs = index.ms;
    result.entries = index.entryCount;
    result.prefixScanned = index.scanned;
    result.parsed = index.parsed;
  } else if (mode === 'read') {
    const { readSessionMessages } = await import('../lib/session/read.ts');
    const session = await readSessionMessages(file);
    let messages = 0;
    for await (const batch of session.batches()) messages += batch.length;
    Object.assign(result, { indexMs: session.stats.indexMs, prepareMs: session.stats.prepareMs, readMs: session.stats.readMs, messages, pathEntries: session.stats.pathEntries, entries: session.stats.entries });
  } else {
    // The command itself: transcript-hygiene sanitize FILE --provider ... --stats > /dev/null
    const { main } = await import('../lib/cli/main.ts');
    const { PassThrough } = await import('node:stream');
    const [provider, modelApi, modelId] = route;
    const stdout = createWriteStream('/dev/null');
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await main(['sanitize', file, '--provider', provider!, '--model-api', modelApi!, '--model-id', modelId!, '--stats'], { stdin: process.stdin, stdout, stderr });
    stdout.end();
    await once(stdout, 'finish');
    if (code !== 0) throw new Error(`sanitize exited ${code}: ${errors}`);
    const stats = JSON.parse(errors) as { messagesIn: number; messagesOut: number; session: { indexMs: number; prepareMs: number; readMs: number } };
    Object.assign(result, { indexMs: stats.session.indexMs, prepareMs: stats.session.prepareMs, readMs: stats.session.readMs, messagesIn: stats.messagesIn, messagesOut: stats.messagesOut });
  }
  result.ms = performance.now() - started;
  result.maxRssMb = Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
  process.stdout.write(JSON.stringify(result) + '\n');
}

const ROUTES: Record<string, string[]> = {
  anthropic: ['anthropic', 'anthropic-messages', 'claude-sonnet-4-5'],
  'openai-responses': ['openai', 'openai-responses', 'gpt-5'],
  google: ['google', 'google-generative-ai', 'gemini-2.5-pro'],
};

let nodeFlags: string[] = [];
const settings = cliChildSettings();

async function measure(mode: string, file: string, route: string[] = []): Promise<Record<string, unknown>> {
  // The command's process settings (bench/cli-settings.ts), then any --node-flags given.
  const { stdout } = await promisify(execFile)(process.execPath, [...settings.execArgv, ...nodeFlags, '--import', 'tsx', here, '--child', mode, file, ...route], {
    maxBuffer: 1 << 20,
    env: settings.env,
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

async function main(): Promise<number> {
  const { values, positionals } = benchArgs(import.meta.url, {
    allowPositionals: true,
    options: {
      child: { type: 'string' },
      entries: { type: 'string' },
      abandoned: { type: 'string' },
      bytes: { type: 'string' },
      seed: { type: 'string' },
      routes: { type: 'string' },
      regenerate: { type: 'boolean' },
      'node-flags': { type: 'string' },
      keep: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  if (values.child !== undefined) {
    await child(values.child, positionals[0]!, positionals.slice(1));
    return 0;
  }
  const shape: SessionBenchShape = {
    entries: Number(values.entries ?? 1_000_000),
    abandoned: Number(values.abandoned ?? 150_000),
    bytes: Number(values.bytes ?? 2 * 1024 ** 3),
    seed: Number(values.seed ?? 1),
  };
  const dir = path.join(tmpdir(), 'transcript-hygiene-bench');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `session-${shape.entries}-${shape.abandoned}-${shape.bytes}-${shape.seed}.jsonl`);
  if (values.regenerate || !existsSync(file)) {
    const began = performance.now();
    process.stderr.write(`generating ${file} ...\n`);
    await generateBenchSession(file, shape);
    process.stderr.write(`generated in ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
  }
  const size = statSync(file).size;
  // Warm the page cache so the first measurement does not pay for the disk alone.
  const warm = await open(file, 'r');
  const buffer = Buffer.allocUnsafe(1 << 22);
  for (let at = 0; at < size; at += buffer.length) await warm.read(buffer, 0, buffer.length, at);
  await warm.close();

  nodeFlags = (values['node-flags'] ?? '').split(' ').filter((flag) => flag !== '');
  const routes = (values.routes ?? 'anthropic,openai-responses').split(',').filter((r) => r !== '');
  const results: Record<string, unknown>[] = [];
  results.push(await measure('index', file));
  results.push(await measure('read', file));
  for (const route of routes) {
    const args = ROUTES[route];
    if (args === undefined) benchUsageError(import.meta.url, `unknown route ${route} (${Object.keys(ROUTES).join(', ')})`);
    results.push({ route, ...(await measure('full', file, args)) });
  }
  const report = { file, sizeBytes: size, sizeGiB: Number((size / 1024 ** 3).toFixed(2)), shape, nodeFlags, rssBudgetMb: RSS_BUDGET_MB, results };
  if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    const s = (ms: unknown): string => ((ms as number) / 1000).toFixed(2) + ' s';
    process.stdout.write(`session: ${report.sizeGiB} GiB, ${shape.entries} entries on the active branch, ${shape.abandoned} abandoned${nodeFlags.length > 0 ? `; node ${nodeFlags.join(' ')}` : ''}\n`);
    for (const r of results) {
      const label = r.mode === 'full' ? `full (${r.route as string})` : (r.mode as string);
      const parts = [`total ${s(r.ms)}`, `index pass ${s(r.indexMs)}`];
      if (r.prepareMs !== undefined) parts.push(`between the passes ${s(r.prepareMs)}`);
      if (r.readMs !== undefined) parts.push(`read pass ${s(r.readMs)}`);
      if (r.messages !== undefined) parts.push(`${r.messages as number} messages`);
      if (r.messagesIn !== undefined) parts.push(`${r.messagesIn as number} in / ${r.messagesOut as number} out`);
      parts.push(`peak RSS ${r.maxRssMb as number} MB`);
      process.stdout.write(`  ${label.padEnd(26)} ${parts.join(', ')}\n`);
    }
  }
  if (!values.keep && values.regenerate) await rm(file, { force: true });
  const over = results.filter((r) => (r.maxRssMb as number) >= RSS_BUDGET_MB);
  for (const r of over) {
    const gated = r.mode !== 'full';
    process.stderr.write(`${gated ? '' : 'note: '}peak RSS ${r.maxRssMb as number} MB of ${r.mode as string}${r.route ? ` (${r.route as string})` : ''} is over the ${RSS_BUDGET_MB} MB budget${gated ? '' : ' (the rules\' garbage as V8 sizes its heap; try --node-flags=--optimize-for-size)'}\n`);
  }
  return over.some((r) => r.mode !== 'full') ? 1 : 0;
}

process.exitCode = await main();
