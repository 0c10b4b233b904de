/**
 * Watches the command's stdout. A write that fails (a full disk, /dev/full, a closed descriptor)
 * must not be lost silently nor crash with a stack trace: the command ends with one line and
 * exit 4. EPIPE is different: the reader stopped reading (`| head`), which Unix tools take as
 * a quiet success.
 */
import type { Writable } from 'node:stream';

export interface OutputGuard {
  /** The first write error, once one happened. */
  readonly error: (Error & { code?: string }) | undefined;
  /** Waits until what was written is accepted (or failed); then `error` is final. */
  settle(): Promise<void>;
  dispose(): void;
}

export function guardOutput(stream: Writable): OutputGuard {
  let error: (Error & { code?: string }) | undefined;
  const onError = (cause: Error): void => {
    error ??= cause;
  };
  stream.on('error', onError);
  return {
    get error() {
      return error ?? (stream.errored as (Error & { code?: string }) | null) ?? undefined;
    },
    async settle() {
      if (!stream.destroyed && !stream.writableEnded) {
        await new Promise<void>((resolve) => stream.write('', () => resolve()));
      }
      // An error is emitted on the next tick after the failed write.
      await new Promise((resolve) => setImmediate(resolve));
    },
    dispose() {
      // Keep a listener: a late error (an EPIPE after the end) must not crash the process.
      stream.off('error', onError);
      stream.on('error', () => undefined);
    },
  };
}

export function isBrokenPipe(error: { code?: string } | undefined): boolean {
  return error?.code === 'EPIPE' || error?.code === 'ERR_STREAM_DESTROYED';
}
