#!/usr/bin/env node
/**
 * Writes a session file into an OpenClaw agent database for `npm run bench`'s database input:
 * a copy of a fixture database made by OpenClaw's doctor import (fixtures/openclaw-db, so the
 * schema is OpenClaw's own), with the session added as one window and one row per line, stored
 * as OpenClaw stores rows: an entry of 1 KiB or more zstd-compressed (level 1, checksum, content
 * size) when that saves at least 10%. Compressed rows get a minimal valid `navigation_json`
 * (OpenClaw's is a projection this reader does not use): these rows are the bench's, not
 * OpenClaw's.
 *
 * Needs zlib's zstd (Node 22.15 or later); bench.ts runs it under runtimes/' Node 24.
 *
 *   node write-session-database.mjs SESSION.jsonl TEMPLATE.sqlite OUT.sqlite SESSION_ID
 */
import { copyFileSync, createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import zlib from 'node:zlib';

const [input, template, output, sessionId] = process.argv.slice(2);
copyFileSync(template, output);
const db = new DatabaseSync(output);
const key = `bench:${sessionId}`;
const now = Date.UTC(2026, 6, 1);
db.exec('BEGIN');
db.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)').run(key, sessionId, JSON.stringify({ sessionId, updatedAt: now }), now);
db.prepare('INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)').run(sessionId, key, now, now);
const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
const navigation = JSON.stringify({ version: 1, report: { kind: 'ignored' }, navigation: {}, reset: {}, model: {}, modelBytes: 0, modelWithoutCheckpointBytes: 0, withoutCustomDataBytes: 0 });
let seq = 0;
let compressed = 0;
// Line by line: a 100k-message session is past the longest string V8 makes.
for await (const line of createInterface({ input: createReadStream(input, { encoding: 'utf8' }), crlfDelay: Infinity })) {
  if (line === '') continue;
  const bytes = Buffer.from(line, 'utf8');
  let stored = false;
  if (bytes.length >= 1024 && seq > 0 && !line.includes('\\u')) {
    const zstd = zlib.zstdCompressSync(bytes, { params: { [zlib.constants.ZSTD_c_compressionLevel]: 1, [zlib.constants.ZSTD_c_checksumFlag]: 1 } });
    if (zstd.length + navigation.length <= bytes.length - Math.max(64, Math.ceil(bytes.length / 10))) {
      insert.run(sessionId, seq, null, zstd, bytes.length, navigation, now + seq);
      compressed++;
      stored = true;
    }
  }
  if (!stored) insert.run(sessionId, seq, line, null, bytes.length, null, now + seq);
  seq++;
}
db.exec('COMMIT');
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
db.exec('PRAGMA journal_mode = DELETE');
db.exec('PRAGMA journal_mode = WAL');
db.close();
process.stdout.write(JSON.stringify({ rows: seq, compressed }) + '\n');
