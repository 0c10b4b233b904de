import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrokerUrl, probeBroker, redactUrl } from '../../lib/export/queue/broker.ts';
import { decodeFailure, encodeFailure, isTransient, jobIdFor, queueNameFor } from '../../lib/export/queue/job.ts';
import { runCli } from '../helpers/run-cli.ts';
import { freePort, startRedis } from './redis-server.ts';

describe('what coordinator and workers agree on', () => {
  test('a job id changes with the session path, size, mtime and options hash, and with nothing else', () => {
    const source = { path: '/shared/sessions/a.jsonl', size: 1200, mtimeMs: 1_700_000_000_123.5 };
    const id = jobIdFor(source, 'hash-a');
    assert.equal(jobIdFor({ ...source }, 'hash-a'), id, 'the same output enqueued twice has one id');
    assert.match(id, /^s[0-9a-f]{40}$/, 'never an integer (BullMQ refuses those as custom ids), no colon');
    const others = [
      jobIdFor({ ...source, path: '/shared/sessions/b.jsonl' }, 'hash-a'),
      jobIdFor({ ...source, size: 1201 }, 'hash-a'),
      jobIdFor({ ...source, mtimeMs: source.mtimeMs + 1 }, 'hash-a'),
      jobIdFor(source, 'hash-b'),
    ];
    assert.equal(new Set([id, ...others]).size, 5);
  });

  test('one queue per output directory', () => {
    assert.equal(queueNameFor('/out/a'), queueNameFor('/out/a'));
    assert.notEqual(queueNameFor('/out/a'), queueNameFor('/out/b'));
    assert.match(queueNameFor('/out/a'), /^export-[0-9a-f]{16}$/);
  });

  test('a failure travels as the failed reason and comes back whole; BullMQ\'s own reasons keep their text', () => {
    const failure = { code: 'malformed_line', reason: 'not valid JSON (Unexpected end)', line: 5, ms: 12, worker: 'b:12', started: 1 };
    assert.deepEqual(decodeFailure(encodeFailure(failure)), failure);
    assert.deepEqual(decodeFailure('job stalled more than allowable limit'), {
      code: 'worker_lost',
      reason: 'job stalled more than allowable limit (its workers stopped or lost the broker while working on it 3 times)',
    });
    assert.deepEqual(decodeFailure('Connection is closed.'), { code: 'job_failed', reason: 'Connection is closed.' });
    assert.deepEqual(decodeFailure('{"code": 3}'), { code: 'job_failed', reason: '{"code": 3}' });
    assert.equal(decodeFailure(undefined).code, 'job_failed');
  });

  test('only what may pass is retried: transient system errors and a job thread that died', () => {
    for (const errno of ['EIO', 'EAGAIN', 'EBUSY', 'ESTALE', 'ETIMEDOUT', 'ECONNRESET', 'EMFILE', 'ENOSPC']) {
      assert.equal(isTransient({ code: 'input_unreadable', reason: 'x', errno }), true, errno);
      assert.equal(isTransient({ code: 'output_failed', reason: 'x', errno }), true, `output ${errno}`);
    }
    assert.equal(isTransient({ code: 'worker_crashed', reason: 'the worker stopped' }), true);
    for (const failure of [
      { code: 'malformed_line', reason: 'not valid JSON', line: 3 },
      { code: 'input_empty', reason: 'empty' },
      { code: 'invalid_session', reason: 'no header' },
      { code: 'out_of_memory', reason: 'limit' },
      { code: 'input_unreadable', reason: 'permission denied', errno: 'EACCES' },
      { code: 'input_not_found', reason: 'no such file', errno: 'ENOENT' },
      { code: 'invalid_replay_transcript', reason: 'cannot be made valid' },
    ]) {
      assert.equal(isTransient(failure), false, failure.code);
    }
  });
});

describe('the broker URL and the first contact', () => {
  test('redis://HOST:PORT[/DB], a password, TLS; anything else is a usage error naming the flag', () => {
    assert.deepEqual(parseBrokerUrl('redis://10.0.0.5:6380/2'), { display: 'redis://10.0.0.5:6380/2', options: { host: '10.0.0.5', port: 6380, db: 2 } });
    assert.deepEqual(parseBrokerUrl('redis://localhost').options, { host: 'localhost', port: 6379, db: 0 });
    assert.deepEqual(parseBrokerUrl('rediss://user:p%40ss@[::1]:7000').options, { host: '::1', port: 7000, db: 0, username: 'user', password: 'p@ss', tls: {} });
    assert.equal(parseBrokerUrl('redis://:secret@h:1').display, 'redis://:***@h:1', 'the password is never shown');
    assert.equal(redactUrl('redis://h:1/0'), 'redis://h:1/0');
    for (const [url, why] of [
      ['localhost:6379', /unknown scheme localhost/],
      ['http://h:1', /unknown scheme http/],
      ['redis://h:1/db', /the database must be a number/],
      ['redis://h:1/0?x=1', /no query/],
      ['nonsense', /not a URL/],
    ] as const) {
      assert.throws(() => parseBrokerUrl(url), (error: Error & { code?: string }) => error.code === 'invalid_option' && why.test(error.message) && error.message.startsWith('--queue '), url);
    }
  });

  test('a running Redis answers with its version; a wrong database or a closed port is one line', async () => {
    const redis = await startRedis();
    try {
      assert.match(await probeBroker(parseBrokerUrl(redis.url)), /^\d+\.\d+/);
      await assert.rejects(probeBroker(parseBrokerUrl(`${redis.url}/99`)), /^HygieneError: cannot reach the queue broker redis:\/\/127\.0\.0\.1:\d+\/99 \(ERR DB index is out of range\)$/);
      await assert.rejects(probeBroker(parseBrokerUrl('redis://:nope@' + redis.url.slice('redis://'.length))), /cannot reach the queue broker .*\(ERR AUTH .*\)|\(WRONGPASS/);
    } finally {
      await redis.stop();
    }
    const port = await freePort();
    await assert.rejects(probeBroker(parseBrokerUrl(`redis://127.0.0.1:${port}`)), { code: 'broker_unreachable', message: `cannot reach the queue broker redis://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port})` });
  });
});

describe('help', () => {
  test('worker --help and export --help say what the queue needs', async () => {
    const worker = await runCli(['worker', '--help']);
    assert.equal(worker.code, 0);
    for (const flag of ['--queue', '--concurrency', '--job-memory', '--lock-duration', '--stalled-interval', '--grace', '--quiet']) assert.ok(worker.stdout.includes(flag), flag);
    assert.match(worker.stdout, /must be on\s+storage every worker sees, at the same paths/);
    assert.match(worker.stdout, /exits 0 within\s+10 s/);
    assert.equal((await runCli(['help', 'worker'])).stdout, worker.stdout);
    const exportHelp = (await runCli(['export', '--help'])).stdout;
    assert.match(exportHelp, /--queue URL/);
    assert.match(exportHelp, /INPUT and DIR must be paths that every worker sees/);
    assert.match((await runCli(['help'])).stdout, /\n {2}worker {5}/);
  });
});
