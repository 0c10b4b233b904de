/**
 * The database reader on a live database and on bad input: it never writes, leaves no -wal or
 * -shm files that were not there, reads a session as one snapshot while another process appends
 * to it (that writer never waits and stays intact), waits a bounded time on a locked database,
 * and fails each kind of bad input with one line and its own exit code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { createInterface, type Interface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openOpenClawDatabase } from '../../lib/session/openclaw-db.ts';
import { readDatabaseSession } from '../../lib/session/db-read.ts';
import { readDatabaseSessionMessages } from '../../lib/session/db-sanitize.ts';
import { runCli } from '../helpers/run-cli.ts';
import { plain, tempDir } from './helpers/files.ts';
import { REFERENCE_DIR, SESSIONS, copyDatabase, openWritable } from './helpers/openclaw-db.ts';

const ROUTE = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const appender = fileURLToPath(new URL('./helpers/db-appender.mjs', import.meta.url));
const TOOLS_LEAF = 'a1b2000d';

async function referenceMessages(sessionId: string): Promise<unknown[]> {
  return (JSON.parse(await readFile(path.join(REFERENCE_DIR, 'main', `${sessionId}.json`), 'utf8')) as { messages: unknown[] }).messages;
}

const appended = (n: number, first = 1): unknown[] =>
  Array.from({ length: n }, (_, i) => {
    const k = first + i;
    return { role: 'user', content: `appended ${k}`, timestamp: Date.UTC(2026, 6, 1) + k * 1000 };
  });

/** The appender child: send a command, get its JSON answer. */
class Appender {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: Interface;
  private readonly answers: string[] = [];
  private waiting: ((line: string) => void) | undefined;

