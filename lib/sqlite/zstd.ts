/**
 * Decodes one zstd frame whose decoded size is declared beside it (OpenClaw's
 * `event_utf8_bytes`), checking the size before any byte is decoded: the declared size must be
 * within OpenClaw's bounds (1 byte to 4 MiB) and equal the frame's own content size when the
 * frame header gives one; the output is then capped at the declared size and must fill it.
 *
 * The decoder is zstd's own C library compiled to WebAssembly (@bokuweb/zstd-wasm) once
 * `loadZstdWasm()` has loaded it: on a bench session's 16k rows (`npm run bench:zstd`) it took
 * 3.7-4.2x less CPU than fzstd (pure JavaScript), 2.6x less than Node's zlib.zstdDecompressSync
 * row by row (whose per-call set-up costs as much as a small row) and 1.5x less than zlib's batch. Until it is loaded (or if it cannot be), Node's
 * zlib.zstdDecompressSync where it exists (Node 22.15 and later), else fzstd.
 */
import { Buffer } from 'node:buffer';
import zlib from 'node:zlib';
import { decompress as fzstdDecompress } from 'fzstd';
import { loadWasmDecoder, wasmDecodeTransient, wasmDecoderReady } from './zstd-wasm.ts';

/** OpenClaw's bound on a compressed transcript event, both sides (transcript-payload MAX_COMPRESSED_EVENT_BYTES). */
export const MAX_ZSTD_EVENT_BYTES = 4 * 1024 * 1024;

const ZSTD_MAGIC = 0xfd2fb528;

/** Why a frame was refused; the message says it in a few words. */
export class ZstdSizeError extends Error {}

export type ZstdEngineName = 'wasm' | 'zlib' | 'fzstd';

type BuiltinDecompress = (data: Uint8Array, options: { maxOutputLength: number; chunkSize: number }) => Buffer;
const builtin = (zlib as unknown as { zstdDecompressSync?: BuiltinDecompress }).zstdDecompressSync;

/** A raw zstd frame of 2 bytes ("{}"): magic, no content size, a 1 KiB window, one raw last block. */
const PROBE_FRAME = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, (2 << 3) | 1, 0, 0, 0x7b, 0x7d]);
let batchSupported: boolean | undefined;

/**
 * Whether this Node's zlib decodes concatenated frames in one call. Node 24's does; Node 22's
 * stops after the first frame (22.23.5), so there every row is decoded on its own.
 */
export function zstdBatchSupported(): boolean {
  if (batchSupported === undefined) {
    try {
      batchSupported = builtin !== undefined && builtin(Buffer.concat([PROBE_FRAME, PROBE_FRAME]), { maxOutputLength: 4, chunkSize: 64 }).toString('latin1') === '{}{}';
    } catch {
      batchSupported = false;
    }
  }
  return batchSupported;
}

/**
 * Loads the WebAssembly decoder (once; later calls share the first). Resolves to whether it is
 * ready: a failure leaves the built-in or fzstd in use, never an error.
 */
export function loadZstdWasm(): Promise<boolean> {
  return loadWasmDecoder();
}

/** Which decoder this Node uses now. */
export function zstdEngine(): ZstdEngineName {
  if (wasmDecoderReady()) return 'wasm';
  return builtin === undefined ? 'fzstd' : 'zlib';
}

/** The frame's declared content size from its header, or undefined when the header gives none. */
export function frameContentSize(frame: Uint8Array): number | undefined {
  if (frame.length < 6 || (frame[0]! | (frame[1]! << 8) | (frame[2]! << 16) | (frame[3]! << 24)) >>> 0 !== ZSTD_MAGIC) {
    throw new ZstdSizeError('not a zstd frame');
  }
  const descriptor = frame[4]!;
  // zstd refuses a header with the reserved bit set; the WebAssembly decoder would size its output from that refusal.
  if ((descriptor & 0x08) !== 0) throw new ZstdSizeError('zstd frame header has its reserved bit set');
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3]!;
  const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  if (sizeBytes === 0) return undefined;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  if (frame.length < at + sizeBytes) throw new ZstdSizeError('truncated zstd frame header');
  let size = 0;
  for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + frame[at + i]!;
  return sizeFlag === 1 ? size + 256 : size;
}

export interface DecodeOptions {
  /** Force a decoder (tests run each); default: zstdEngine(). */
  engine?: ZstdEngineName;
  /**
   * The bytes may be a view that the next decode overwrites (the WebAssembly decoder's memory):
   * for a caller that copies or drops them before decoding again. Saves a copy and its garbage.
   */
  transient?: boolean;
}

