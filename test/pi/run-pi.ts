/**
 * Runs the real pi CLI (the pinned dev dependency) in an isolated agent folder: its own
 * `PI_CODING_AGENT_DIR` with a models.json whose custom provider points at an emulator, its own
 * HOME and working folder (so no user or project extensions, settings or context files are
 * read), offline, and extension discovery off so only the `-e` given here loads.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MODEL_ID, PROVIDER } from './sessions.ts';

/** pi's command, run with this node (the package's bin points at it; its exports are import-only). */
export const PI_CLI = path.join(path.dirname(fileURLToPath(import.meta.resolve('@mariozechner/pi-coding-agent'))), 'cli.js');

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
  readonly prompt: string;
  /** Extension paths to load with `-e`. */
  readonly extensions?: readonly string[];
  /** pi's thinking level (default `medium`: the model reasons, so thinking is on). */
  readonly thinking?: string;
  /** pi's mode flags (default print mode, `-p`). */
  readonly mode?: readonly string[];
  readonly timeoutMs?: number;
}

export async function runPi(options: PiRunOptions): Promise<PiRun> {
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
          api: 'anthropic-messages',
          apiKey: 'emulator-key',
          models: [{ id: MODEL_ID, name: 'Claude via emulator', reasoning: true, input: ['text', 'image'], contextWindow: 200000, maxTokens: 8192 }],
        },
      },
    };
    await writeFile(path.join(agentDir, 'models.json'), JSON.stringify(models, null, 2));
    const sessionFile = path.join(work, 'session.jsonl');
    await writeFile(sessionFile, options.session.join('\n') + '\n');
    const args = [
      PI_CLI,
      ...(options.mode ?? ['-p']),
      '--no-extensions',
      ...(options.extensions ?? []).flatMap((extension) => ['-e', extension]),
      '--no-skills',
      '--no-prompt-templates',
      '--session',
      sessionFile,
      '--model',
      `${PROVIDER}/${MODEL_ID}`,
      '--thinking',
      options.thinking ?? 'medium',
      options.prompt,
    ];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      PI_OFFLINE: '1',
      NO_COLOR: '1',
    };
    return await new Promise<PiRun>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 45_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
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
