/** Runs a bench script (bench/NAME.ts under tsx) as a child from the project's root, and collects its exit code and output. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BenchRun {
  /** The exit code; null when the child was killed (by the timeout, or a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBenchScript(script: string, args: readonly string[], options: { timeout: number; maxBuffer?: number }): Promise<BenchRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(root, 'bench', script), ...args], { cwd: root, timeout: options.timeout, maxBuffer: options.maxBuffer ?? 1 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });
}
