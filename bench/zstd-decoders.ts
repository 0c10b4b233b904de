/**
 * `npm run bench:zstd`: the zstd decoders of the database reader (lib/sqlite/zstd.ts) on the
 * compressed rows of an OpenClaw database, CPU time per row and per MB of output, each decoder
 * over the same rows in the same process, alternating rounds:
 *
 *   wasm    zstd's own decoder compiled to WebAssembly, output as a reused view (the reader's way)
 *   zlib    Node's zlib.zstdDecompressSync, row by row (Node 22.15 and later)
 *   batch   zlib over 64 concatenated frames a call (where this Node's zlib decodes them)
 *   fzstd   pure JavaScript
 *
 * Usage: node --import tsx bench/zstd-decoders.ts [DATABASE] [--rounds N]
 * (default: the fixture database's large session, its rows decoded again each round until about
 * 16,000 rows a decoder, the size of the 20k-message bench session's compressed rows)
 */
import { benchArgs } from './args.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '../lib/sqlite/driver.ts';
import { decodeZstd, decodeZstdBatch, loadZstdWasm, zstdBatchSupported, zstdEngine, type ZstdEngineName } from '../lib/sqlite/zstd.ts';

const { values, positionals } = benchArgs(import.meta.url, { allowPositionals: true, options: { rounds: { type: 'string' } } });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const database = positionals[0] ?? path.join(root, 'fixtures', 'openclaw-db', 'state', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');

const connection = openSqlite(database, { immutable: true, busyTimeoutMs: 1000 });
const rows = connection
  .prepare('SELECT event_zstd AS zstd, event_utf8_bytes AS declared FROM transcript_events WHERE event_zstd IS NOT NULL ORDER BY session_id, seq')
  .all()
  .map((row) => ({ zstd: row.zstd as Uint8Array, declared: Number(row.declared) }));
connection.close();
if (rows.length === 0) {
  process.stderr.write(`bench:zstd: ${database} has no compressed rows\n`);
  process.exit(1);
}
const builtin = zstdEngine();
await loadZstdWasm();
const repeat = Math.max(1, Math.round(16_000 / rows.length));
const rounds = Number(values.rounds ?? 3);
const outputBytes = rows.reduce((sum, row) => sum + row.declared, 0) * repeat;

type Decoder = 'wasm' | 'zlib' | 'batch' | 'fzstd';
const decoders: Decoder[] = ['wasm', ...(builtin === 'zlib' ? (['zlib'] as const) : []), ...(zstdBatchSupported() ? (['batch'] as const) : []), 'fzstd'];

function decodeAll(decoder: Decoder): number {
  let bytes = 0;
  for (let r = 0; r < repeat; r++) {
    if (decoder === 'batch') {
      for (let i = 0; i < rows.length; i += 64) {
        const slice = rows.slice(i, i + 64);
        const out = decodeZstdBatch(slice.map((row) => row.zstd), slice.map((row) => row.declared), { engine: 'zlib' });
        for (const part of out ?? slice.map((row) => decodeZstd(row.zstd, row.declared, { engine: 'zlib' }))) bytes += part.length;
      }
    } else {
      const engine: ZstdEngineName = decoder;
      for (const row of rows) bytes += decodeZstd(row.zstd, row.declared, { engine, transient: true }).length;
    }
  }
  return bytes;
}

const cpu: Record<string, number[]> = {};
for (let round = 0; round <= rounds; round++) {
  for (const decoder of decoders) {
    const started = process.cpuUsage();
    const bytes = decodeAll(decoder);
    const used = process.cpuUsage(started);
    if (bytes !== outputBytes) throw new Error(`${decoder} decoded ${bytes} bytes, expected ${outputBytes}`);
    // Round 0 warms every decoder up.
    if (round > 0) (cpu[decoder] ??= []).push((used.user + used.system) / 1000);
  }
}

const decodes = rows.length * repeat;
process.stdout.write(`bench:zstd on ${path.relative(process.cwd(), database) || database}: ${rows.length} compressed rows x ${repeat} = ${decodes} decodes, ${(outputBytes / 1e6).toFixed(1)} MB out, node ${process.version}, median of ${rounds} rounds\n`);
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[list.length >> 1]!;
const wasm = median(cpu.wasm!);
for (const decoder of decoders) {
  const ms = median(cpu[decoder]!);
  process.stdout.write(`  ${decoder.padEnd(6)} ${ms.toFixed(0).padStart(6)} ms CPU  ${((ms * 1000) / decodes).toFixed(1).padStart(6)} µs a row  ${(outputBytes / 1e6 / (ms / 1000)).toFixed(0).padStart(5)} MB/s  ${(ms / wasm).toFixed(2)}x wasm's time\n`);
}
