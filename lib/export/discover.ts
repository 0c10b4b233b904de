/**
 * Finds the sessions an export covers: files given by name, `*.jsonl` files under directories
 * (recursively), and paths listed on stdin (`-`). Every session gets a path relative to the
 * deepest directory that holds all inputs, which the output tree mirrors.
 *
 * Nothing here throws for a bad entry: a dangling symlink, a directory or other non-file named
 * `*.jsonl`, a missing input or a directory that cannot be listed becomes a source with a
 * `problem`, which the export reports as a failure like any other.
 */
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { ByteSource } from '../jsonl.ts';
import { isSqliteFile } from '../session/openclaw-db.ts';
import { OPENCLAW_DATABASE_NAME, databaseSources, type DatabaseSessionRef } from './discover-databases.ts';

export interface SessionSource {
  /** Absolute path. */
  path: string;
  /** The path as the user gave it (the input, joined with the path below it for directories). */
  display: string;
  /** Path relative to the common root; undefined for a directory that could not be listed. */
  rel: string | undefined;
  size: number;
  mtimeMs: number;
  /** Why this entry cannot be exported; the export lists it as a failure. */
  problem?: { code: string; reason: string };
  /** A session of an OpenClaw database (`path`), not a file of its own. */
  database?: DatabaseSessionRef;
}

export interface Discovery {
  /** The deepest directory that holds every input: the output tree mirrors the tree below it. */
  root: string;
  sources: SessionSource[];
}

export interface DiscoverOptions {
  /** Where `-` reads its list of paths (newline- or NUL-separated). */
  stdin?: ByteSource;
  /** Directories never walked into (the export's own output directory). */
  exclude?: readonly string[];
  /** File names selected inside directories (default `.jsonl`). */
  extension?: string;
  /** Only these sessions of databases, by key or id (JSONL files are not filtered). */
  sessions?: readonly string[];
}

/** Reads a list of paths: NUL-separated when the text holds a NUL (`find -print0`), one a line otherwise. */
export async function readPathList(source: ByteSource): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  const parts = text.includes('\0') ? text.split('\0') : text.split(/\r?\n/);
  return parts.filter((part) => part.trim() !== '');
}

function kindProblem(stats: Stats): { code: string; reason: string } {
  return { code: stats.isDirectory() ? 'input_is_directory' : 'input_unreadable', reason: `${describeKind(stats)}, not a session file` };
}

function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function errnoReason(error: unknown): { code: string; reason: string } {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { code: 'input_not_found', reason: 'no such file or directory' };
  if (code === 'EACCES' || code === 'EPERM') return { code: 'input_unreadable', reason: 'permission denied' };
  return { code: 'input_unreadable', reason: (error as Error).message };
}

/** Why a path whose stat failed cannot be read: a dangling symlink is named as such. */
async function unreadable(file: string, error: unknown): Promise<{ code: string; reason: string }> {
  try {
    const link = await lstat(file);
    if (link.isSymbolicLink()) {
      const target = await readlink(file).catch(() => '?');
      return { code: 'input_unreadable', reason: `dangling symbolic link (to ${target}: ${errnoReason(error).reason})` };
    }
  } catch {
    // fall through to the stat error
  }
  return errnoReason(error);
}

