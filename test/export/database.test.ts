/**
 * `export` over OpenClaw databases: a state directory gives one output per session, each the
 * bytes `sanitize DB --session ID` writes; `--session` filters; a bad session or database is
 * listed with its seq while the others go on; a session that grew is exported again; and
 * `export --queue` with a real worker writes the same tree, its job ids covering database,
 * session and last seq.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { jobIdFor } from '../../lib/export/queue/job.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../session/helpers/files.ts';
import { SESSIONS, STATE_DIR, openWritable } from '../session/helpers/openclaw-db.ts';
import { readyWorker, type CommandProcess } from '../queue/processes.ts';
import { startRedis } from '../queue/redis-server.ts';

const ROUTE = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const MAIN = path.join('agents', 'main', 'agent', 'openclaw-agent');

async function outputs(out: string): Promise<string[]> {
  const files = await readdir(out, { recursive: true });
  return files.filter((file) => file.endsWith('.jsonl')).sort();
}

async function report(out: string): Promise<ExportReport> {
  return JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
}

/**
 * An output with its synthetic missing tool results' times left out: export dates them by the
 * session's time (a resumed export writes the same bytes), sanitize by the clock.
 */
const clockFree = (jsonl: string): string =>
  jsonl
    .split('\n')
    .map((line) => (line.includes('[openclaw] missing tool result in session history') ? line.replace(/"timestamp":\d+/, '"timestamp":0') : line))
    .join('\n');

