/**
 * JSONL text in, one JSON array out (`--format json`), streaming: each line is already one JSON
 * value with no raw newline inside (JSON strings escape them), so a newline between two lines
 * becomes `,\n` and the whole is wrapped in `[` and `]`.
 */
import { StringDecoder } from 'node:string_decoder';
import { Transform, type TransformCallback } from 'node:stream';

export function jsonlToJsonArray(): Transform {
  let started = false;
  /** The previous chunk ended a line whose separator is not written yet. */
  let pendingNewline = false;
  const decoder = new StringDecoder('utf8');
  return new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback) {
      let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (text.length === 0) return callback();
      let head = '';
      if (!started) {
        head = '[\n';
        started = true;
      } else if (pendingNewline) head = ',\n';
      pendingNewline = text.endsWith('\n');
      if (pendingNewline) text = text.slice(0, -1);
      callback(null, head + text.replaceAll('\n', ',\n'));
    },
    flush(callback: TransformCallback) {
      callback(null, started ? '\n]\n' : '[]\n');
    },
  });
}
