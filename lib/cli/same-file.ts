/**
 * Whether a command's output is its own input: the same device and inode, whatever path, link
 * or redirection leads to it. Writing a replay copy over the session it came from destroys the
 * session (header, entries and branches become bare messages), so the commands refuse.
 */
import { fstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';

interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

async function identityOfPath(file: string): Promise<FileIdentity | undefined> {
  try {
    const found = await stat(file);
    return found.isFile() ? { dev: found.dev, ino: found.ino } : undefined;
  } catch {
    // Not there (yet), or not ours to look at: it cannot be the input we are reading.
    return undefined;
  }
}

/** The regular file behind this process's descriptor, when the stream is that descriptor. */
function identityOfStream(stream: Readable | Writable, standard: NodeJS.ReadStream | NodeJS.WriteStream, fd: number): FileIdentity | undefined {
  if (stream !== standard) return undefined;
  try {
    const found = fstatSync(fd);
    return found.isFile() ? { dev: found.dev, ino: found.ino } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The input's path (or '<stdin>') when the output would be written over it, else undefined.
 * The input is `file` or stdin; the output is `target` (-o) or stdout.
 */
export async function outputOverInput(input: { file: string | undefined; stdin: Readable }, output: { target: string | undefined; stdout: Writable }): Promise<string | undefined> {
  const source = input.file === undefined ? identityOfStream(input.stdin, process.stdin, 0) : await identityOfPath(input.file);
  if (source === undefined) return undefined;
  const sink = output.target === undefined ? identityOfStream(output.stdout, process.stdout, 1) : await identityOfPath(output.target);
  if (sink === undefined || sink.dev !== source.dev || sink.ino !== source.ino) return undefined;
  return input.file ?? output.target ?? '<stdin>';
}
