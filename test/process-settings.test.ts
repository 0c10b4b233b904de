import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HEAP_LIMIT_MB, HEAP_LIMIT_ENV, SEMI_SPACE_FLAG, TUNED_MARK, outOfMemoryMessage, tunedProcessSettings } from '../lib/process-settings.ts';
import { EXIT } from '../lib/exit-codes.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

describe('tunedProcessSettings', () => {
  test('the young generation is capped the same on every Node version; a value of the user\'s own wins', () => {
    assert.equal(SEMI_SPACE_FLAG, '--max-semi-space-size=8');
    assert.deepEqual(tunedProcessSettings(['sanitize'], {}, [])!.execArgv, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]);
    assert.deepEqual(tunedProcessSettings(['sanitize'], {}, ['--max-semi-space-size=64'])!.execArgv, ['--max-semi-space-size=64', '--expose-gc', '--heap-growing-percent=25']);
    assert.equal(tunedProcessSettings(['sanitize'], { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '262144', NODE_OPTIONS: '--max-semi-space-size=4' }, ['--expose-gc', '--heap-growing-percent=25']), undefined);
  });

  test('a working command gets the heap limit and MALLOC_ARENA_MAX, and the mark that stops a second re-exec', () => {
    const settings = tunedProcessSettings(['sanitize', 'a.jsonl'], { PATH: '/bin' }, ['--no-warnings']);
    assert.equal(DEFAULT_HEAP_LIMIT_MB, 0, "node's own heap limit unless asked");
    assert.deepEqual(settings, {
      execArgv: ['--no-warnings', '--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG],
      env: { PATH: '/bin', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '262144', [TUNED_MARK]: '1' },
      heapLimitMb: undefined,
    });
    assert.equal(tunedProcessSettings(['sanitize'], settings!.env, settings!.execArgv), undefined);
  });

  test('commands that only print run in place', () => {
    for (const args of [[], ['help'], ['--help'], ['policy', '--provider', 'x'], ['sanitize', '--help'], ['export', '-h']]) {
      assert.equal(tunedProcessSettings(args, {}, []), undefined, args.join(' '));
    }
  });

  test("the user's own settings win", () => {
    assert.equal(tunedProcessSettings(['check'], { MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '65536', NODE_OPTIONS: '--max-old-space-size=300' }, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]), undefined);
    const arena = tunedProcessSettings(['check'], { MALLOC_ARENA_MAX: '8' }, []);
    assert.equal(arena!.env.MALLOC_ARENA_MAX, '8');
    assert.equal(arena!.env.MALLOC_MMAP_THRESHOLD_, '262144');
    assert.equal(tunedProcessSettings(['check'], { MALLOC_MMAP_THRESHOLD_: '65536' }, [])!.env.MALLOC_MMAP_THRESHOLD_, '65536', "the user's own threshold is kept");
    assert.deepEqual(arena!.execArgv, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]);
    const heap = tunedProcessSettings(['check'], {}, ['--max-old-space-size=300']);
    assert.deepEqual(heap!.execArgv, ['--max-old-space-size=300', '--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]);
    assert.equal(heap!.heapLimitMb, undefined);
    const limited = tunedProcessSettings(['export'], { [HEAP_LIMIT_ENV]: '2048' }, [])!;
    assert.deepEqual(limited.execArgv, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG, '--max-old-space-size=2048']);
    assert.equal(limited.heapLimitMb, 2048);
    assert.deepEqual(tunedProcessSettings(['export'], { [HEAP_LIMIT_ENV]: '0' }, [])!.execArgv, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]);
    assert.equal(tunedProcessSettings(['export'], { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '262144' }, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]), undefined);
    assert.notEqual(tunedProcessSettings(['export'], { MALLOC_ARENA_MAX: '2' }, ['--expose-gc', '--heap-growing-percent=25', SEMI_SPACE_FLAG]), undefined, 'the mmap threshold is still missing');
    // V8's heap-growing flag is not allowed in NODE_OPTIONS: the command adds it on the command line.
    assert.deepEqual(tunedProcessSettings(['export'], { MALLOC_ARENA_MAX: '2', NODE_OPTIONS: '--expose-gc' }, [])!.execArgv, ['--heap-growing-percent=25', SEMI_SPACE_FLAG]);
    assert.deepEqual(tunedProcessSettings(['export'], { MALLOC_ARENA_MAX: '2' }, ['--heap-growing-percent=50'])!.execArgv, ['--heap-growing-percent=50', '--expose-gc', SEMI_SPACE_FLAG], "the user's own value wins");
  });

  test('a heap limit that is not a whole number of MB is refused', () => {
    assert.throws(() => tunedProcessSettings(['sanitize'], { [HEAP_LIMIT_ENV]: '1.5g' }, []), /TRANSCRIPT_HYGIENE_HEAP_MB must be a whole number of MB/);
  });

  test('the out-of-memory line says what to do next', () => {
    assert.equal(
      outOfMemoryMessage(1024),
      'transcript-hygiene: the run ran out of memory (its 1024 MB heap limit) and stopped, no output file was replaced; run it again with TRANSCRIPT_HYGIENE_HEAP_MB=2048',
    );
    assert.match(outOfMemoryMessage(undefined), /node's heap limit, about \d+ MB.*TRANSCRIPT_HYGIENE_HEAP_MB=\d+$/);
  });
});

