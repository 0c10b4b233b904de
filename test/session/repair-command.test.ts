import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../lib/cli/main.ts';
import { EXIT } from '../../lib/exit-codes.ts';
import { repairExitCode } from '../../lib/session/repair-command.ts';
import { readFixtures, repairFixtures, tempDir } from './helpers/files.ts';

async function cli(argv: string[], stdin: string | Buffer = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(argv, { stdin: Readable.from([stdin]), stdout, stderr });
  return { code, stdout: out, stderr: err };
}

async function listen(file: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  return server;
}

describe('transcript-hygiene repair', () => {
  test('--help, help repair, usage errors', async () => {
    const help = await cli(['repair', '--help']);
    assert.equal(help.code, EXIT.ok);
    assert.match(help.stdout, /^Usage: transcript-hygiene repair FILE\.\.\./);
    assert.match(help.stdout, /Exit codes:/);
    assert.equal((await cli(['help', 'repair'])).stdout, help.stdout);
    assert.match((await cli(['--help'])).stdout, /repair     repair OpenClaw session files/);
    for (const argv of [['repair'], ['repair', '--lock-timeout', 'soon', 'f'], ['repair', '--bogus', 'f']]) {
      const result = await cli(argv);
      assert.equal(result.code, EXIT.usage, argv.join(' '));
      assert.match(result.stderr, /; see 'transcript-hygiene repair --help'\n$/);
    }
  });

  test('repaired, already fine, and --json', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const torn = path.join(dir, 'torn.jsonl');
      await copyFile(path.join(repairFixtures, 'crash-torn.jsonl'), torn);
      const clean = path.join(dir, 'clean.jsonl');
      await copyFile(path.join(readFixtures, 'branches.jsonl'), clean);
      const result = await cli(['repair', torn, clean]);
      assert.equal(result.code, EXIT.ok, result.stderr);
      assert.equal(
        result.stdout,
        `${torn}: repaired: dropped 2 malformed line(s), rewrote 1 assistant message(s), rewrote 2 user message(s)\n${clean}: nothing to repair\n`,
      );
      assert.equal(await readFile(torn, 'utf8'), await readFile(path.join(repairFixtures, 'crash-torn.repaired.jsonl'), 'utf8'));
      const json = await cli(['repair', '--json', torn]);
      assert.deepEqual(JSON.parse(json.stdout), { file: torn, repaired: false, droppedLines: 0 });
      assert.equal((await cli(['repair', '-q', torn])).stdout, '');
    } finally {
      await cleanup();
    }
  });

  test('bad inputs: one line each, and a code each', async () => {
    const { dir, cleanup } = await tempDir();
    const server = await listen(path.join(dir, 'socket.jsonl'));
    try {
      await mkdir(path.join(dir, 'folder.jsonl'));
      await writeFile(path.join(dir, 'empty.jsonl'), '');
      await copyFile(path.join(repairFixtures, 'no-header.jsonl'), path.join(dir, 'no-header.jsonl'));
      await copyFile(path.join(repairFixtures, 'only-garbage.jsonl'), path.join(dir, 'garbage.jsonl'));
      const cases: Array<[string, number, RegExp]> = [
        ['missing.jsonl', EXIT.inputUnavailable, /missing\.jsonl: no such file$/],
        ['folder.jsonl', EXIT.inputIsDirectory, /folder\.jsonl: is a directory/],
        ['socket.jsonl', EXIT.inputUnreadable, /socket\.jsonl: ENXIO: no such device or address/],
        ['empty.jsonl', EXIT.inputEmpty, /empty\.jsonl: empty file$/],
        ['garbage.jsonl', EXIT.inputEmpty, /garbage\.jsonl: not repaired: empty session file$/],
        ['no-header.jsonl', EXIT.badInput, /no-header\.jsonl: not repaired: invalid session header$/],
      ];
      for (const [name, code, message] of cases) {
        const result = await cli(['repair', path.join(dir, name)]);
        assert.equal(result.code, code, `${name}: ${result.stderr}`);
        assert.equal(result.stderr.split('\n').length, 2, 'one line');
        assert.match(result.stderr.trim(), message);
      }
      // Several files: every one is tried, the exit code is the first failure's.
      const many = await cli(['repair', path.join(dir, 'folder.jsonl'), path.join(dir, 'missing.jsonl')]);
      assert.equal(many.code, EXIT.inputIsDirectory);
      assert.equal(many.stderr.trim().split('\n').length, 2);
      const json = await cli(['repair', '--json', path.join(dir, 'missing.jsonl')]);
      assert.equal(JSON.parse(json.stdout).reason, `${path.join(dir, 'missing.jsonl')}: no such file`);
    } finally {
      server.close();
      await cleanup();
    }
  });

  test('a lock held by another process: exit 9 after --lock-timeout; --no-lock does not wait', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = path.join(dir, 's.jsonl');
      await copyFile(path.join(repairFixtures, 'crash-torn.jsonl'), file);
      await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: Date.now(), maxHoldMs: 1 }));
      const locked = await cli(['repair', '--lock-timeout', '50', file]);
      assert.equal(locked.code, EXIT.locked);
      assert.match(locked.stderr, /locked by another process/);
      assert.equal((await cli(['repair', '--no-lock', file])).code, EXIT.ok);
    } finally {
      await cleanup();
    }
  });

  test('exit codes of reports', () => {
    assert.equal(repairExitCode({ repaired: false, droppedLines: 0, reason: 'repair failed: EXDEV' }), EXIT.outputFailed);
    assert.equal(repairExitCode({ repaired: false, droppedLines: 0, reason: 'failed to read session file: EISDIR: x' }), EXIT.inputIsDirectory);
    assert.equal(repairExitCode({ repaired: false, droppedLines: 0, reason: 'something new' }), EXIT.internal);
    assert.equal(repairExitCode({ repaired: true, droppedLines: 1 }), EXIT.ok);
  });
});

