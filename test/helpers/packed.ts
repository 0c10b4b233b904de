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
  /** Installs the same tarball into another empty folder with `npm install` flags of its own (e.g. --omit=optional); returns that folder. */
  installAgain(name: string, flags: readonly string[]): Promise<string>;
  remove(): Promise<void>;
}

async function install(app: string, tarball: string, flags: readonly string[]): Promise<void> {
  await mkdir(app);
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // No install scripts: the one dependency with a build (better-sqlite3, optional, for Node 20 only)
  // would compile for minutes; the package test checks what a user gets without it.
  await run('npm', ['install', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...flags, tarball], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
}

export async function packAndInstall(): Promise<PackedInstall> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-packed-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  // npm prints the prepack build's output before its JSON.
  const [summary] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as [{ filename: string; files: { path: string }[] }];
  const tarball = path.join(dir, summary.filename);
  const app = path.join(dir, 'app');
  await install(app, tarball, []);
  return {
    dir,
    tarball,
    files: summary.files.map((file) => file.path),
    app,
    bin: path.join(app, 'node_modules', '.bin', 'transcript-hygiene'),
    installAgain: async (name, flags) => {
      const other = path.join(dir, name);
      await install(other, tarball, flags);
      return other;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