describe('the command re-executes itself with those settings', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'th-process-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('the process that does the work has MALLOC_ARENA_MAX=2, a fixed mmap threshold, gc and the young generation\'s cap, and a heap limit when asked', async () => {
    // A preload (through NODE_OPTIONS, which the child inherits) records what the tuned process sees.
    const probe = path.join(dir, 'probe.cjs');
    const seen = path.join(dir, 'seen.json');
    await writeFile(
      probe,
      `if (process.env.${TUNED_MARK} === '1') require('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ arena: process.env.MALLOC_ARENA_MAX, mmap: process.env.MALLOC_MMAP_THRESHOLD_, gc: typeof globalThis.gc, execArgv: process.execArgv, limitMb: require('v8').getHeapStatistics().heap_size_limit / 1048576 }));\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `--require ${probe}` };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    delete env[TUNED_MARK];
    delete env[HEAP_LIMIT_ENV];
    // A small file runs in place (lib/cli/launch.ts): no second process, so the probe sees nothing.
    const { stdout: inPlace } = await promisify(execFile)(process.execPath, [bin, 'sanitize', demo, ...route], { env });
    assert.equal(inPlace.trim().split('\n').length, 8);
    await assert.rejects(readFile(seen, 'utf8'), { code: 'ENOENT' });
    // A pipe's size is unknown: the work runs in the tuned child.
    const piped = spawn(process.execPath, [bin, 'sanitize', ...route], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    piped.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    piped.stdin.end(await readFile(demo));
    assert.equal(await new Promise((resolve) => piped.on('close', resolve)), 0);
    assert.equal(stdout.trim().split('\n').length, 8);
    const recorded = JSON.parse(await readFile(seen, 'utf8')) as { arena: string; mmap: string; gc: string; execArgv: string[]; limitMb: number };
    assert.equal(recorded.arena, '2');
    assert.equal(recorded.mmap, '262144');
    assert.equal(recorded.gc, 'function');
    assert.ok(recorded.execArgv.includes(SEMI_SPACE_FLAG), recorded.execArgv.join(' '));
    // A heap limit the user asks for is honoured whatever the input's size.
    await promisify(execFile)(process.execPath, [bin, 'sanitize', demo, ...route], { env: { ...env, [HEAP_LIMIT_ENV]: '700' } });
    const limited = JSON.parse(await readFile(seen, 'utf8')) as { limitMb: number };
    // heap_size_limit is the old space plus the young generation's semi-spaces.
    assert.ok(limited.limitMb >= 700 && limited.limitMb < 800, `heap limit ${limited.limitMb} MB`);
  });

  test('a run out of heap ends with one line and its own exit code', async () => {
    const big = path.join(dir, 'big.jsonl');
    const line = JSON.stringify({ role: 'user', content: 'x'.repeat(20_000_000) });
    await writeFile(big, `${line}\n${line}\n${line}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, [HEAP_LIMIT_ENV]: '40' };
    delete env[TUNED_MARK];
    const child = spawn(process.execPath, [bin, 'sanitize', big, ...route, '--output', path.join(dir, 'out.jsonl')], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, EXIT.outOfMemory);
    assert.match(stderr.trimEnd().split('\n').at(-1)!, /^transcript-hygiene: the run ran out of memory \(its 40 MB heap limit\).*TRANSCRIPT_HYGIENE_HEAP_MB=80$/);
    await assert.rejects(readFile(path.join(dir, 'out.jsonl')), { code: 'ENOENT' });
  });

  /**
   * Starts the command on a FIFO that this test keeps open for writing, so its input never
   * ends (a ChildProcess's own stdin pipe is closed when the child exits), and returns it with
   * the pid of its working child.
   */
  async function startWorking(): Promise<{ command: ReturnType<typeof spawn>; worker: number; input: FileHandle }> {
    const fifo = path.join(dir, `input-${Date.now()}.fifo`);
    await promisify(execFile)('mkfifo', [fifo]);
    const input = await open(fifo, 'r+'); // read-write: opening does not wait for a reader
    await input.write(JSON.stringify({ role: 'user', content: 'hi' }) + '\n');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env[TUNED_MARK];
    const command = spawn(process.execPath, [bin, 'sanitize', fifo, ...route], { env, stdio: ['ignore', 'ignore', 'ignore'] });
    // The working process is the command's child (Linux lists it in /proc).
    for (let waited = 0; waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const children = await readFile(`/proc/${command.pid}/task/${command.pid}/children`, 'utf8').catch(() => '');
      if (children.trim() !== '') return { command, worker: Number(children.trim().split(/\s+/)[0]), input };
    }
    command.kill('SIGKILL');
    await input.close();
    throw new Error('the command started no working process');
  }

  async function gone(pid: number): Promise<boolean> {
    for (let waited = 0; waited < 10_000; waited += 50) {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  }

  test('a signal sent to the command reaches the process doing the work', async () => {
    const { command, worker, input } = await startWorking();
    command.kill('SIGTERM');
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => command.on('exit', (c, s) => resolve([c, s])));
    assert.equal(code, null);
    assert.equal(signal, 'SIGTERM');
    // Polled: the worker may have exited and not been reaped yet (a zombie still answers kill 0).
    const died = await gone(worker);
    if (!died) process.kill(worker, 'SIGKILL');
    await input.close();
    assert.equal(died, true, `the working process ${worker} outlived its command`);
  });

  test('a command killed outright (SIGKILL) takes the working process with it', async () => {
    const { command, worker, input } = await startWorking();
    command.kill('SIGKILL');
    await new Promise((resolve) => command.on('exit', resolve));
    const died = await gone(worker);
    if (!died) process.kill(worker, 'SIGKILL');
    await input.close();
    assert.equal(died, true, `the working process ${worker} outlived its command`);
  });
});
