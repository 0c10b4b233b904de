#!/usr/bin/env node
/**
 * Runs the command-line, library, package and pi end-to-end tests under each Node version the
 * project supports besides the machine's own (which runs the whole suite under c8): the pinned
 * registry binaries in runtimes/ (scripts/provision.mjs installs them). Each version's bin folder
 * goes first on PATH, so what the tests start (npm, the packed command, pi) runs on it too.
 *
 *   node scripts/test-node-versions.mjs [node22] [node24]   (default: every pinned version)
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedRuntimes, runtimeNode } from './provision.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The folders (and single files) whose tests run on every supported Node. */
export const CROSS_VERSION_TESTS = ['test/cli.test.ts', 'test/process-settings.test.ts', 'test/cli', 'test/lib', 'test/session', 'test/export/database.test.ts', 'test/stream', 'test/package', 'test/pi'];

export function crossVersionFiles() {
  const files = [];
  for (const entry of CROSS_VERSION_TESTS) {
    if (entry.endsWith('.ts')) files.push(entry);
    else for (const name of readdirSync(path.join(root, entry))) if (name.endsWith('.test.ts')) files.push(`${entry}/${name}`);
  }
  return files.sort();
}

function runUnder(name) {
  const node = runtimeNode(name);
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, ['--import', 'tsx', '--test', '--test-reporter=spec', ...crossVersionFiles()], { cwd: root, env, stdio: 'inherit' });
    const stop = (signal) => child.kill(signal);
    process.once('SIGINT', stop).once('SIGTERM', stop);
    child.on('error', (error) => resolve({ name, ok: false, why: error.message }));
    child.on('exit', (code, signal) => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      resolve({ name, ok: code === 0, why: signal ?? `exit ${code}`, seconds: (Date.now() - started) / 1000 });
    });
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pinned = pinnedRuntimes();
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in pinned));
  if (unknown.length > 0) {
    process.stderr.write(`test-node-versions: unknown runtime ${unknown.join(', ')} (pinned: ${Object.keys(pinned).join(', ')})\n`);
    process.exit(2);
  }
  const results = [];
  for (const name of wanted.length > 0 ? wanted : Object.keys(pinned)) {
    process.stderr.write(`\n== cross-version tests on ${name} (node ${pinned[name]}) ==\n`);
    results.push(await runUnder(name));
  }
  for (const result of results) process.stderr.write(`${result.ok ? 'ok  ' : 'FAIL'} ${result.name} (node ${pinned[result.name]})${result.ok ? ` in ${result.seconds.toFixed(0)} s` : `: ${result.why}`}\n`);
  process.exitCode = results.every((result) => result.ok) ? 0 : 1;
}
