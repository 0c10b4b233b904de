import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../lib/exit-codes.ts';
import { sanitizeSessionHistory } from '../lib/index.ts';
import { readJsonlMessages } from '../lib/jsonl.ts';
import { runCli as run } from './helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];


async function linesOf(text: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const batch of readJsonlMessages([text])) out.push(...batch);
  return out;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-cli-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sanitize', () => {
  test('writes the replay copy of a session file as JSONL, equal to the library API', async () => {
    const result = await run(['sanitize', demo, ...route]);
    assert.equal(result.code, EXIT.ok, result.stderr);
    const messages: unknown[] = [];
    for await (const batch of readJsonlMessages([await readFile(demo)])) messages.push(...batch);
    const expected = await sanitizeSessionHistory(messages, { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' });
    assert.deepEqual(await linesOf(result.stdout), expected);
    assert.ok(expected.length > 0 && expected.length < messages.length, 'the demo exercises dropping');
  });

  test('reads stdin, and a JSON array as well as JSONL', async () => {
    const messages = [{ role: 'user', content: ' ' }, { role: 'user', content: 'hi' }, null, 7];
    const fromArray = await run(['sanitize', ...route, '--stats'], JSON.stringify(messages));
    assert.equal(fromArray.code, EXIT.ok, fromArray.stderr);
    assert.deepEqual(await linesOf(fromArray.stdout), [{ role: 'user', content: 'hi' }]);
    const stats = JSON.parse(fromArray.stderr);
    assert.equal(stats.rules['drop-non-object-messages'].dropped, 2);
    assert.equal(stats.rules['drop-blank-user-text'].droppedTurns, 1);
  });

  test('-o writes the file only when complete', async () => {
    const target = path.join(dir, 'out.jsonl');
    const result = await run(['sanitize', demo, ...route, '-o', target]);
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal((await readFile(target, 'utf8')).split('\n').length - 1, 8);
  });

  test('a bad line: exit 1, one line naming the file and line, no output file, no temporary left', async () => {
    const input = path.join(dir, 'bad.jsonl');
    await writeFile(input, '{"role":"user","content":"a"}\n{"role":"user","content":"b"}\n{oops\n');
    const target = path.join(dir, 'bad-out.jsonl');
    const result = await run(['sanitize', input, ...route, '-o', target]);
    assert.equal(result.code, EXIT.badInput);
    assert.match(result.stderr, new RegExp(`^transcript-hygiene: ${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: not valid JSON`));
    assert.equal(result.stderr.trim().split('\n').length, 1);
    const left = await readdir(dir);
    assert.ok(!left.includes('bad-out.jsonl'));
    assert.ok(!left.some((name) => name.includes('.tmp-')), `temporary left: ${left.join(', ')}`);
  });

  test('a line that is JSON but not an object is bad input', async () => {
    const result = await run(['sanitize', ...route], '{"role":"user","content":"a"}\n"just a string"\n');
    assert.equal(result.code, EXIT.badInput);
    assert.equal(result.stderr, 'transcript-hygiene: <stdin>:2: expected a JSON object, got a string\n');
  });

  test('a missing file and a directory each get their own message and exit code', async () => {
    const missing = await run(['sanitize', path.join(dir, 'nope.jsonl'), ...route]);
    assert.equal(missing.code, EXIT.inputUnavailable);
    assert.match(missing.stderr, /nope\.jsonl: no such file\n$/);
    const directory = await run(['sanitize', dir, ...route]);
    assert.equal(directory.code, EXIT.inputIsDirectory);
    assert.match(directory.stderr, /is a directory/);
  });

  test('a path through a file (ENOTDIR) is reported as unreadable, not crashed on', async () => {
    const result = await run(['sanitize', path.join(demo, 'inside.jsonl'), ...route]);
    assert.equal(result.code, EXIT.inputUnavailable);
    assert.match(result.stderr, /inside\.jsonl: ENOTDIR/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });

  test('an output directory that does not exist is an output failure', async () => {
    const result = await run(['sanitize', demo, ...route, '-o', path.join(dir, 'no/such/dir/out.jsonl')]);
    assert.equal(result.code, EXIT.outputFailed, result.stderr);
    assert.match(result.stderr, /cannot write output/);
  });

  test('usage errors name the problem and point to --help', async () => {
    const missingRoute = await run(['sanitize', demo, '--provider', 'anthropic']);
    assert.equal(missingRoute.code, EXIT.usage);
    assert.match(missingRoute.stderr, /missing --model-api, --model-id/);
    assert.match(missingRoute.stderr, /sanitize --help/);
    const unknownFlag = await run(['sanitize', demo, ...route, '--frobnicate']);
    assert.equal(unknownFlag.code, EXIT.usage);
    const badFormat = await run(['sanitize', demo, ...route, '--format', 'xml']);
    assert.equal(badFormat.code, EXIT.usage);
    const unknownCommand = await run(['scrub']);
    assert.equal(unknownCommand.code, EXIT.usage);
    assert.match(unknownCommand.stderr, /unknown command 'scrub'/);
  });

  test('--help teaches the command', async () => {
    const result = await run(['sanitize', '--help']);
    assert.equal(result.code, EXIT.ok);
    for (const word of ['--provider', '--model-api', '--model-id', '--stats', '-o, --output', 'Exit codes', 'Examples']) {
      assert.ok(result.stdout.includes(word), word);
    }
  });
});

describe('policy', () => {
  test('prints the resolved policy and the rules in order', async () => {
    const result = await run(['policy', '--provider', 'mistral', '--model-api', 'openai-completions', '--model-id', 'mistral-large-latest']);
    assert.equal(result.code, EXIT.ok);
    assert.match(result.stdout, /toolCallIdMode\s+"strict9"/);
    assert.match(result.stdout, /1\. drop-non-object-messages/);
  });

  test('--json gives the policy object and rule names', async () => {
    const result = await run(['policy', ...route, '--json']);
    const parsed = JSON.parse(result.stdout);
    assert.equal(parsed.policy.preserveNativeAnthropicToolUseIds, true);
    assert.ok(parsed.rules.some((rule: { name: string }) => rule.name === 'drop-blank-text-blocks'));
  });

  test('help with no command prints the overview', async () => {
    const result = await run([]);
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stderr, /Commands:/);
    assert.equal((await run(['help', 'policy'])).code, EXIT.ok);
  });
});

