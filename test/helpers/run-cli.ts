/** Runs the command's `main` in this process with string stdin, and collects what it writes. */
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../lib/cli/main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], stdin = ''): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(argv, { stdin: Readable.from([stdin]), stdout, stderr });
  return { code, stdout: out, stderr: err };
}
