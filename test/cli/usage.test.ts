/** The command line's first minutes: version, usage, misspellings, and a stdout that cannot be written. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';
import { main } from '../../lib/cli/main.ts';
import { runCli } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

/** A stdout whose writes fail with `code` after `okBytes` bytes. */
function failingStdout(code: string, okBytes = 0): Writable {
  let written = 0;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      if (written > okBytes) callback(Object.assign(new Error(`write ${code}`), { code }));
      else callback();
    },
  });
}

async function runWithStdout(argv: string[], stdout: Writable): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      stderr += chunk.toString();
      callback();
    },
  });
  const code = await main(argv, { stdin: Readable.from(['']), stdout, stderr: sink });
  return { code, stderr };
}

describe('a stdout that cannot be written', () => {
  const commands: Array<[string, string[]]> = [
    ['sanitize', ['sanitize', demo, ...route]],
    ['check', ['check', demo, ...route]],
    ['policy', ['policy', ...route]],
    ['--help', ['--help']],
    ['sanitize --help', ['sanitize', '--help']],
  ];
  for (const [name, argv] of commands) {
    test(`${name}: ENOSPC is exit 4 with one line`, async () => {
      const result = await runWithStdout(argv, failingStdout('ENOSPC'));
      assert.equal(result.code, EXIT.outputFailed, result.stderr);
      assert.match(result.stderr, /^transcript-hygiene: <stdout>: output not writable \(.*ENOSPC.*\)\n$/);
    });
    test(`${name}: EPIPE (the reader stopped) is a quiet success`, async () => {
      const result = await runWithStdout(argv, failingStdout('EPIPE'));
      assert.equal(result.stderr, '');
      // The command's own answer stands (check's is whether the transcript has violations).
      assert.equal(result.code, (await runCli(argv)).code);
    });
  }

  test('the real process with stdout on /dev/full: exit 4, one line, no stack trace', async () => {
    for (const argv of [['sanitize', demo, ...route], ['--help']]) {
      const full = openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [bin, ...argv], { stdio: ['ignore', full, 'pipe'] });
      closeSync(full);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, EXIT.outputFailed, `${argv[0]}: ${stderr}`);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /output not writable/);
    }
  });
});

describe('first minutes', () => {
  test('--version and -v print the package version; the package has its MIT LICENSE', async () => {
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag]);
      assert.equal(result.code, EXIT.ok);
      assert.equal(result.stdout, `${version}\n`);
    }
    assert.match(await readFile(path.join(root, 'LICENSE'), 'utf8'), /^MIT License/);
  });

  test('no arguments: the usage on stderr, nothing on stdout, exit 2', async () => {
    const result = await runCli([]);
    assert.equal(result.code, EXIT.usage);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Commands:/);
  });

  test('an unknown command suggests the closest one', async () => {
    const result = await runCli(['sanitze', demo]);
    assert.equal(result.code, EXIT.usage);
    assert.equal(result.stderr, "transcript-hygiene: unknown command 'sanitze' (did you mean 'sanitize'?); see 'transcript-hygiene --help'\n");
  });

  test('help for an unknown command is a usage error, as the command alone is', async () => {
    const result = await runCli(['help', 'sanitze']);
    assert.equal(result.code, EXIT.usage);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, "transcript-hygiene: unknown command 'sanitze' (did you mean 'sanitize'?); see 'transcript-hygiene --help'\n");
    assert.equal((await runCli(['help', 'no-such-command'])).code, (await runCli(['no-such-command'])).code);
  });

  test('an unknown option or a missing value: one line naming the closest option', async () => {
    const unknown = await runCli(['sanitize', demo, ...route, '--stat']);
    assert.equal(unknown.code, EXIT.usage);
    assert.equal(unknown.stderr, "transcript-hygiene: unknown option '--stat' (did you mean '--stats'?); see 'transcript-hygiene sanitize --help'\n");
    const missing = await runCli(['check', demo, '--model-api', 'anthropic-messages', '--model-id', 'x', '--provider']);
    assert.equal(missing.code, EXIT.usage);
    assert.equal(missing.stderr, "transcript-hygiene: option '--provider' needs a value; see 'transcript-hygiene check --help'\n");
    const repair = await runCli(['repair', demo, '--jsn']);
    assert.equal(repair.code, EXIT.usage);
    assert.equal(repair.stderr, "transcript-hygiene: unknown option '--jsn' (did you mean '--json'?); see 'transcript-hygiene repair --help'\n");
  });

  test('policy prints no undefined values', async () => {
    const result = await runCli(['policy', ...route]);
    assert.equal(result.code, EXIT.ok);
    assert.doesNotMatch(result.stdout, /undefined/);
    assert.match(result.stdout, /duplicateToolCallIdStyle\s+\(not set\)/);
  });

  test('check: bad input has its own exit code, apart from violations (1)', async () => {
    const bad = await runCli(['check', ...route], '{"role":"user","content":"a"}\n{oops\n');
    assert.equal(bad.code, EXIT.checkBadInput, bad.stderr);
    assert.notEqual(EXIT.checkBadInput, 1);
    assert.match(bad.stderr, /^transcript-hygiene: <stdin>:2: not valid JSON/);
  });
});