  constructor(file: string) {
    this.child = spawn(process.execPath, [appender, file, SESSIONS.tools, TOOLS_LEAF], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = createInterface({ input: this.child.stdout });
    this.lines.on('line', (line) => {
      if (this.waiting !== undefined) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.answers.push(line);
    });
  }

  async next(): Promise<Record<string, unknown>> {
    const line = this.answers.shift() ?? (await new Promise<string>((resolve) => (this.waiting = resolve)));
    return JSON.parse(line) as Record<string, unknown>;
  }

  async send(command: string): Promise<Record<string, unknown>> {
    this.child.stdin.write(`${command}\n`);
    return this.next();
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}

describe('a live database', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ dir, cleanup } = await tempDir('th-db-live-')));
  after(async () => cleanup());

  test('another process appends while a session is read: the read is one snapshot, the writer never waits and stays intact', async () => {
    const file = await copyDatabase(path.join(dir, 'live'));
    const writer = new Appender(file);
    try {
      assert.deepEqual(await writer.next(), { ready: true });
      assert.deepEqual(await writer.send('append 5'), { appended: 5, failures: [], lastSeq: 18 });
      const base = await referenceMessages(SESSIONS.tools);
      const db = await openOpenClawDatabase(file);
      assert.equal(db.immutable, false, 'the writer has the database open: the reader joins its WAL');
      try {
        const session = await readDatabaseSession(db, SESSIONS.tools);
        // The index pass has run; the writer appends before the read pass and while it runs.
        assert.deepEqual(await writer.send('append 40'), { appended: 40, failures: [], lastSeq: 58 });
        const messages: unknown[] = [];
        let total = 45;
        for await (const batch of session.batches()) {
          messages.push(...(plain(batch) as unknown[]));
          const answer = await writer.send('append 3');
          assert.deepEqual([answer.appended, answer.failures], [3, []]);
          total += 3;
        }
        assert.equal(session.lastSeq, 18);
        assert.deepEqual(messages, [...base, ...appended(5)], 'exactly the session as it was when the read began');
        const later = await readDatabaseSession(db, SESSIONS.tools);
        assert.equal(later.lastSeq, 13 + total);
        assert.deepEqual(plain(await later.toArray()), [...base, ...appended(total)], 'a later read sees every append, in order');
      } finally {
        db.close();
      }
      assert.deepEqual(await writer.send('check'), { integrity: 'ok' });
    } finally {
      await writer.close();
    }
  });

  test('-wal and -shm files that were there stay; none are left where there were none; the database is not written', async () => {
    const quiet = await copyDatabase(path.join(dir, 'quiet'));
    const before = createHash('sha256').update(await readFile(quiet)).digest('hex');
    const mtime = (await stat(quiet)).mtimeMs;
    const run = await runCli(['sanitize', quiet, '--session', 'agent:main:large', ...ROUTE]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, 600);
    assert.deepEqual(await readdir(path.join(dir, 'quiet')), ['openclaw-agent.sqlite']);
    assert.equal(createHash('sha256').update(await readFile(quiet)).digest('hex'), before);
    assert.equal((await stat(quiet)).mtimeMs, mtime);

    const busy = await copyDatabase(path.join(dir, 'open'));
    const writer = new Appender(busy);
    try {
      await writer.next();
      const files = await readdir(path.join(dir, 'open'));
      assert.deepEqual(files.sort(), ['openclaw-agent.sqlite', 'openclaw-agent.sqlite-shm', 'openclaw-agent.sqlite-wal']);
      const read = await runCli(['check', busy, '--session', SESSIONS.tools, ...ROUTE]);
      assert.equal(read.code, 1, 'the tools session has two Anthropic id violations');
      assert.deepEqual((await readdir(path.join(dir, 'open'))).sort(), files);
    } finally {
      await writer.close();
    }
  });

  test('a writer that opens the database during an immutable read fails that read with one line (run again)', async () => {
    const file = await copyDatabase(path.join(dir, 'late'));
    const db = await openOpenClawDatabase(file);
    assert.equal(db.immutable, true, 'no -wal or -shm: nothing had it open');
    const writer = new Appender(file);
    try {
      await writer.next();
      await writer.send('append 1');
      await assert.rejects(readDatabaseSession(db, SESSIONS.tools), { code: 'db_busy', message: /session a1b2c3d4-0001-4000-8000-000000000001: the database changed while it was read/ });
    } finally {
      db.close();
      await writer.close();
    }
  });

  test('once the rows are read, a writer changes nothing: the read pass reads the spooled snapshot', async () => {
    const file = await copyDatabase(path.join(dir, 'after-index'));
    const expected = await readDatabaseSessionMessages({ path: file, session: SESSIONS.tools, options: {} });
    const db = await openOpenClawDatabase(file);
    assert.equal(db.immutable, true);
    const session = await readDatabaseSession(db, SESSIONS.tools);
    const writer = new Appender(file);
    try {
      await writer.next();
      await writer.send('append 1');
      assert.deepEqual(await session.toArray(), expected);
    } finally {
      db.close();
      await writer.close();
    }
  });

  test('a database locked in exclusive mode is waited for up to --busy-timeout, then fails with exit 17', async () => {
    const file = await copyDatabase(path.join(dir, 'locked'));
    const holder = openWritable(file);
    try {
      holder.exec('PRAGMA locking_mode = EXCLUSIVE');
      holder.exec('BEGIN IMMEDIATE');
      holder.run("UPDATE schema_meta SET updated_at = updated_at WHERE meta_key = 'primary'");
      holder.exec('COMMIT');
      const run = await runCli(['sanitize', file, '--session', 'agent:main:main', '--busy-timeout', '200', ...ROUTE]);
      assert.equal(run.code, 17);
      assert.match(run.stderr, /^transcript-hygiene: .*openclaw-agent\.sqlite: the database stayed locked for 200 ms \(.*\); another process holds it, try again later\n$/);
    } finally {
      holder.close();
    }
  });
});

