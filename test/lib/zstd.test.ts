/**
 * The zstd decoder of compressed transcript rows: the declared size is checked against the
 * bounds and the frame's own header before any byte is decoded, and every decoder (zstd's own
 * compiled to WebAssembly, zlib's where this Node has it, fzstd) gives the same bytes on
 * OpenClaw's real rows.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqlite } from '../../lib/sqlite/driver.ts';
import { decodeZstd, decodeZstdBatch, frameContentSize, loadZstdWasm, MAX_ZSTD_EVENT_BYTES, zstdBatchSupported, zstdEngine, ZstdSizeError, type ZstdEngineName } from '../../lib/sqlite/zstd.ts';
import { SESSIONS, databaseOf } from '../session/helpers/openclaw-db.ts';

interface Row {
  zstd: Uint8Array;
  declared: number;
}

function compressedRows(limit: number): Row[] {
  const connection = openSqlite(databaseOf('main'), { immutable: true, busyTimeoutMs: 1000 });
  try {
    return connection
      .prepare('SELECT event_zstd AS zstd, event_utf8_bytes AS declared FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL ORDER BY seq LIMIT ?')
      .all(SESSIONS.large, limit)
      .map((row) => ({ zstd: row.zstd as Uint8Array, declared: Number(row.declared) }));
  } finally {
    connection.close();
  }
}

const builtinEngine = zstdEngine();
const wasmLoaded = await loadZstdWasm();
const engines: ZstdEngineName[] = ['wasm', ...(builtinEngine === 'zlib' ? (['zlib'] as const) : []), 'fzstd'];

describe(`decodeZstd (this Node: ${zstdEngine()})`, () => {
  const rows = compressedRows(20);

  test('the WebAssembly decoder loads, and is then the one in use, on every supported Node', () => {
    assert.equal(wasmLoaded, true);
    assert.equal(zstdEngine(), 'wasm');
  });

  test("OpenClaw's frames declare their content size, equal to event_utf8_bytes", () => {
    assert.equal(rows.length, 20);
    for (const row of rows) assert.equal(frameContentSize(row.zstd), row.declared);
  });

  for (const engine of engines) {
    test(`${engine}: every row decodes to its declared size, as JSON`, () => {
      for (const row of rows) {
        const bytes = decodeZstd(row.zstd, row.declared, { engine });
        assert.equal(bytes.length, row.declared);
        assert.equal((JSON.parse(bytes.toString('utf8')) as { type: string }).type, 'message');
      }
    });

    test(`${engine}: decoding turns no buffer into text`, () => {
      // fzstd compares an output buffer it is handed with a number, which joins every byte of
      // it into a string: that cost more than the decoding itself (8 s of 10 on a 10k-row session).
      const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as { toString: () => string };
      const original = typedArrayProto.toString;
      let joined = 0;
      typedArrayProto.toString = function (this: Uint8Array) {
        joined += this.length;
        return original.call(this);
      };
      try {
        for (const row of rows) decodeZstd(row.zstd, row.declared, { engine });
      } finally {
        typedArrayProto.toString = original;
      }
      assert.equal(joined, 0);
    });

    test(`${engine}: a frame whose header gives no size decodes to the declared size, and no further`, () => {
      // Magic, a descriptor with no content size, a 1 KiB window, then one raw last block.
      const content = Buffer.from('{"type":"message"}');
      const frame = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00]), Buffer.from([(content.length << 3) | 1, 0, 0]), content]);
      assert.equal(frameContentSize(frame), undefined);
      assert.deepEqual(decodeZstd(frame, content.length, { engine }), content);
      assert.throws(() => decodeZstd(frame, content.length - 1, { engine }), ZstdSizeError);
    });

    test(`${engine}: a declared size other than the frame's is refused before decoding`, () => {
      const row = rows[0]!;
      assert.throws(() => decodeZstd(row.zstd, row.declared + 1, { engine }), (error: Error) => error instanceof ZstdSizeError && /the frame says \d+ bytes, the row \d+/.test(error.message));
    });

    test(`${engine}: a truncated frame does not decode to its declared size`, () => {
      const row = rows[0]!;
      assert.throws(() => decodeZstd(row.zstd.subarray(0, row.zstd.length >> 1), row.declared, { engine }), ZstdSizeError);
    });

    test(`${engine}: a frame header with its reserved bit set is refused before decoding`, () => {
      const row = rows[0]!;
      const frame = Buffer.from(row.zstd);
      frame[4] = frame[4]! | 0x08;
      assert.throws(() => decodeZstd(frame, row.declared, { engine }), { message: 'zstd frame header has its reserved bit set' });
    });

    test(`${engine}: a frame that decodes to more than its declared size fails, and the next frame still decodes`, () => {
      // No size in the header, so only the decoder can find that the output runs over.
      const content = Buffer.from('{"type":"message","id":"x"}');
      const frame = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00]), Buffer.from([(content.length << 3) | 1, 0, 0]), content]);
      assert.throws(() => decodeZstd(frame, 10, { engine }), ZstdSizeError);
      const row = rows[1]!;
      assert.equal(decodeZstd(row.zstd, row.declared, { engine }).length, row.declared);
    });
  }

  test('a batch decodes each frame to what it decodes to alone; where it cannot, it says so and the rows go one by one', () => {
    const frames = rows.map((row) => row.zstd);
    const declared = rows.map((row) => row.declared);
    // Only zlib decodes a batch: the other engines go row by row.
    assert.equal(decodeZstdBatch(frames, declared, { engine: 'wasm' }), undefined);
    assert.equal(decodeZstdBatch(frames, declared, { engine: 'fzstd' }), undefined);
    const batch = decodeZstdBatch(frames, declared, { engine: 'zlib' });
    if (!zstdBatchSupported()) {
      // No built-in decoder (Node 20), or one that stops after the first frame (Node 22): row by row.
      assert.equal(batch, undefined);
      assert.equal(builtinEngine === 'zlib' && Number(process.versions.node.split('.')[0]) >= 24, false, 'Node 24 decodes concatenated frames');
      return;
    }
    assert.ok(batch !== undefined);
    assert.deepEqual(batch, rows.map((row) => decodeZstd(row.zstd, row.declared)));
    // One declared size off by one, or one frame cut short: the batch is refused as a whole.
    assert.equal(decodeZstdBatch(frames, declared.map((size, i) => (i === 3 ? size + 1 : size)), { engine: 'zlib' }), undefined);
    assert.equal(decodeZstdBatch(frames.map((frame, i) => (i === 3 ? frame.subarray(0, frame.length >> 1) : frame)), declared, { engine: 'zlib' }), undefined);
    assert.equal(decodeZstdBatch(frames, declared.map((size, i) => (i === 3 ? '10' : size)), { engine: 'zlib' }), undefined);
  });

  test('declared sizes outside 1 byte to 4 MiB, and bytes that are not zstd, are refused', () => {
    const row = rows[0]!;
    for (const declared of [0, -1, 1.5, MAX_ZSTD_EVENT_BYTES + 1, '10', null]) {
      assert.throws(() => decodeZstd(row.zstd, declared), (error: Error) => error instanceof ZstdSizeError && /outside 1\.\.4194304/.test(error.message));
    }
    assert.throws(() => decodeZstd(Buffer.from('{"type":"message"}'), 18), { message: 'not a zstd frame' });
    assert.throws(() => decodeZstd(new Uint8Array(0), 18), /compressed size 0/);
  });
});
