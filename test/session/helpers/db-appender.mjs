/**
 * A writer for the live-database test, in its own process as OpenClaw's would be: it opens the
 * database read-write in WAL mode with no busy timeout (a lock held by the reader would fail its
 * insert at once) and, each time it reads `append N` on stdin, appends N message entries to the
 * session's chain in N transactions, then answers one JSON line {appended, failures, lastSeq}.
 * `check` answers {integrity} (PRAGMA integrity_check); stdin's end closes it.
 *
 *   node db-appender.mjs DB SESSION_ID LEAF_ID
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const [file, sessionId, leafId] = process.argv.slice(2);
const sqlite = process.getBuiltinModule?.('node:sqlite');
const db = sqlite ? new sqlite.DatabaseSync(file, { timeout: 0 }) : new (createRequire(import.meta.url)('better-sqlite3'))(file, { timeout: 0 });
db.exec('PRAGMA journal_mode = WAL');
const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)');
const last = db.prepare('SELECT max(seq) AS seq FROM transcript_events WHERE session_id = ?');
let parent = leafId;
let n = 0;
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.split(' ');
  if (command === 'check') {
    process.stdout.write(JSON.stringify({ integrity: db.prepare('PRAGMA integrity_check').get().integrity_check }) + '\n');
    continue;
  }
  let appended = 0;
  const failures = [];
  for (let i = 0; i < Number(count); i++) {
    const id = `w${(++n).toString().padStart(6, '0')}`;
    const at = Date.UTC(2026, 6, 1) + n * 1000;
    const event = JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(at).toISOString(), message: { role: 'user', content: `appended ${n}`, timestamp: at } });
    try {
      db.exec('BEGIN IMMEDIATE');
      const seq = Number(last.get(sessionId).seq) + 1;
      insert.run(sessionId, seq, event, at, Buffer.byteLength(event));
      db.exec('COMMIT');
      parent = id;
      appended++;
    } catch (error) {
      failures.push(error.message);
      try {
        db.exec('ROLLBACK');
      } catch {
        // Nothing to roll back.
      }
    }
  }
  process.stdout.write(JSON.stringify({ appended, failures, lastSeq: Number(last.get(sessionId).seq) }) + '\n');
}
db.close();
