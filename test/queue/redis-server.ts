/**
 * A real Redis for the queue tests: Debian's redis-server on a free port of 127.0.0.1, with no
 * persistence (no RDB snapshot, no AOF) and its working directory in a temporary directory,
 * stopped by its process id. `npm test` installs redis-server first when it is missing (scripts/provision.mjs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

export interface RedisServer {
  port: number;
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedis(): Promise<RedisServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-redis-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', path.join(dir, 'redis.log')], {
      stdio: 'ignore',
    });
    let failed: Error | undefined;
    child.once('error', (error) => (failed = error));
    const deadline = Date.now() + 10_000;
    while (failed === undefined && child.exitCode === null && Date.now() < deadline && !(await accepts(port))) await new Promise((resolve) => setTimeout(resolve, 25));
    if (failed !== undefined) throw new Error(`cannot start ${REDIS_SERVER} (${failed.message}); install it (npm run provision, or apt-get install redis-server)`);
    if (child.exitCode === null && (await accepts(port))) {
      const pid = child.pid!;
      return {
        port,
        pid,
        url: `redis://127.0.0.1:${port}`,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM');
          await exited(child);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    // Someone took the port between the probe and the start: try another.
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited(child);
    if (attempt >= 4) throw new Error(`redis-server did not start (see ${path.join(dir, 'redis.log')})`);
  }
}