describe('export over OpenClaw databases', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let state: string;
  before(async () => {
    ({ dir, cleanup } = await tempDir('th-export-db-'));
    state = path.join(dir, 'state');
    await cp(STATE_DIR, state, { recursive: true });
  });
  after(async () => cleanup());

  test("a state directory: one output per session, each what 'sanitize --session' writes", async () => {
    const out = path.join(dir, 'all');
    const run = await runCli(['export', '--out', out, '--quiet', ...ROUTE, state]);
    assert.equal(run.code, 0, run.stderr);
    const files = await outputs(out);
    assert.equal(files.length, 14);
    assert.ok(files.includes(path.join('agents', 'ops', 'agent', 'openclaw-agent', `${SESSIONS.ops}.jsonl`)));
    for (const file of files) {
      const database = path.join(state, path.dirname(file) + '.sqlite');
      const single = await runCli(['sanitize', database, '--session', path.basename(file, '.jsonl'), ...ROUTE]);
      assert.equal(single.code, 0, single.stderr);
      assert.equal(clockFree(await readFile(path.join(out, file), 'utf8')), clockFree(single.stdout), file);
    }
    const summary = await report(out);
    assert.equal(summary.totals.exported, 14);
    assert.deepEqual(await readdir(path.join(state, 'agents', 'main', 'agent')), ['openclaw-agent.sqlite'], 'nothing written beside the database');
  });

  test('--session picks sessions by key or id, from a database given by path', async () => {
    const out = path.join(dir, 'some');
    const database = path.join(state, MAIN + '.sqlite');
    const run = await runCli(['export', '--out', out, '--quiet', ...ROUTE, '--session', 'agent:main:branches', '--session', SESSIONS.images, database]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await outputs(out), [`openclaw-agent/${SESSIONS.branches}.jsonl`, `openclaw-agent/${SESSIONS.images}.jsonl`]);
  });

  test('a bad row fails its session only, listed with its seq; a database that is not OpenClaw is listed too', async () => {
    const broken = path.join(dir, 'broken');
    await cp(STATE_DIR, broken, { recursive: true });
    const writer = openWritable(path.join(broken, MAIN + '.sqlite'));
    writer.run(`UPDATE transcript_events SET event_json = '{"type":' WHERE session_id = ? AND seq = 3`, SESSIONS.compaction);
    writer.close();
    await mkdir(path.join(broken, 'agents', 'other', 'agent'), { recursive: true });
    const other = openWritable(path.join(broken, 'agents', 'other', 'agent', 'openclaw-agent.sqlite'));
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    const out = path.join(dir, 'partial');
    const run = await runCli(['export', '--out', out, '--quiet', ...ROUTE, broken]);
    assert.equal(run.code, 2, 'some sessions failed');
    assert.equal((await outputs(out)).length, 13);
    const failures = (await report(out)).failures.map((failure) => [failure.code, failure.line ?? null, failure.reason]);
    assert.deepEqual(failures.sort(), [
      ['db_bad_row', 3, `session ${SESSIONS.compaction}: seq 3: not valid JSON`],
      ['db_not_openclaw', null, 'a SQLite database, but not an OpenClaw agent database (no schema_meta, session_nodes, session_windows, transcript_events tables)'],
    ]);
  });

  test('a re-run skips current sessions and exports again the one that grew', async () => {
    const grow = path.join(dir, 'grow');
    await cp(STATE_DIR, grow, { recursive: true });
    const out = path.join(dir, 'grown');
    assert.equal((await runCli(['export', '--out', out, '--quiet', ...ROUTE, grow])).code, 0);
    const again = await runCli(['export', '--out', out, '--quiet', ...ROUTE, grow]);
    assert.equal(again.code, 0);
    assert.deepEqual([(await report(out)).totals.exported, (await report(out)).totals.skipped], [0, 14]);
    const writer = openWritable(path.join(grow, MAIN + '.sqlite'));
    const event = JSON.stringify({ type: 'message', id: 'grown01', parentId: 'a1b2000c', timestamp: '2026-07-01T00:00:00.000Z', message: { role: 'user', content: 'one more', timestamp: 1782864000000 } });
    writer.run('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, 12, ?, 1782864000000, ?)', SESSIONS.branches, event, Buffer.byteLength(event));
    writer.close();
    assert.equal((await runCli(['export', '--out', out, '--quiet', ...ROUTE, grow])).code, 0);
    assert.deepEqual([(await report(out)).totals.exported, (await report(out)).totals.skipped], [1, 13]);
    const last = (await readFile(path.join(out, MAIN, `${SESSIONS.branches}.jsonl`), 'utf8')).trim().split('\n').pop()!;
    assert.equal((JSON.parse(last) as { content: string }).content, 'one more');
  });

  test('a queue job id covers the database path, the session id and its last seq', () => {
    const session = (sessionId: string, lastSeq: number) => ({ path: '/db.sqlite', size: 10, mtimeMs: 5, database: { sessionId, lastSeq } });
    assert.equal(jobIdFor(session('a', 7), 'h'), jobIdFor({ ...session('a', 7), size: 99, mtimeMs: 1 }, 'h'), 'the database file changing around it is not a new job');
    const ids = new Set([jobIdFor(session('a', 7), 'h'), jobIdFor(session('a', 8), 'h'), jobIdFor(session('b', 7), 'h'), jobIdFor({ ...session('a', 7), path: '/other.sqlite' }, 'h')]);
    assert.equal(ids.size, 4);
  });

  test('export --queue with a worker writes the same outputs as the local export', async () => {
    const redis = await startRedis();
    let worker: CommandProcess | undefined;
    try {
      worker = (await readyWorker(redis.url, ['--concurrency', '1'])).process;
      const local = path.join(dir, 'all');
      const queued = path.join(dir, 'queued');
      const run = await runCli(['export', '--out', queued, '--quiet', '--queue', redis.url, ...ROUTE, state]);
      assert.equal(run.code, 0, run.stderr);
      const files = await outputs(queued);
      assert.deepEqual(files, await outputs(local));
      for (const file of files) assert.equal(await readFile(path.join(queued, file), 'utf8'), await readFile(path.join(local, file), 'utf8'), file);
    } finally {
      worker?.kill('SIGTERM');
      await worker?.exited;
      await redis.stop();
    }
  });
});
