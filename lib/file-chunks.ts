/**
 * A file's bytes in chunks read into one reused buffer.
 *
 * Why not createReadStream: every chunk of a stream is a fresh allocation, and on these
 * machines the page faults of fresh multi-KB buffers cost more than the reads themselves
 * (1.6 GB: 2.6 s with 4 MiB stream chunks, 1.0 s with 256 KiB, 0.19 s into one reused buffer).
 *
 * The contract that buys this: a chunk is valid only until the next one is asked for. A
 * consumer must take what it needs (decode its lines, copy a cut-off tail) before it pulls
 * again, as LineSplitter does; anything that holds chunks (a peek, a tokenizer) must read a
 * stream instead.
 */
import { open } from 'node:fs/promises';
import { Buffer } from 'node:buffer';

export const FILE_CHUNK_BYTES = 1 << 20;

export async function* readFileChunks(path: string, chunkBytes = FILE_CHUNK_BYTES): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(chunkBytes);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