/**
 * zlib's output chunk: the whole known output. With its default of 16 KiB it decodes into chunks
 * and joins them, which took 80% of the time of a 1 MiB batch.
 */
function outputChunk(size: number): number {
  return Math.max(64, size);
}

/** The declared size is one OpenClaw can write: a whole number of bytes, 1 byte to 4 MiB. */
function assertDeclaredSize(declared: unknown): asserts declared is number {
  if (typeof declared !== 'number' || !Number.isSafeInteger(declared) || declared < 1 || declared > MAX_ZSTD_EVENT_BYTES) {
    throw new ZstdSizeError(`declared size ${String(declared)} is outside 1..${MAX_ZSTD_EVENT_BYTES}`);
  }
}

/** Checks the frame against its declared size before decoding; returns the header's content size. */
function checkFrame(frame: Uint8Array, declared: number): number | undefined {
  if (frame.length < 1 || frame.length > MAX_ZSTD_EVENT_BYTES) throw new ZstdSizeError(`compressed size ${frame.length} is outside 1..${MAX_ZSTD_EVENT_BYTES}`);
  const content = frameContentSize(frame);
  if (content !== undefined && content !== declared) throw new ZstdSizeError(`the frame says ${content} bytes, the row ${declared}`);
  return content;
}

/**
 * Several frames at once, each decoded to exactly its declared size; undefined when they cannot
 * go as one batch (another engine than zlib, a frame without a content size, or any error), so that
 * the caller decodes them one by one and an error names its row.
 *
 * zlib makes a decoder per call, which cost about as much as decoding a 2 KiB row; one call over
 * the concatenated frames decodes each in turn, and zstd checks every frame against the content
 * size its header states, which was checked against the declared size first.
 */
export function decodeZstdBatch(frames: readonly Uint8Array[], declared: readonly unknown[], options: DecodeOptions = {}): Buffer[] | undefined {
  // Only zlib's set-up is worth sharing: the WebAssembly decoder and fzstd go row by row.
  if ((options.engine ?? zstdEngine()) !== 'zlib' || builtin === undefined || !zstdBatchSupported() || frames.length < 2) return undefined;
  let total = 0;
  try {
    for (let i = 0; i < frames.length; i++) {
      const size = declared[i];
      assertDeclaredSize(size);
      if (checkFrame(frames[i]!, size) === undefined) return undefined;
      total += size;
    }
    const out = builtin(Buffer.concat(frames), { maxOutputLength: total, chunkSize: outputChunk(total) });
    if (out.length !== total) return undefined;
    const parts: Buffer[] = [];
    let at = 0;
    for (const size of declared as number[]) {
      parts.push(out.subarray(at, at + size));
      at += size;
    }
    return parts;
  } catch {
    return undefined;
  }
}

/** The decoded bytes of `frame`, exactly `declared` of them, or a ZstdSizeError. */
export function decodeZstd(frame: Uint8Array, declared: unknown, options: DecodeOptions = {}): Buffer {
  assertDeclaredSize(declared);
  const content = checkFrame(frame, declared);
  const engine = options.engine ?? zstdEngine();
  let out: Uint8Array;
  try {
    // Its output is capped at the declared size (which the header's, when given, was checked
    // equal to above): a frame that decodes to more fails in zstd, not after.
    const view = engine === 'wasm' ? wasmDecodeTransient(frame, declared) : undefined;
    if (view !== undefined) {
      out = options.transient === true ? view : Buffer.from(view);
    } else if (engine !== 'fzstd' && builtin !== undefined) {
      out = builtin(frame, { maxOutputLength: declared, chunkSize: outputChunk(declared) });
    } else if (content !== undefined) {
      // The header's size was checked against the declared one above, and fzstd allocates exactly
      // that. (Handing it an output buffer costs more than the decoding: fzstd compares that buffer
      // with a number, which turns every byte of it into text, once per frame.)
      out = fzstdDecompress(frame);
    } else {
      // No size in the header: decode into a buffer of the declared size; more output throws.
      const target = new Uint8Array(declared);
      out = fzstdDecompress(frame, target);
      /* c8 ignore next -- fzstd returns the given buffer whenever it decoded into it */
      if (out !== target && out.length !== declared) throw new ZstdSizeError(`decoded to ${out.length} bytes, declared ${declared}`);
    }
  } catch (error) {
    if (error instanceof ZstdSizeError) throw error;
    throw new ZstdSizeError(`does not decode to ${declared} bytes (${(error as Error).message})`);
  }
  if (out.length !== declared) throw new ZstdSizeError(`decoded to ${out.length} bytes, declared ${declared}`);
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
