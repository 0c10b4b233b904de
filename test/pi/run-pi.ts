/**
 * Runs the real pi CLI (a pinned dev dependency: pi 1.x, or 0.73) in an isolated agent folder:
 * its own `PI_CODING_AGENT_DIR` with a models.json whose custom provider points at an emulator,
 * its own HOME and working folder (so no user or project extensions, settings or context files
 * are read), offline, and extension discovery off so only the `-e` given here loads.
 *
 * pi 0.73 runs on the node that runs the tests (20, 22 or 24). pi 1.x needs Node 22.19 or later,
 * so it runs on the registry's Node 24 that runtimes/ pins (scripts/provision.mjs, which `npm test`
 * runs first), whatever node runs the tests.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { MODEL_ID, PROVIDER } from './sessions.ts';
// @ts-expect-error: a plain .mjs script without declarations
import { runtimeNode as untypedRuntimeNode } from '../../scripts/provision.mjs';

const runtimeNode = untypedRuntimeNode as (name: string) => string;

/** pi 0.73's command, run with this node (the package's bin points at it; its exports are import-only). */
export const PI_CLI = path.join(path.dirname(fileURLToPath(import.meta.resolve('@mariozechner/pi-coding-agent'))), 'cli.js');

/** pi 1.x's command (its package.json `bin`: the bundled CLI). */
export const PI1_CLI = path.join(path.dirname(fileURLToPath(import.meta.resolve('@earendil-works/pi-coding-agent'))), 'bundle', 'cli.js');

/** The Node 24 that pi 1.x runs on. */
export const PI1_NODE = runtimeNode('node24');

export type PiLine = '0.73' | '1.x';

/** Both lines, for the end-to-end tests to run each case on: 1.6.0 (on Node 24) and 0.73.1 (on this node). */
export const PI_LINES: readonly PiLine[] = ['1.x', '0.73'];

/** The node and CLI of a pi line; throws, naming the command that installs it, when the runtime is missing. */
export function piCommand(line: PiLine): { node: string; cli: string } {
  if (line === '0.73') return { node: process.execPath, cli: PI_CLI };
  if (!existsSync(PI1_NODE)) throw new Error(`pi 1.x needs the Node 24 runtime at ${PI1_NODE}: run npm run provision (or npm ci --prefix runtimes)`);
  return { node: PI1_NODE, cli: PI1_CLI };
}

/** The extension as TypeScript source: pi loads .ts extensions itself (through jiti). */
export const EXTENSION_SOURCE = path.resolve(import.meta.dirname, '../../lib/pi/extension.ts');

export interface PiRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PiRunOptions {
  /** The emulator's base URL. */
  readonly baseUrl: string;
  /** Session file lines to resume. */
  readonly session: readonly string[];
  /** Print mode: the one prompt, on the command line. RPC mode: each prompt in turn over stdin. */
  readonly prompts: readonly string[];
  /** Extension paths to load with `-e`. */
  readonly extensions?: readonly string[];
  /** pi's thinking level (default `medium`: the model reasons, so thinking is on). */
  readonly thinking?: string;
  /** `print` (`-p`, the default) or `rpc` (`--mode rpc`: JSON over stdin and stdout, extension UI included). */
  readonly mode?: 'print' | 'rpc';
  /** The custom provider's api (default `anthropic-messages`). */
  readonly api?: string;
  /** The model id the custom provider serves (default MODEL_ID, a Claude model). */
  readonly modelId?: string;
  /** Which pi (default 0.73 on this node). */
  readonly pi?: PiLine;
  readonly timeoutMs?: number;
}

export async function runPi(options: PiRunOptions): Promise<PiRun> {
  const { node, cli } = piCommand(options.pi ?? '0.73');
  const modelId = options.modelId ?? MODEL_ID;
  const home = await mkdtemp(path.join(tmpdir(), 'th-pi-'));
  try {
    const agentDir = path.join(home, 'agent');
    const work = path.join(home, 'work');
    await mkdir(agentDir);
    await mkdir(work);
    const models = {
      providers: {
        [PROVIDER]: {
          baseUrl: options.baseUrl,
          api: options.api ?? 'anthropic-messages',
          apiKey: 'emulator-key',
          models: [{ id: modelId, name: 'model via emulator', reasoning: true, input: ['text', 'image'], contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    };
    await writeFile(path.join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
    const sessionFile = path.join(work, 'session.jsonl');
    await writeFile(sessionFile, options.session.join('\n') + '\n');
    const rpc = options.mode === 'rpc';
    const args = [
      cli,
      ...(rpc ? ['--mode', 'rpc'] : ['-p']),
      '--no-extensions',
      ...(options.extensions ?? []).flatMap((extension) => ['-e', extension]),
      '--no-skills',
      '--no-prompt-templates',
      '--no-context-files',
      '--session',
      sessionFile,
      '--model',
      `${PROVIDER}/${modelId}`,
      '--thinking',
      options.thinking ?? 'medium',
      ...(rpc ? [] : options.prompts),
    ];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: '1',
      NO_COLOR: '1',
    };
    return await new Promise<PiRun>((resolve, reject) => {
      const child = spawn(node, args, { cwd: work, env, stdio: [rpc ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const prompts = [...options.prompts];
      // RPC: the next prompt goes when the previous one's agent run has ended; stdin closes after the last.
      const sendNext = (): void => {
        const prompt = prompts.shift();
        if (prompt === undefined) child.stdin!.end();
        else child.stdin!.write(`${JSON.stringify({ type: 'prompt', message: prompt })}\n`);
      };
      let pending = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (!rpc) return;
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (line.includes('"type":"agent_end"')) sendNext();
      });
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 150_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      if (rpc) sendNext();
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** The JSON lines pi wrote in RPC mode. */
export function rpcEvents(run: PiRun): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // Not an event line.
    }
  }
  return events;
}

/** Runs tasks with at most `limit` at once (pi start-up is CPU-bound; the machine has few cores). */
export async function inPool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
