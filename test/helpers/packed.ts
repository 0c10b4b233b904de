/**
 * The published artifact, as a user gets it: `npm pack` (which builds dist/ through prepack),
 * then the tarball installed into an empty folder with its runtime dependencies only. Shared by
 * the package test and `npm run bench:startup`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export interface PackedInstall {
  /** The folder holding the tarball and the app it is installed into. */
  readonly dir: string;
  readonly tarball: string;
  /** Every path in the tarball, relative to its package folder. */
  readonly files: readonly string[];
  /** The app folder: package.json and node_modules/transcript-hygiene. */
  readonly app: string;
  /** The installed bin (node_modules/.bin/transcript-hygiene). */
  readonly bin: string;
  remove(): Promise<void>;
}

export async function packAndInstall(): Promise<PackedInstall> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-packed-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  // npm prints the prepack build's output before its JSON.
  const [summary] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as [{ filename: string; files: { path: string }[] }];
  const tarball = path.join(dir, summary.filename);
  const app = path.join(dir, 'app');
  await mkdir(app);
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
  return {
    dir,
    tarball,
    files: summary.files.map((file) => file.path),
    app,
    bin: path.join(app, 'node_modules', '.bin', 'transcript-hygiene'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
