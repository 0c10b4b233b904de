/**
 * OpenClaw's SQLite session store, read as OpenClaw reads it: every fixture session (made by
 * OpenClaw 2026.9.6's own `doctor --session-sqlite import`) against the messages OpenClaw's
 * SessionManager.readSessionContext gave on the same database (recorded), against the
 * project's own reading of the legacy JSONL file it was imported from (with each importer
 * change named), and the reader's promises: read-only, no -wal/-shm left, strict rows.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { openOpenClawDatabase } from '../../lib/session/openclaw-db.ts';
import { readDatabaseSession } from '../../lib/session/db-read.ts';
import { listDatabaseSessions, resolveDatabaseSession } from '../../lib/session/db-sessions.ts';
import { readSessionMessages } from '../../lib/session/read.ts';
import { openSqlite, sqliteEngine } from '../../lib/sqlite/driver.ts';
import { plain, tempDir } from './helpers/files.ts';
import { LEGACY_DIR, REFERENCE_DIR, SESSIONS, copyDatabase, databaseOf, openWritable } from './helpers/openclaw-db.ts';

interface Reference {
  agent: string;
  key: string;
  sessionId: string;
  messages: unknown[];
}

async function references(): Promise<Reference[]> {
  const out: Reference[] = [];
  for (const agent of await readdir(REFERENCE_DIR)) {
    for (const name of await readdir(path.join(REFERENCE_DIR, agent))) out.push(JSON.parse(await readFile(path.join(REFERENCE_DIR, agent, name), 'utf8')) as Reference);
  }
  return out;
}

async function databaseMessages(file: string, sessionId: string, options: { fullParse?: boolean } = {}): Promise<unknown[]> {
  const db = await openOpenClawDatabase(file);
  try {
    const session = await readDatabaseSession(db, sessionId, options);
    return plain(await session.toArray()) as unknown[];
  } finally {
    db.close();
  }
}

describe(`OpenClaw's readSessionContext on the fixture databases (engine: ${sqliteEngine()})`, async () => {
  const recorded = await references();
  test('every session of both agents is recorded', () => assert.equal(recorded.length, 14));
  for (const reference of recorded) {
    for (const fullParse of [false, true]) {
      test(`${reference.key}${fullParse ? ' (every row parsed)' : ''}: the same messages`, async () => {
        assert.ok(reference.messages.length > 0);
        assert.deepEqual(await databaseMessages(databaseOf(reference.agent), reference.sessionId, { fullParse }), reference.messages);
      });
    }
  }
});

describe('the session list', () => {
  test("every window with its key, and the active path's message count as OpenClaw's index has it", async () => {
    const db = await openOpenClawDatabase(databaseOf('main'));
    try {
      const sessions = await listDatabaseSessions(db);
      assert.equal(sessions.length, 13);
      for (const info of sessions) {
        assert.equal(info.current, true);
        assert.equal(info.messagesFrom, 'index', 'the fixture index is current');
        const session = await readDatabaseSession(db, info.sessionId);
        assert.equal(session.activeMessages, info.messages, `${info.key}: counted here as in the index`);
        assert.equal(session.lastSeq, info.lastSeq);
        session.release();
      }
      const large = sessions.find((info) => info.sessionId === SESSIONS.large)!;
      assert.deepEqual([large.key, large.events, large.messages], ['agent:main:large', 601, 600]);
    } finally {
      db.close();
    }
  });

  test('an index marked for rebuild is not trusted: the count is read from the rows', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await copyDatabase(dir);
      const writer = openWritable(file);
      writer.run('UPDATE session_transcript_index_state SET needs_rebuild = 1, active_message_count = 0 WHERE session_id = ?', SESSIONS.branches);
      writer.close();
      const db = await openOpenClawDatabase(file);
      const branches = (await listDatabaseSessions(db)).find((info) => info.sessionId === SESSIONS.branches)!;
      db.close();
      assert.deepEqual([branches.messages, branches.messagesFrom], [6, 'read']);
    } finally {
      await cleanup();
    }
  });

  test('--session takes a key (its current session) or a session id', async () => {
    const db = await openOpenClawDatabase(databaseOf('main'));
    try {
      assert.deepEqual(resolveDatabaseSession(db, 'agent:main:branches'), { sessionId: SESSIONS.branches, key: 'agent:main:branches' });
      assert.deepEqual(resolveDatabaseSession(db, SESSIONS.large), { sessionId: SESSIONS.large, key: 'agent:main:large' });
      assert.throws(() => resolveDatabaseSession(db, 'agent:main:nope'), { code: 'session_not_found', message: /no session with key or id "agent:main:nope"/ });
    } finally {
      db.close();
    }
  });
});

const legacy = (agent: string, id: string): string => path.join(LEGACY_DIR, agent, `${id}.jsonl`);
const fromFile = async (agent: string, id: string): Promise<unknown[]> => plain(await (await readSessionMessages(legacy(agent, id))).toArray()) as unknown[];

describe('against the JSONL file the session was imported from', () => {
  for (const name of ['branches', 'compaction', 'images', 'large', 'ops'] as const) {
    test(`${name}: the importer changed nothing the messages show`, async () => {
      const agent = name === 'ops' ? 'ops' : 'main';
      assert.deepEqual(await databaseMessages(databaseOf(agent), SESSIONS[name]), await fromFile(agent, SESSIONS[name]));
    });
  }

  test('importer change 1: a string content of an assistant or tool result is stored as one text block; the file reader wraps it on load too, so the messages agree', async () => {
    const file = (await readFile(legacy('main', SESSIONS.tools), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { message?: { content?: unknown } });
    assert.equal(typeof file[7]!.message!.content, 'string', 'the file has a string tool-result content');
    assert.equal(typeof file[8]!.message!.content, 'string', 'and a string assistant content');
    const messages = await databaseMessages(databaseOf('main'), SESSIONS.tools);
    assert.deepEqual(messages, await fromFile('main', SESSIONS.tools));
    assert.deepEqual((messages[4] as { content: unknown }).content, [{ type: 'text', text: 'The README, as a plain string.' }]);
  });

  test('importer change 2: a v1 file is migrated (ids assigned, firstKeptEntryIndex made an id, hookMessage made custom); the file reader migrates it the same way in memory', async () => {
    const messages = await databaseMessages(databaseOf('main'), SESSIONS.v1);
    assert.deepEqual(messages, await fromFile('main', SESSIONS.v1));
    assert.deepEqual(
      messages.map((message) => (message as { role: string }).role),
      ['compactionSummary', 'user', 'assistant', 'custom', 'user'],
    );
  });

  test('importer change 3: provider openai-codex becomes openai, api openai-codex-responses becomes openai-chatgpt-responses; nothing else differs', async () => {
    const fromDb = (await databaseMessages(databaseOf('main'), SESSIONS.providers)) as Record<string, unknown>[];
    const fromJsonl = (await fromFile('main', SESSIONS.providers)) as Record<string, unknown>[];
    assert.equal(fromDb.length, fromJsonl.length);
    const changed = fromDb.flatMap((message, index) => (JSON.stringify(message) === JSON.stringify(fromJsonl[index]) ? [] : [index]));
    assert.deepEqual(changed, [7]);
    assert.deepEqual([fromJsonl[7]!.provider, fromJsonl[7]!.api], ['openai-codex', 'openai-codex-responses']);
    assert.deepEqual([fromDb[7]!.provider, fromDb[7]!.api], ['openai', 'openai-chatgpt-responses']);
    assert.deepEqual({ ...fromDb[7], provider: 'openai-codex', api: 'openai-codex-responses' }, fromJsonl[7]);
  });
});

describe('compressed rows', () => {
  test('the large session holds zstd rows, and they decode to the same messages as the file', async () => {
    const connection = openSqlite(databaseOf('main'), { immutable: true, busyTimeoutMs: 1000 });
    const row = connection.prepare('SELECT count(*) AS n FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL').get(SESSIONS.large);
    connection.close();
    assert.ok(Number(row!.n) > 100, 'OpenClaw compressed the large entries');
    assert.deepEqual(await databaseMessages(databaseOf('main'), SESSIONS.large), await fromFile('main', SESSIONS.large));
  });
});

describe("OpenClaw 2026.9's reader rules, which the database reader applies and the session file reader does not", () => {
  const texts = (messages: unknown[]): string[] =>
    messages.map((message) => {
      const m = message as { role: string; content?: unknown; summary?: string; command?: string };
      const content = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? (m.content as { text?: string; id?: string }[]).map((b) => b.text ?? b.id).join('|') : (m.summary ?? m.command);
      return `${m.role}: ${content}`;
    });

  for (const name of ['resetKept', 'resetPlain', 'resetThenCompaction', 'compactionThenReset', 'exclude', 'navigation'] as const) {
    test(`${name}: the 2026.7 file rules give another answer than OpenClaw's reader, so the differential test tells them apart`, async () => {
      const reference = (JSON.parse(await readFile(path.join(REFERENCE_DIR, 'main', `${SESSIONS[name]}.json`), 'utf8')) as Reference).messages;
      assert.notDeepEqual(await fromFile('main', SESSIONS[name]), reference);
      assert.deepEqual(await databaseMessages(databaseOf('main'), SESSIONS[name]), reference);
    });
  }

  test('a reset keeps, from its firstKeptEntryId, user and assistant turns and the results paired with their calls; no summary; the kept assistant loses its compaction checkpoint', async () => {
    const messages = await databaseMessages(databaseOf('main'), SESSIONS.resetKept);
    assert.deepEqual(texts(messages), [
      'user: First kept question.',
      'assistant: Two calls, one answered.|toolu_paired|toolu_late|toolu_unanswered',
      'toolResult: paired result',
      'assistant: toolu_next',
      'toolResult: uid=0',
      'toolResult: a result after the next call',
      'user: Kept although excluded from context.',
      'assistant: Last kept answer.',
      'user: After the reset.',
      'assistant: Fresh start, with the kept turns.',
    ]);
    assert.equal((messages[1] as Record<string, unknown>).providerReplay, undefined, 'kept from before the reset: checkpoint dropped');
    assert.equal(((messages[9] as Record<string, unknown>).providerReplay as { type: string }).type, 'anthropic-compaction', 'current: checkpoint kept');
  });

  test('a reset without firstKeptEntryId keeps nothing before it; parents before the reset or unknown are re-attached to the leaf', async () => {
    assert.deepEqual(texts(await databaseMessages(databaseOf('main'), SESSIONS.resetPlain)), [
      'user: After the reset.',
      'assistant: New session.',
      'user: Written with a parent from before the reset.',
      'assistant: Still after the reset.',
      'user: Written with a parent nobody knows.',
      'assistant: Last.',
    ]);
  });

  test('the latest boundary wins: a compaction after a reset, a reset after a compaction', async () => {
    assert.deepEqual(texts(await databaseMessages(databaseOf('main'), SESSIONS.resetThenCompaction)), [
      'compactionSummary: The reset and what followed.',
      'assistant: Kept by the compaction, its checkpoint dropped.',
      'user: Also kept.',
      'user: After the compaction.',
      'assistant: Current, checkpoint kept.',
    ]);
    assert.deepEqual(texts(await databaseMessages(databaseOf('main'), SESSIONS.compactionThenReset)), [
      'user: Kept by both.',
      'assistant: Kept answer.',
      'user: Between the compaction and the reset.',
      'assistant: Answer between.',
      'user: After the reset.',
      'assistant: Done.',
    ]);
  });

  test("after a reset a leaf control selecting an entry before it selects the current leaf; an entry naming the last side entry goes under the leaf", async () => {
    assert.deepEqual(texts(await databaseMessages(databaseOf('main'), SESSIONS.navigation)), [
      'user: After the reset.',
      'assistant: After.',
      'user: Appended where the leaf control pointed, before the reset.',
      'assistant: Still in the reset subtree.',
      'user: Parent is the last side entry: goes under the leaf.',
      'assistant: Done.',
    ]);
  });

  test('excludeFromContext: true drops a message of any role, in a compaction window and after it; an unknown parent in the middle is re-attached', async () => {
    const messages = await databaseMessages(databaseOf('main'), SESSIONS.exclude);
    assert.deepEqual(texts(messages), [
      'compactionSummary: The start.',
      'user: Start.',
      'assistant: Started.',
      'user: After the compaction.',
      'bashExecution: ls',
      'user: Not excluded: the flag is false.',
      'user: A parent nobody knows, in the middle.',
      'assistant: Answered.',
      'user: Last question.',
      'assistant: Last answer.',
    ]);
  });
});
