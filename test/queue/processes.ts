/**
 * The command as separate processes (the real bin, re-executing itself as users run it):
 * workers and `export --queue` coordinators, with their stderr collected and waited on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/transcript-hygiene.js');

export class CommandProcess {
  readonly child: ChildProcess;
  stderr = '';
  stdout = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  private readonly listeners = new Set<() => void>();

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      for (const listener of this.listeners) listener();
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        resolve({ code, signal, at: Date.now() });
        for (const listener of this.listeners) listener();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in stderr; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(this.stderr);
        if (match !== null) return done(() => resolve(match));
        if (!this.running) done(() => reject(new Error(`exited (${this.child.exitCode ?? this.child.signalCode}) before ${pattern}:\n${this.stderr}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.stderr}`))), timeoutMs);
      const done = (then: () => void): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        then();
      };
      this.listeners.add(check);
      check();
    });
  }

  kill(signal: NodeJS.Signals): void {
    if (this.running) process.kill(this.pid, signal);
  }
}

export function startWorker(url: string, extra: string[] = []): CommandProcess {
  return new CommandProcess(['worker', '--queue', url, ...extra]);
}

/** A worker that is ready: its id (host:pid of the process doing the work) is known. */
export async function readyWorker(url: string, extra: string[] = []): Promise<{ process: CommandProcess; id: string }> {
  const worker = startWorker(url, extra);
  const match = await worker.waitFor(/^worker: (\S+) ready/m);
  return { process: worker, id: match[1]! };
}
