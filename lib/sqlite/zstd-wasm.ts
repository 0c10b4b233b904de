/**
 * zstd's own C decoder compiled to WebAssembly (@bokuweb/zstd-wasm 0.0.27), driven through its
 * module's exports rather than its `decompress()`: that one allocates an input and an output in
 * the module's memory and copies the output out on every call, so each row left a new buffer
 * behind, and a 20k-row session peaked 16 MB higher than with these two regions, kept and grown
 * as rows need, and the output handed back as a view of the module's memory.
 *
 * The package's `exports` map hides the module object, so it is required by the path beside its
 * main file; the version is pinned exactly, and test/lib/zstd.test.ts decodes OpenClaw's rows with it.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import path from 'node:path';

interface ZstdModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _ZSTD_decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
  _ZSTD_isError(code: number): number;
}

let module: ZstdModule | undefined;
let loading: Promise<boolean> | undefined;

/** Loads the module once; resolves to whether it is ready (false: it could not be loaded here). */
export function loadWasmDecoder(): Promise<boolean> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@bokuweb/zstd-wasm');
    const { init } = require(main) as { init: () => Promise<void> };
    const { Module } = require(path.join(path.dirname(main), 'module.js')) as { Module: ZstdModule };
    await init();
    module = Module;
    return true;
  })().catch(() => false);
  return loading;
}

export function wasmDecoderReady(): boolean {
  return module !== undefined;
}

/** A region of the module's memory, grown (doubled) when a row needs more. */
class Region {
  pointer = 0;
  capacity = 0;

  /** The region's address with room for `size` bytes, or 0 when the module's memory has no room. */
  reserve(zstd: ZstdModule, size: number): number {
    if (size <= this.capacity) return this.pointer;
    if (this.pointer !== 0) zstd._free(this.pointer);
    const capacity = Math.max(64 * 1024, size * 2);
    this.pointer = zstd._malloc(capacity);
    this.capacity = this.pointer === 0 ? 0 : capacity;
    return this.pointer;
  }
}

const input = new Region();
const output = new Region();

/** Why the module could not decode a frame (the caller words the error). */
export class WasmDecodeError extends Error {}

/**
 * Decodes one frame into at most `capacity` bytes; returns a view of the module's memory that
 * the next call overwrites (copy it to keep it). Throws WasmDecodeError when zstd refuses the
 * frame, or when the output would exceed `capacity`; undefined when the module's memory has no
 * room (the caller decodes elsewhere).
 */
export function wasmDecodeTransient(frame: Uint8Array, capacity: number): Buffer | undefined {
  const zstd = module;
  if (zstd === undefined) return undefined;
  const source = input.reserve(zstd, frame.length);
  const target = source === 0 ? 0 : output.reserve(zstd, capacity);
  if (source === 0 || target === 0) return undefined;
  // HEAPU8 is read after the allocations: growing the memory replaces it.
  zstd.HEAPU8.set(frame, source);
  const written = zstd._ZSTD_decompress(target, capacity, source, frame.length);
  if (zstd._ZSTD_isError(written) !== 0) throw new WasmDecodeError(`zstd error ${written >>> 0}`);
  return Buffer.from(zstd.HEAPU8.buffer, target, written);
}
