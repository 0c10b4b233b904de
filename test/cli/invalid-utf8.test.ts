/**
 * Bytes that are not UTF-8 become U+FFFD: the run goes on, but `--stats` counts them and a
 * warning names the lines, for bare messages and session files alike.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT } from '../../lib/exit-codes.ts';
import { runCli } from '../helpers/run-cli.ts';

const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const line = (value: unknown): Buffer => Buffer.from(JSON.stringify(value) + '\n');
/** A user turn whose text holds a lone 0xFF byte and a genuine U+FFFD. */
function badUserLine(wrap: (message: unknown) => unknown): Buffer {
  const [head, tail] = JSON.stringify(wrap({ role: 'user', content: 'caf@ \uFFFD ok', timestamp: 2 })).split('@');
  return Buffer.concat([Buffer.from(head!), Buffer.from([0xff]), Buffer.from(tail! + '\n')]);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-invalid-utf8-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Stats {
  invalidUtf8?: { lines: number; sequences: number; lineNumbers: number[] };
}

async function sanitizeWithStats(file: string): Promise<{ code: number; stats: Stats; warnings: string[]; stdout: string }> {
  const result = await runCli(['sanitize', file, ...route, '--stats']);
  const lines = result.stderr.trimEnd().split('\n');
  return { code: result.code, stats: JSON.parse(lines.at(-1)!) as Stats, warnings: lines.slice(0, -1), stdout: result.stdout };
}

test('bare messages: counted in --stats, named in a warning, the text kept with U+FFFD', async () => {
  const file = path.join(dir, 'bare.jsonl');
  const wrap = (message: unknown): unknown => message;
  await writeFile(file, Buffer.concat([line({ role: 'user', content: 'hi', timestamp: 1 }), badUserLine(wrap), line({ role: 'assistant', content: [{ type: 'text', text: 'yes' }], stopReason: 'stop', timestamp: 3 })]));
  const run = await sanitizeWithStats(file);
  assert.equal(run.code, EXIT.ok);
  assert.deepEqual(run.stats.invalidUtf8, { lines: 1, sequences: 1, lineNumbers: [2] });
  assert.deepEqual(run.warnings, [`transcript-hygiene: warning: ${file}: replaced 1 byte sequence that is not UTF-8 with U+FFFD (line 2)`]);
  assert.match(run.stdout, /caf\uFFFD \uFFFD ok/);
});

test('a session file: the file line is named', async () => {
  const file = path.join(dir, 'session.jsonl');
  let parent: string | null = null;
  let n = 0;
  const entry = (message: unknown): unknown => {
    const id = `e${++n}`;
    const value = { type: 'message', id, parentId: parent, timestamp: `2026-01-01T00:00:0${n}.000Z`, message };
    parent = id;
    return value;
  };
  await writeFile(
    file,
    Buffer.concat([
      line({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }),
      line(entry({ role: 'user', content: 'hi', timestamp: 1 })),
      line(entry({ role: 'assistant', content: [{ type: 'text', text: 'yes' }], stopReason: 'stop', timestamp: 2 })),
      badUserLine(entry),
    ]),
  );
  const run = await sanitizeWithStats(file);
  assert.equal(run.code, EXIT.ok);
  assert.deepEqual(run.stats.invalidUtf8, { lines: 1, sequences: 1, lineNumbers: [4] });
  assert.match(run.warnings.join('\n'), /replaced 1 byte sequence that is not UTF-8 with U\+FFFD \(line 4\)/);
});

test('valid UTF-8, a U+FFFD of its own included, reports nothing', async () => {
  const file = path.join(dir, 'fine.jsonl');
  await writeFile(file, line({ role: 'user', content: 'caf\u00e9 \uFFFD', timestamp: 1 }));
  const run = await sanitizeWithStats(file);
  assert.equal(run.stats.invalidUtf8, undefined);
  assert.deepEqual(run.warnings, []);
});

test('check warns the same way', async () => {
  const file = path.join(dir, 'bare.jsonl');
  const result = await runCli(['check', file, ...route]);
  assert.match(result.stderr, /^transcript-hygiene: warning: .*bare\.jsonl: replaced 1 byte sequence that is not UTF-8 with U\+FFFD \(line 2\)\n$/);
});