describe('the installed command', () => {
  test('bin/transcript-hygiene.js runs the README example', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/transcript-hygiene.js'), 'sanitize', demo, ...route]);
    assert.equal(stdout.trim().split('\n').length, 8);
  });

  test('bad input through the real process: exit 1 and no stack trace', async () => {
    const child = execFile(process.execPath, [path.join(root, 'bin/transcript-hygiene.js'), 'sanitize', ...route]);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin!.end('not json\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, EXIT.badInput);
    assert.equal(stderr.split('\n').filter(Boolean).length, 1);
    assert.match(stderr, /<stdin>:1: not valid JSON/);
  });
});

describe('sanitize --display', () => {
  test('removes runtime wrappers from user turns only when asked', async () => {
    const wrapped = 'hello\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret runtime notes\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nbye';
    const input = JSON.stringify({ role: 'user', content: wrapped, timestamp: 1 }) + '\n';
    const plain = await run(['sanitize', ...route], input);
    assert.equal(plain.code, EXIT.ok, plain.stderr);
    assert.equal((JSON.parse(plain.stdout) as { content: string }).content, wrapped, 'the replay copy keeps user text verbatim (spec §7)');
    const display = await run(['sanitize', ...route, '--display'], input);
    assert.equal(display.code, EXIT.ok, display.stderr);
    assert.equal((JSON.parse(display.stdout) as { content: string }).content, 'hello\n\nbye');
  });
});