describe('transcript-hygiene sanitize with session files', () => {
  const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

  test('a session file and the same session on stdin give the same replay copy', async () => {
    const file = path.join(readFixtures, 'branches.jsonl');
    const fromFile = await cli(['sanitize', file, ...route, '--stats']);
    assert.equal(fromFile.code, EXIT.ok, fromFile.stderr);
    const stats = JSON.parse(fromFile.stderr) as { session: { leafId: string; pathEntries: number } };
    assert.equal(stats.session.leafId, 'd8cee316');
    const fromStdin = await cli(['sanitize', ...route], await readFile(file));
    assert.equal(fromStdin.code, EXIT.ok, fromStdin.stderr);
    assert.equal(fromStdin.stdout, fromFile.stdout);
    assert.equal(fromFile.stdout.trim().split('\n').length, 6);
  });

  test('empty, unreadable and directory inputs have their own exit codes', async () => {
    const { dir, cleanup } = await tempDir();
    const server = await listen(path.join(dir, 'socket.jsonl'));
    try {
      await writeFile(path.join(dir, 'empty.jsonl'), '');
      const empty = await cli(['sanitize', path.join(dir, 'empty.jsonl'), ...route]);
      assert.equal(empty.code, EXIT.inputEmpty);
      assert.match(empty.stderr, /empty\.jsonl: empty file\n$/);
      const socket = await cli(['sanitize', path.join(dir, 'socket.jsonl'), ...route]);
      assert.equal(socket.code, EXIT.inputUnreadable, socket.stderr);
      assert.equal(socket.stderr.split('\n').length, 2);
      assert.equal((await cli(['sanitize', dir, ...route])).code, EXIT.inputIsDirectory);
      await writeFile(path.join(dir, 'garbage.jsonl'), 'garbage{{\n{"type":"session"');
      const garbage = await cli(['sanitize', path.join(dir, 'garbage.jsonl'), ...route]);
      assert.equal(garbage.code, EXIT.badInput, 'neither a session nor messages: the bare reader names the line');
    } finally {
      server.close();
      await cleanup();
    }
  });

  test('a header and nothing else that parses: no message, exit 1 with one line (never an empty success)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeFile(path.join(dir, 's.jsonl'), '{"type":"session","id":"x"}\n{"type":"message",\n');
      const result = await cli(['sanitize', path.join(dir, 's.jsonl'), ...route, '--stats']);
      assert.equal(result.code, EXIT.badInput, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^transcript-hygiene: .*s\.jsonl: a session with no message \(its header only\)\n$/);
    } finally {
      await cleanup();
    }
  });

  test('a session through a pipe path (not a regular file) is read as a stream and spooled', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const fifo = path.join(dir, 'pipe.jsonl');
      execFileSync('mkfifo', [fifo]);
      const writer = (async () => {
        const handle = await open(fifo, 'w');
        await handle.writeFile(await readFile(path.join(readFixtures, 'branches.jsonl')));
        await handle.close();
      })();
      const result = await cli(['sanitize', fifo, ...route]);
      await writer;
      assert.equal(result.code, EXIT.ok, result.stderr);
      assert.equal(result.stdout, (await cli(['sanitize', path.join(readFixtures, 'branches.jsonl'), ...route])).stdout);
    } finally {
      await cleanup();
    }
  });
});