function commonAncestor(directories: readonly string[]): string {
  if (directories.length === 0) return process.cwd();
  let parts = directories[0]!.split(path.sep);
  for (const directory of directories.slice(1)) {
    const other = directory.split(path.sep);
    let i = 0;
    while (i < parts.length && i < other.length && parts[i] === other[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(path.sep) || path.sep;
}

interface Found {
  path: string;
  display: string;
  stats?: Stats;
  problem?: { code: string; reason: string };
  listable?: boolean;
  /** An OpenClaw database: expanded into its sessions. */
  database?: boolean;
}

export async function discoverSessions(inputs: readonly string[], options: DiscoverOptions = {}): Promise<Discovery> {
  const extension = options.extension ?? '.jsonl';
  const excluded = new Set<string>();
  for (const directory of options.exclude ?? []) {
    excluded.add(path.resolve(directory));
    excluded.add(await realpath(directory).catch(() => path.resolve(directory)));
  }
  const isExcluded = async (directory: string): Promise<boolean> =>
    excluded.has(directory) || excluded.has(await realpath(directory).catch(() => directory));

  let listed: string[] | undefined;
  const expanded: string[] = [];
  for (const input of inputs) {
    if (input === '-') {
      listed ??= await readPathList(options.stdin ?? process.stdin);
      expanded.push(...listed);
    } else expanded.push(input);
  }

  const found: Found[] = [];
  const roots: string[] = [];
  for (const input of expanded) {
    const absolute = path.resolve(input);
    let stats: Stats;
    try {
      stats = await stat(absolute);
    } catch (error) {
      roots.push(path.dirname(absolute));
      found.push({ path: absolute, display: input, problem: await unreadable(absolute, error) });
      continue;
    }
    if (stats.isDirectory()) {
      roots.push(absolute);
      await walk(absolute, input, found, extension, isExcluded);
    } else {
      roots.push(path.dirname(absolute));
      if (stats.isFile()) found.push({ path: absolute, display: input, stats, database: await isSqliteFile(absolute) });
      else found.push({ path: absolute, display: input, problem: kindProblem(stats) });
    }
  }

  const root = commonAncestor(roots);
  const seen = new Set<string>();
  const sources: SessionSource[] = [];
  const filter = options.sessions === undefined ? undefined : new Set(options.sessions);
  for (const entry of found) {
    if (seen.has(entry.path)) continue;
    seen.add(entry.path);
    if (entry.database === true) {
      sources.push(...(await databaseSources({ path: entry.path, display: entry.display, rel: path.relative(root, entry.path) }, filter)));
      continue;
    }
    sources.push({
      path: entry.path,
      display: entry.display,
      rel: entry.listable === false ? undefined : path.relative(root, entry.path),
      size: entry.stats?.size ?? 0,
      mtimeMs: entry.stats?.mtimeMs ?? 0,
      ...(entry.problem === undefined ? {} : { problem: entry.problem }),
    });
  }
  return { root, sources };
}

/**
 * Depth-first, names sorted, so the order is the same on every run. Symbolic links to
 * directories are not followed (no cycles); a link named like a session is followed to its file.
 */
async function walk(top: string, topDisplay: string, found: Found[], extension: string, isExcluded: (directory: string) => Promise<boolean>): Promise<void> {
  const stack: Array<{ directory: string; display: string }> = [{ directory: top, display: topDisplay }];
  while (stack.length > 0) {
    const { directory, display } = stack.pop()!;
    if (await isExcluded(directory)) continue;
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      const why = errnoReason(error);
      found.push({ path: directory, display, listable: false, problem: { code: why.code, reason: `cannot list the directory (${why.reason})` } });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: Array<{ directory: string; display: string }> = [];
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      const shown = path.join(display, entry.name);
      if (entry.name.endsWith(extension) || entry.name === OPENCLAW_DATABASE_NAME) {
        // Anything named like a session is a session: if it is not a readable regular file, that is a failure to report.
        let stats: Stats;
        try {
          stats = await stat(full);
        } catch (error) {
          found.push({ path: full, display: shown, problem: await unreadable(full, error) });
          continue;
        }
        if (!stats.isFile()) found.push({ path: full, display: shown, problem: kindProblem(stats) });
        else found.push({ path: full, display: shown, stats, database: entry.name === OPENCLAW_DATABASE_NAME });
      } else if (entry.isDirectory()) {
        subdirectories.push({ directory: full, display: shown });
      }
    }
    // Reverse onto the stack so directories are visited in name order.
    for (let i = subdirectories.length - 1; i >= 0; i--) stack.push(subdirectories[i]!);
  }
}