describe('bad input: one line naming the database (session, seq), a distinct exit code', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ dir, cleanup } = await tempDir('th-db-bad-')));
  after(async () => cleanup());

  const cases: { name: string; code: number; line: RegExp; make: (dir: string) => Promise<{ file: string; session?: string }> }[] = [
    {
      name: 'not SQLite',
      code: 12,
      line: /session\.jsonl: not a SQLite database \(no SQLite header\)/,
      make: async (at) => {
        const file = path.join(at, 'session.jsonl');
        await writeFile(file, '{"type":"session","version":3,"id":"x"}\n');
        return { file };
      },
    },
    {
      name: 'SQLite, not an OpenClaw agent database',
      code: 13,
      line: /other\.sqlite: a SQLite database, but not an OpenClaw agent database \(no schema_meta, session_nodes, session_windows, transcript_events tables\)/,
      make: async (at) => {
        const file = path.join(at, 'other.sqlite');
        const db = openWritable(file);
        db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
        db.close();
        return { file };
      },
    },
    {
      name: 'an unknown schema version',
      code: 14,
      line: /openclaw-agent\.sqlite: agent schema version 99 is not one this reader knows \(23: OpenClaw 2026\.9\.6\)/,
      make: async (at) => {
        const file = await copyDatabase(at);
        const db = openWritable(file);
        db.run("UPDATE schema_meta SET schema_version = 99 WHERE meta_key = 'primary'");
        db.close();
        return { file };
      },
    },
    {
      name: 'a torn file',
      code: 15,
      line: /openclaw-agent\.sqlite(: session \S+)?: the database file is torn or corrupt \(/,
      make: async (at) => {
        const file = await copyDatabase(at, 'main');
        await truncate(file, Math.floor((await stat(file)).size * 0.4));
        return { file, session: SESSIONS.large };
      },
    },
    {
      name: 'a row that is not JSON',
      code: 16,
      line: /openclaw-agent\.sqlite: session a1b2c3d4-0001-4000-8000-000000000001: seq 5: not valid JSON/,
      make: async (at) => {
        const file = await copyDatabase(at);
        const db = openWritable(file);
        db.run(`UPDATE transcript_events SET event_json = '{"type":"message","id":' WHERE session_id = ? AND seq = 5`, SESSIONS.tools);
        db.close();
        return { file, session: SESSIONS.tools };
      },
    },
    {
      name: 'a compressed row whose zstd does not decode to its declared size',
      code: 16,
      line: /openclaw-agent\.sqlite: session a1b2c3d4-0005-4000-8000-000000000005: seq \d+: compressed entry does not decode to its declared size: the frame says \d+ bytes, the row \d+/,
      make: async (at) => {
        const file = await copyDatabase(at);
        const db = openWritable(file);
        const row = db.get('SELECT min(seq) AS seq FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL', SESSIONS.large)!;
        db.run('UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 7 WHERE session_id = ? AND seq = ?', SESSIONS.large, Number(row.seq));
        db.close();
        return { file, session: SESSIONS.large };
      },
    },
    {
      name: 'no such session',
      code: 18,
      line: /openclaw-agent\.sqlite: no session with key or id "agent:main:gone"/,
      make: async (at) => ({ file: await copyDatabase(at), session: 'agent:main:gone' }),
    },
  ];

  for (const [index, entry] of cases.entries()) {
    for (const command of ['sanitize', 'check']) {
      test(`${entry.name}: ${command} exits ${entry.code}`, async () => {
        const at = path.join(dir, `${index}-${command}`);
        await mkdir(at);
        const { file, session } = await entry.make(at);
        const run = await runCli([command, file, '--session', session ?? 'agent:main:main', ...ROUTE]);
        assert.equal(run.code, entry.code, run.stderr);
        assert.equal(run.stdout, '');
        assert.equal(run.stderr.split('\n').length, 2, 'one line');
        assert.match(run.stderr, entry.line);
      });
    }
  }
});
