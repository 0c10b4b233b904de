/**
 * The checks of an input path before any work, each failure with its own HygieneError code
 * (and so its own exit code): no such file, a directory, unreadable, empty.
 */
import { access, constants, open, stat } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import { HygieneError } from '../errors.ts';
import type { HygieneStats } from '../stats.ts';

export interface InputCheckOptions {
  /** An empty file is an error (`input_empty`). */
  rejectEmpty?: boolean;
}

export async function checkInputFile(file: string, options: InputCheckOptions = {}): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new HygieneError('input_not_found', `${file}: no such file`, { source: file });
    if (code === 'ENOTDIR') throw new HygieneError('input_not_found', `${file}: ${(error as Error).message}`, { source: file });
    throw new HygieneError('input_unreadable', `${file}: ${(error as Error).message}`, { source: file });
  }
  if (info.isDirectory()) throw new HygieneError('input_is_directory', `${file}: is a directory (give a session file)`, { source: file });
  try {
    await access(file, constants.R_OK);
  } catch {
    throw new HygieneError('input_unreadable', `${file}: permission denied`, { source: file });
  }
  // Open it (without blocking on a FIFO): a socket or a device that cannot be read fails here.
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    await handle.close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HygieneError('input_unreadable', `${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message}`, { source: file });
  }
  if (options.rejectEmpty && info.isFile() && info.size === 0) throw new HygieneError('input_empty', `${file}: empty file`, { source: file });
}

/** Whether a path is a regular file (a session file can be read twice); false for pipes and devices. */
export async function isRegularFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Inputs in which no line is a message

const HEAD_BYTES = 64 * 1024;

/**
 * How many messages with a role went into the pipeline (its first rules drop non-objects and
 * role-less objects). Foreign roles dropped before it count as messages: the input had some.
 */
export function messagesWithRole(stats: HygieneStats): number {
  const dropped = (rule: string): number => stats.rules[rule]?.dropped ?? 0;
  const foreign = Object.values(stats.droppedForeignRoles ?? {}).reduce((sum, count) => sum + count, 0);
  return stats.messagesIn - dropped('drop-non-object-messages') - dropped('drop-role-less-messages') + foreign;
}

/** The first 64 KiB of a file, as text. */
export async function fileHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Passes a stream on unchanged and keeps its first 64 KiB, for describeMessageless. */
export function recordHead(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): { input: AsyncGenerator<Buffer | string>; head: () => string } {
  const kept: Buffer[] = [];
  let size = 0;
  async function* pass(): AsyncGenerator<Buffer | string> {
    for await (const chunk of input) {
      if (size < HEAD_BYTES) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        kept.push(bytes.subarray(0, HEAD_BYTES - size));
        size += Math.min(bytes.length, HEAD_BYTES - size);
      }
      yield chunk;
    }
  }
  return { input: pass(), head: () => Buffer.concat(kept).toString('utf8') };
}

function isClaudeCodeEntry(value: Record<string, unknown>): boolean {
  return (value.type === 'user' || value.type === 'assistant' || value.type === 'summary') && ('uuid' in value || 'sessionId' in value || 'leafUuid' in value);
}

/**
 * The error for an input that gave no message, saying what it holds (from its first bytes):
 * nothing but blank lines (input_empty), or something that is not a transcript of ours
 * (invalid_session): Claude Code's JSONL, a session with only its header, entries or objects
 * without a role.
 */
export function describeMessageless(source: string, head: string): HygieneError {
  const body = head.replace(/^\uFEFF/, '');
  const details = { source };
  if (body.trim() === '') return new HygieneError('input_empty', `${source}: ${body === '' ? 'empty input' : 'empty input (only blank lines)'}`, details);
  const bad = (what: string): HygieneError => new HygieneError('invalid_session', `${source}: ${what}`, details);
  const first = body.trimStart();
  if (first.startsWith('[')) return bad('a JSON array with no message (no element is an object with a "role")');
  const values: Array<Record<string, unknown>> = [];
  for (const line of body.split('\n').slice(0, 200)) {
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) values.push(value as Record<string, unknown>);
    } catch {
      // a torn or partial line
    }
  }
  if (values.some(isClaudeCodeEntry)) {
    return bad(`Claude Code's JSONL (entries of type "user"/"assistant" around a "message"), which is not supported: give an OpenClaw/pi session file, one message a line, or a JSON array of messages`);
  }
  if (values[0]?.type === 'session') {
    const others = values.length - 1;
    return bad(`a session with no message (its header${others > 0 ? ` and ${others} other entr${others === 1 ? 'y' : 'ies'}` : ' only'})`);
  }
  const types = [...new Set(values.map((value) => value.type).filter((type): type is string => typeof type === 'string'))];
  if (types.length > 0) return bad(`no message: entries of type ${types.slice(0, 5).map((type) => JSON.stringify(type)).join(', ')} (a message has a "role")`);
  const keys = [...new Set(values.flatMap((value) => Object.keys(value)))];
  if (keys.length > 0) return bad(`no message: objects with keys ${keys.slice(0, 6).join(', ')} and no "role"`);
  return bad('no message (a message is a JSON object with a "role")');
}
