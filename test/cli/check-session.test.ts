/**
 * `check` reads a session file as `sanitize` does: the active branch only (an abandoned branch
 * is never sent), compaction projected, and torn lines skipped with the same warning, not failed.
 * Violations name the session file's own line, or a database session's row by its seq.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';
import { EXIT_VIOLATIONS } from '../../lib/invariants/check-command.ts';
import { runCli } from '../helpers/run-cli.ts';
import { SESSIONS, copyDatabase } from '../session/helpers/openclaw-db.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const branches = path.join(root, 'fixtures/sessions/read/branches.jsonl');
const anthropic = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

const header = { type: 'session', version: 3, id: '01982a6e-5c00-7a3b-9d2e-4f1c8b7a6e99', timestamp: '2026-07-20T09:00:00.000Z', cwd: '/srv' };
let clock = 0;
function entry(id: string, parentId: string | null, message: Record<string, unknown>): Record<string, unknown> {
  clock++;
  return { type: 'message', id, parentId, timestamp: new Date(Date.UTC(2026, 6, 20, 9, 0, clock)).toISOString(), message: { timestamp: 1_784_000_000_000 + clock, ...message } };
}
const user = (text: string) => ({ role: 'user', content: text });
const reply = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' });
const call = (id: string) => ({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: { path: 'a.md' } }], stopReason: 'toolUse', api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' });

/**
 * Abandoned branch (a1 -> b1 -> c1): a call with no result, which breaks the pairing rule.
 * Active branch (a1 -> b2 -> c2), written last: clean.
 */
const branched = [
  header,
  entry('a1', null, user('read a.md')),
  entry('b1', 'a1', call('toolu_abandoned')),
  entry('c1', 'b1', user('never mind')),
  entry('b2', 'a1', reply('Here is a.md.')),
  entry('c2', 'b2', user('thanks')),
  entry('d2', 'c2', reply('You are welcome.')),
];
const jsonl = (records: readonly unknown[]): string => records.map((record) => JSON.stringify(record)).join('\n') + '\n';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-check-session-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('check counts the messages sanitize reads from a branched session', async () => {
  const checked = await runCli(['check', branches, ...anthropic, '--json']);
  const sanitized = await runCli(['sanitize', branches, ...anthropic]);
  assert.equal(sanitized.code, EXIT.ok, sanitized.stderr);
  const report = JSON.parse(checked.stdout) as { messages: number };
  assert.equal(report.messages, 6);
  assert.equal(report.messages, sanitized.stdout.trimEnd().split('\n').length);
});

test('an abandoned branch is not checked: it is never sent', async () => {
  const file = path.join(dir, 'branched.jsonl');
  await writeFile(file, jsonl(branched));
  const result = await runCli(['check', file, ...anthropic]);
  assert.equal(result.code, EXIT.ok, result.stdout + result.stderr);
  assert.match(result.stdout, /no violations of the anthropic rules \(4 messages, as given\)/);
});

test('the active branch is checked, and a violation names the file line', async () => {
  // The same tree, but the branch with the unanswered call is the one written last (active).
  const file = path.join(dir, 'active-broken.jsonl');
  const records = [header, branched[1], branched[4], branched[5], branched[6], branched[2], branched[3]];
  await writeFile(file, jsonl(records));
  const result = await runCli(['check', file, ...anthropic]);
  assert.equal(result.code, 1, result.stdout + result.stderr);
  // The call is message 1 of the active path and line 6 of the file.
  assert.match(result.stdout, /message 1 \(line 6\): anthropic\//);
  assert.doesNotMatch(result.stdout, /line [2-5]\)/);
});

test('a torn line of a session is skipped with the warning sanitize gives, not a failure', async () => {
  const file = path.join(dir, 'torn.jsonl');
  await writeFile(file, jsonl(branched).replace('\n{"type":"message","id":"c2"', '\n{"type":"mess\n{"type":"message","id":"c2"'));
  const checked = await runCli(['check', file, ...anthropic]);
  const sanitized = await runCli(['sanitize', file, ...anthropic]);
  assert.equal(sanitized.code, EXIT.ok, sanitized.stderr);
  assert.equal(checked.code, EXIT.ok, checked.stdout + checked.stderr);
  assert.match(checked.stderr, /^transcript-hygiene: warning: .*torn\.jsonl: skipped 1 line that is not JSON \(line 6\)\n$/);
  assert.equal(checked.stderr, sanitized.stderr);
});

test('a session on stdin is read the same way', async () => {
  const result = await runCli(['check', ...anthropic, '--json'], jsonl(branched));
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.equal((JSON.parse(result.stdout) as { messages: number }).messages, 4);
});

test('--after-hygiene checks what sanitize writes for the active branch', async () => {
  const file = path.join(dir, 'copy.jsonl');
  await copyFile(branches, file);
  const result = await runCli(['check', file, ...anthropic, '--after-hygiene', '--json']);
  const sanitized = await runCli(['sanitize', file, ...anthropic]);
  assert.equal((JSON.parse(result.stdout) as { messages: number }).messages, sanitized.stdout.trimEnd().split('\n').length);
  assert.equal(await readFile(file, 'utf8'), await readFile(branches, 'utf8'));
});

test('check --help says how a session file is read', async () => {
  const result = await runCli(['check', '--help']);
  assert.match(result.stdout, /active branch/);
  assert.match(result.stdout, /not JSON are skipped/);
});

test("check on a database session names each violation's row by seq", async () => {
  const database = await copyDatabase(path.join(dir, 'db'));
  const openai = ['--provider', 'openai', '--model-api', 'openai-responses', '--model-id', 'gpt-5'];
  const text = await runCli(['check', database, '--session', SESSIONS.tools, ...openai]);
  assert.equal(text.code, EXIT_VIOLATIONS, text.stderr);
  // The session's rows: 0 header, 1 model change, 2 thinking level, 3 the user's message, 4 the first call.
  assert.match(text.stdout, /^ {2}message 1 \(seq 4\): openai-responses\/id-shape \[id "toolu_01", block 2\]/m);
  const json = JSON.parse((await runCli(['check', database, '--session', SESSIONS.tools, ...openai, '--json'])).stdout) as { violations: Array<{ index: number; seq?: number; line?: number }> };
  assert.deepEqual(
    json.violations.slice(0, 2).map(({ index, seq, line }) => ({ index, seq, line })),
    [
      { index: 1, seq: 4, line: undefined },
      { index: 2, seq: 5, line: undefined },
    ],
  );
});
