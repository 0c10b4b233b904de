/**
 * The image-heavy case of `npm run bench`: bench/images.ts in a child, pipeline mode only,
 * its table passed through as it is printed and its rows read from its last line.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ImageRow {
  mode: string;
  images: number;
  messages: number;
  fileMb: number;
  concurrency: number;
  seconds: number;
  imagesPerSecond: number;
  peakRssMb: number;
  resized: number;
  kept: number;
  omitted: number;
}

export interface ImageBenchOptions {
  sizes: readonly number[];
  concurrency: string;
  dir: string | undefined;
  keep: boolean;
}

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'images.ts');

export async function runImageBench(options: ImageBenchOptions): Promise<ImageRow[]> {
  const args = ['--import', 'tsx', script, '--modes', 'pipeline', '--sizes', options.sizes.join(','), '--concurrency', options.concurrency];
  if (options.dir !== undefined) args.push('--dir', options.dir);
  if (options.keep) args.push('--keep');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let last = '';
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('{')) last = line;
    else process.stdout.write(line + '\n');
  }
  const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  if (code !== 0 || last === '') throw new Error(`bench/images.ts failed (exit ${code})`);
  return (JSON.parse(last) as { rows: ImageRow[] }).rows;
}
