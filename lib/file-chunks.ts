/**
 * A file's bytes in chunks read into one reused buffer.
 *
 * Why not createReadStream: every chunk of a stream is a fresh allocation, and on these
 * machines the page faults of fresh multi-KB buffers cost more than the reads themselves
 * (1.6 GB: 2.6 s with 4 MiB stream chunks, 1.0 s with 256 KiB, 0.19 s into one reused buffer).
 *
 * The contract that buys this: a chunk is valid only until the next one is asked for (two
 * buffers take turns, the next read runs while the caller works on the current chunk). A
 * consumer must take what it needs (decode its lines, copy a cut-off tail) before it pulls
 * again, as LineSplitter does; anything that holds chunks (a peek, a tokenizer) must read a
 * stream instead.
 */
import { open } from 'node:fs/promises';
import { Buffer } from 'node:buffer';

export const FILE_CHUNK_BYTES = 1 << 20;

export async function* readFileChunks(path: string, chunkBytes = FILE_CHUNK_BYTES): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  // Two buffers: the next chunk is read while the caller works on this one, so the caller never
  // waits for the disk when the file is in the page cache.
  const buffers = [Buffer.allocUnsafeSlow(chunkBytes), Buffer.allocUnsafeSlow(chunkBytes)] as const;
  const readInto = (buffer: Buffer): Promise<Buffer> => handle.read(buffer, 0, chunkBytes, null).then(({ bytesRead }) => buffer.subarray(0, bytesRead));
  let next: Promise<Buffer> | undefined;
  try {
    next = readInto(buffers[0]);
    for (let turn = 1; ; turn ^= 1) {
      const chunk = await next;
      next = undefined;
      if (chunk.length === 0) return;
      // The other buffer held the chunk before this one, which the caller is done with.
      next = readInto(buffers[turn]!);
      yield chunk;
    }
  } finally {
    // A read still in flight must end before its handle closes.
    if (next !== undefined) await next.catch(() => undefined);
    await handle.close();
  }
}
