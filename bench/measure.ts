/** Shared by bench.ts and gate.ts: run the floor or a pipeline case in a child process and read its figures. */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliChildSettings } from './cli-settings.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

export interface Route {
  readonly label: string;
  readonly provider: string;
  readonly modelApi: string;
  readonly modelId: string;
}

export const ROUTES: readonly Route[] = [
  { label: 'anthropic', provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { label: 'openai-responses', provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  { label: 'google', provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
];

export interface Measurement {
  /** Time the case measured itself, in its process (start-up and module loading excluded). */
  ms: number;
  /** The whole child process, start to exit. */
  processMs: number;
  maxRssKb: number;
  messages: number;
  /** CPU time over the measured span (pipeline cases only): steadier than wall time on a busy machine. */
  cpuMs?: number;
}

/** Every case, the floor included, runs under the command's process settings. */
const settings = cliChildSettings();
export const PROCESS_SETTINGS_LABEL = settings.label;

async function child(script: string, args: string[]): Promise<Record<string, unknown>> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, [...settings.execArgv, '--import', 'tsx', path.join(benchDir, script), ...args], { maxBuffer: 1 << 24, env: settings.env });
  const lines = stdout.trim().split('\n');
  return { ...(JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>), processMs: performance.now() - started };
}

/**
 * Every case writes a new file, as the command's `-o` does (a new temporary file, renamed).
 * Writing over the previous case's output made the case pay the file system's cost of that
 * output: on ext4, opening a 1 GB file to truncate it took 0.3 s and closing it 0.16 s (the file
 * system writes out a truncated file's data when it is closed), time that belongs to neither the
 * floor nor the pipeline, added to both.
 */
async function freshOutput(output: string): Promise<void> {
  await rm(output, { force: true });
}

export async function measureFloor(input: string, output: string, parseOnly = false): Promise<Measurement> {
  await freshOutput(output);
  const result = await child('floor.ts', [input, output, ...(parseOnly ? ['--parse-only'] : [])]);
  return { ms: result.ms as number, processMs: result.processMs as number, maxRssKb: result.maxRssKb as number, messages: result.messages as number };
}

export async function measureRoute(input: string, output: string, route: Route, session?: string, redact?: 'redact' | 'redact-no-generic', memoryBudgetBytes?: number): Promise<Measurement> {
  await freshOutput(output);
  const result = await child('run-case.ts', [
    input,
    output,
    route.provider,
    route.modelApi,
    route.modelId,
    ...(session === undefined ? [] : [session]),
    ...(redact === undefined ? [] : [`--redact=${redact}`]),
    ...(memoryBudgetBytes === undefined ? [] : [`--memory-budget=${memoryBudgetBytes}`]),
  ]);
  return { ms: result.ms as number, cpuMs: result.cpuMs as number, processMs: result.processMs as number, maxRssKb: result.maxRssKb as number, messages: result.messagesIn as number };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
