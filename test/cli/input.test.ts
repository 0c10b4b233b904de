/** Input that must not pass silently: wrappers, other tools' formats, inputs without a message, foreign roles, torn lines. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT } from '../../lib/exit-codes.ts';
import { EXPORT_EXIT, REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { runCli } from '../helpers/run-cli.ts';

const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const user = { role: 'user', content: 'hello', timestamp: 1 };
const assistant = { role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'stop', timestamp: 2 };
const jsonl = (...values: unknown[]): string => values.map((value) => JSON.stringify(value) + '\n').join('');
const HEADER = { type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' };
const entry = (id: string, parentId: string | null, message: unknown): unknown => ({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message });

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-cli-input-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('{"messages": [...]} is read as the message list, on one line or pretty-printed, by sanitize and check', async () => {
  const expected = await runCli(['sanitize', ...route], JSON.stringify([user, assistant]));
  assert.equal(expected.code, EXIT.ok, expected.stderr);
  assert.equal(expected.stdout.split('\n').length - 1, 2);
  for (const text of [JSON.stringify({ messages: [user, assistant] }), JSON.stringify({ messages: [user, assistant], model: 'x' }, null, 2)]) {
    const file = path.join(dir, 'wrapped.json');
    await writeFile(file, text);
    const fromFile = await runCli(['sanitize', file, ...route]);
    assert.equal(fromFile.code, EXIT.ok, fromFile.stderr);
    assert.equal(fromFile.stdout, expected.stdout);
    const fromStdin = await runCli(['sanitize', ...route], text);
    assert.equal(fromStdin.stdout, expected.stdout, fromStdin.stderr);
    const checked = await runCli(['check', file, ...route]);
    assert.equal(checked.code, EXIT.ok, checked.stderr);
    assert.match(checked.stdout, /\(2 messages, as given\)/);
  }
});

test("Claude Code's JSONL: one line saying what it is, exit 1 (check: its bad-input code), never an empty success", async () => {
  const text = jsonl(
    { type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'u1', parentUuid: null, sessionId: 's' },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }, uuid: 'u2', parentUuid: 'u1', sessionId: 's' },
  );
  const file = path.join(dir, 'claude-code.jsonl');
  await writeFile(file, text);
  for (const [argv, code] of [[['sanitize', file], EXIT.badInput], [['check', file], EXIT.checkBadInput]] as const) {
    const result = await runCli([...argv, ...route]);
    assert.equal(result.code, code, `${argv[0]}: ${result.stderr}`);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.split('\n').length - 1, 1, result.stderr);
    assert.match(result.stderr, /Claude Code/);
  }
  const fromStdin = await runCli(['sanitize', ...route], text);
  assert.equal(fromStdin.code, EXIT.badInput);
  assert.match(fromStdin.stderr, /^transcript-hygiene: <stdin>: .*Claude Code/);
});

test('an input in which no line is a message fails with what was found', async () => {
  const result = await runCli(['sanitize', ...route], jsonl({ id: 1, text: 'a' }, { id: 2, text: 'b' }));
  assert.equal(result.code, EXIT.badInput, result.stderr);
  assert.match(result.stderr, /^transcript-hygiene: <stdin>: no message.*"role"/);
  const headerOnly = await runCli(['check', ...route], jsonl(HEADER));
  assert.equal(headerOnly.code, EXIT.checkBadInput, headerOnly.stderr);
  assert.match(headerOnly.stderr, /session .*no message/);
});

test('an empty input: sanitize, check and export agree (exit 8; export lists it, writes nothing)', async () => {
  const empty = path.join(dir, 'empty-in');
  await mkdir(empty);
  await writeFile(path.join(empty, 'empty.jsonl'), '');
  await writeFile(path.join(empty, 'blank.jsonl'), '\n  \n');
  for (const name of ['empty.jsonl', 'blank.jsonl']) {
    for (const command of ['sanitize', 'check']) {
      const result = await runCli([command, path.join(empty, name), ...route]);
      assert.equal(result.code, EXIT.inputEmpty, `${command} ${name}: ${result.stderr}`);
      assert.equal(result.stderr.split('\n').length - 1, 1);
    }
  }
  for (const command of ['sanitize', 'check']) assert.equal((await runCli([command, ...route], '')).code, EXIT.inputEmpty, `${command} <stdin>`);
  const out = path.join(dir, 'empty-out');
  const exported = await runCli(['export', '--out', out, '-q', ...route, empty]);
  assert.equal(exported.code, EXPORT_EXIT.someFailed);
  const report = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
  assert.deepEqual(report.failures.map((failure) => [path.basename(failure.file), failure.code]), [['blank.jsonl', 'input_empty'], ['empty.jsonl', 'input_empty']]);
  assert.deepEqual((await readdir(out)).filter((name) => name.endsWith('.jsonl')), []);
});

test('roles the runtime never writes: check names the message; sanitize drops and counts them with a warning', async () => {
  const text = jsonl(user, { role: 'human', content: 'x' }, assistant, { role: 'system', content: 'be nice' });
  const checked = await runCli(['check', ...route], text);
  assert.equal(checked.code, 1, checked.stderr);
  assert.match(checked.stdout, /message 1 \(line 2\): runtime\/unknown-role.*"human"/);
  assert.match(checked.stdout, /message 3 \(line 4\): runtime\/unknown-role.*"system"/);
  const sanitized = await runCli(['sanitize', ...route, '--stats'], text);
  assert.equal(sanitized.code, EXIT.ok, sanitized.stderr);
  assert.doesNotMatch(sanitized.stdout, /"human"|"system"/);
  assert.equal(sanitized.stdout.split('\n').length - 1, 2);
  const [warning, stats] = sanitized.stderr.split('\n');
  assert.match(warning!, /^transcript-hygiene: warning: <stdin>: dropped 2 messages of roles the runtime never writes \(human 1, system 1\)$/);
  assert.deepEqual(JSON.parse(stats!).droppedForeignRoles, { human: 1, system: 1 });
});

test('torn or garbage lines skipped in a session file: one warning line with the count and the first line numbers', async () => {
  const file = path.join(dir, 'torn.jsonl');
  await writeFile(file, jsonl(HEADER, entry('a', null, user)) + 'garbage here\n' + jsonl(entry('b', 'a', assistant)) + '{"type":"message","id":"c","par');
  const result = await runCli(['sanitize', file, ...route]);
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.equal(result.stdout.split('\n').length - 1, 2);
  assert.equal(result.stderr, `transcript-hygiene: warning: ${file}: skipped 2 lines that are not JSON (lines 3, 5)\n`);
});

test('a binary input: the error line escapes control bytes', async () => {
  const result = await runCli(['sanitize', ...route], '\u0000\u0001\u001b[31mred\u0007\n');
  assert.equal(result.code, EXIT.badInput);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(result.stderr.slice(0, -1), /[\u0000-\u001f\u007f]/);
  assert.match(result.stderr, /\\x1b/);
  assert.equal(result.stderr.split('\n').length - 1, 1);
});
