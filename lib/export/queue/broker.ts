/**
 * The broker: a Redis URL, checked and turned into connection options, and a first contact
 * that fails fast. ioredis (under BullMQ) retries a connection forever; a command that cannot
 * reach its broker must instead say so in one line and stop. So the first contact is made here,
 * on a plain socket speaking RESP (AUTH, SELECT, INFO server), with a timeout and no retries,
 * before ioredis and BullMQ are even loaded: the line comes in the time it takes to connect.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { HygieneError } from '../../errors.ts';

/** Connection options, in the shape ioredis takes them. */
export interface BrokerOptions {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: Record<string, never>;
}

export interface Broker {
  /** The URL without its password. */
  display: string;
  options: BrokerOptions;
}

/** Longest wait for the first contact: the command's one line comes well within 15 s. */
export const PROBE_TIMEOUT_MS = 5000;

const USAGE = 'redis://HOST:PORT[/DB] (or rediss:// for TLS; a password as redis://:PASSWORD@HOST:PORT)';

/** The URL without its password, for messages and the report. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** Parses `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`; throws invalid_option. */
export function parseBrokerUrl(url: string, flag = '--queue'): Broker {
  const bad = (why: string): HygieneError => new HygieneError('invalid_option', `${flag} ${JSON.stringify(url)}: ${why}; expected ${USAGE}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad('not a URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw bad(`unknown scheme ${parsed.protocol.replace(/:$/, '')}`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw bad('no host');
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const dbText = parsed.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^[0-9]+$/.test(dbText)) throw bad(`the database must be a number, got ${JSON.stringify(dbText)}`);
  if (parsed.search !== '' || parsed.hash !== '') throw bad('no query or fragment is understood');
  const options: BrokerOptions = {
    host,
    port,
    db: dbText === '' ? 0 : Number(dbText),
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  return { display: redactUrl(url), options };
}

function command(...args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/** Reads RESP replies off a socket, one at a time (simple strings, errors, bulk strings: what the probe sends for). */
class Replies {
  private buffer = Buffer.alloc(0);
  private waiting: ((reply: { error?: string; value?: string }) => void) | undefined;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.deliver();
    });
  }

  next(): Promise<{ error?: string; value?: string }> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  private deliver(): void {
    if (this.waiting === undefined) return;
    const end = this.buffer.indexOf('\r\n');
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString();
    let reply: { error?: string; value?: string };
    let used = end + 2;
    if (head.startsWith('$')) {
      const length = Number(head.slice(1));
      if (length < 0) reply = { value: '' };
      else {
        if (this.buffer.length < used + length + 2) return;
        reply = { value: this.buffer.subarray(used, used + length).toString() };
        used += length + 2;
      }
    } else if (head.startsWith('-')) reply = { error: head.slice(1) };
    else reply = { value: head.slice(1) };
    this.buffer = this.buffer.subarray(used);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(reply);
  }
}

/**
 * Connects once, without retries, and returns the server's version; throws broker_unreachable
 * with one line naming the broker and why (refused, timed out, no such host, wrong password).
 */
export async function probeBroker(broker: Broker, timeoutMs = PROBE_TIMEOUT_MS): Promise<string> {
  const { host, port, db, username, password, tls } = broker.options;
  const unreachable = (why: string, cause?: unknown): HygieneError => new HygieneError('broker_unreachable', `cannot reach the queue broker ${broker.display} (${why})`, { cause });
  const socket = tls === undefined ? connectTcp({ host, port }) : connectTls({ host, port, servername: host });
  socket.setNoDelay(true);
  const replies = new Replies(socket);
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unreachable(`no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' ? `no such host ${host}` : error.message;
      reject(unreachable(why, error));
    });
    socket.once('close', () => reject(unreachable('the connection was closed')));
  });
  failed.catch(() => undefined);
  const ask = async (...args: string[]): Promise<string> => {
    socket.write(command(...args));
    const reply = await Promise.race([replies.next(), failed]);
    if (reply.error !== undefined) throw unreachable(reply.error);
    return reply.value ?? '';
  };
  try {
    await Promise.race([new Promise<void>((resolve) => socket.once(tls === undefined ? 'connect' : 'secureConnect', () => resolve())), failed]);
    if (password !== undefined) await (username === undefined ? ask('AUTH', password) : ask('AUTH', username, password));
    if (db !== 0) await ask('SELECT', String(db));
    const info = await ask('INFO', 'server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const major = Number(version.split('.')[0]);
    if (Number.isFinite(major) && major < 5) {
      throw new HygieneError('broker_unreachable', `the queue broker ${broker.display} runs Redis ${version}; BullMQ needs 5.0 or later (6.2 recommended)`);
    }
    return version;
  } finally {
    clearTimeout(timer);
    socket.removeAllListeners('close');
    socket.on('error', () => {});
    socket.destroy();
  }
}
