/**
 * Dev script: records the reference implementation's answers for a generated
 * suite into `fixtures/oracle/<suite>.jsonl`, so the differential tests run
 * without the oracle (spec: the project's tests must pass without it).
 *
 *   node --import tsx test/differential/record.ts foundation [--seed N] [--count N]
 *
 * The oracle is `$ORACLE` or /work/shared/oracle/oracle.mjs (see its README; it
 * needs its one-time setup.sh). Each output line is
 * `{name, options, messages, expected}`, or `{name, options, messages, error}`
 * when the reference threw. Re-recording with the same seed and count gives the
 * same file as long as the generator and the reference do not change.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DifferentialCase, RecordedCase } from './cases.ts';
import { generateFoundationCases } from './generate-foundation.ts';
import { generateToolCallCases } from './generate-tool-calls.ts';
import { generateThinkingCases } from './generate-thinking.ts';
import { generateTurnsCases } from './generate-turns.ts';
import { generateToolNameCases } from './generate-tool-names.ts';
import { oracleFixturePath, referenceInput, stripUsage } from './load.ts';

interface Suite {
  generate(seed: number, count: number): DifferentialCase[];
  seed: number;
  count: number;
}

/** Every recordable suite with its default seed and size. Add new rule suites here. */
const SUITES: Record<string, Suite> = {
  foundation: { generate: generateFoundationCases, seed: 1, count: 400 },
  'tool-calls': { generate: generateToolCallCases, seed: 1, count: 770 },
  thinking: { generate: generateThinkingCases, seed: 1, count: 720 },
  turns: { generate: generateTurnsCases, seed: 1, count: 480 },
  'tool-names': { generate: generateToolNameCases, seed: 1, count: 270 },
};

const DEFAULT_ORACLE = '/work/shared/oracle/oracle.mjs';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: node --import tsx test/differential/record.ts <${Object.keys(SUITES).join('|')}> [--seed N] [--count N]\n`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): { suite: string; seed: number; count: number } {
  const [suite, ...rest] = argv;
  if (suite === undefined || !Object.hasOwn(SUITES, suite)) usage(`record: unknown suite ${JSON.stringify(suite ?? '')}`);
  const defaults = SUITES[suite]!;
  let seed = defaults.seed;
  let count = defaults.count;
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i];
    const value = Number(rest[i + 1]);
    if (!Number.isSafeInteger(value) || value < 0) usage(`record: ${flag} needs a non-negative integer, got ${JSON.stringify(rest[i + 1])}`);
    if (flag === '--seed') seed = value;
    else if (flag === '--count') count = value > 0 ? value : usage('record: --count needs at least 1');
    else usage(`record: unexpected argument ${JSON.stringify(flag)}`);
  }
  return { suite, seed, count };
}

/** Runs the oracle once in batch mode on all cases; returns one parsed answer per case. */
async function runOracle(oracle: string, cases: readonly DifferentialCase[]): Promise<Record<string, unknown>[]> {
  // The reference answers the input as our first provider rule leaves it (load.ts, referenceInput).
  const input = cases.map((c) => JSON.stringify({ messages: referenceInput(c.messages, c.options), options: c.options })).join('\n') + '\n';
  // The oracle reads stdin with readFileSync(0), which fails with EAGAIN on a
  // pipe that is still empty; a regular file as stdin avoids that race.
  const dir = mkdtempSync(join(tmpdir(), 'th-record-'));
  const inputFile = join(dir, 'cases.jsonl');
  writeFileSync(inputFile, input);
  const stdin = openSync(inputFile, 'r');
  try {
    const child = spawn(process.execPath, [oracle, '--batch'], { stdio: [stdin, 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    if (child.stdout === null) throw new Error('record: no stdout pipe from the oracle');
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
    });
    if (code !== 0) {
      process.stderr.write(`record: the oracle exited with code ${code}\n`);
      process.exit(code === 2 ? 2 : 1);
    }
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter((line) => line.trim() !== '');
    if (lines.length !== cases.length) {
      process.stderr.write(`record: the oracle answered ${lines.length} lines for ${cases.length} cases\n`);
      process.exit(1);
    }
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    closeSync(stdin);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { suite, seed, count } = parseArgs(process.argv.slice(2));
  const oracle = process.env.ORACLE || DEFAULT_ORACLE;
  if (!existsSync(oracle)) {
    process.stderr.write(`record: oracle not found at ${oracle}\nSet ORACLE=/path/to/oracle.mjs (see /work/shared/oracle/README.md; run its setup.sh once).\n`);
    process.exit(2);
  }
  const cases = SUITES[suite]!.generate(seed, count);
  const answers = await runOracle(oracle, cases);
  const perRoute = new Map<string, number>();
  let errors = 0;
  const records: RecordedCase[] = cases.map((c, i) => {
    const answer = answers[i]!;
    const route = `${c.options.provider}/${c.options.modelApi}/${c.options.modelId}`;
    perRoute.set(route, (perRoute.get(route) ?? 0) + 1);
    if (Array.isArray(answer.output)) {
      // The reference adds a normalized `usage` snapshot to every assistant. The
      // project does not emit it (spec README, "Not required"), so it is not stored.
      return { name: c.name, options: c.options, messages: c.messages, expected: stripUsage(answer.output) };
    }
    if (typeof answer.error === 'string') {
      errors += 1;
      process.stderr.write(`record: the reference threw on ${c.name}: ${answer.error}\n`);
      return { name: c.name, options: c.options, messages: c.messages, error: answer.error };
    }
    process.stderr.write(`record: unexpected oracle answer for ${c.name}: ${JSON.stringify(answer).slice(0, 200)}\n`);
    process.exit(1);
  });
  const file = oracleFixturePath(suite);
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  renameSync(temporary, file);
  process.stdout.write(`record: wrote ${records.length} cases (seed ${seed}, ${errors} reference errors) to ${file}\n`);
  for (const [route, n] of [...perRoute].sort()) process.stdout.write(`  ${String(n).padStart(4)}  ${route}\n`);
}

await main();
