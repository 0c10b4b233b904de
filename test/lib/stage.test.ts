import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRuleChain, type ChainEnvironment } from '../../lib/stage.ts';
import { toTransform } from '../../lib/stage-transform.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { HygieneError } from '../../lib/errors.ts';
import type { BufferedRule, MessageRule, Rule } from '../../lib/rule.ts';
import type { Message } from '../../lib/types.ts';

function environment(): ChainEnvironment {
  const options = resolveHygieneOptions({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' });
  return { options, policy: resolveTranscriptPolicy(options), stats: new StatsRecorder() };
}

const numbered = (n: number): Message[] => Array.from({ length: n }, (_, i) => ({ role: 'user', content: `m${i}` }));

function messageRule(name: string, apply: MessageRule['apply']): MessageRule {
  return { unit: 'message', meta: { name, summary: name, counters: [] }, apply };
}

const identity = messageRule('identity', (message) => message);
const dropOdd = messageRule('drop-odd', (message) => (Number(String(message.content).slice(1)) % 2 === 1 ? null : message));
const duplicate = messageRule('duplicate', (message) => [message, { ...message, copy: true }]);
const throwAtThird = messageRule('throw-at-third', (message) => {
  if (message.content === 'm2') throw new Error('boom');
  return message;
});

/** Holds every message until a user message with content "flush" or the end: a minimal lookahead rule. */
function holdUntilEnd(disposed: { count: number }): BufferedRule {
  return {
    unit: 'buffered',
    meta: { name: 'hold', summary: 'hold', counters: ['held'] },
    create(ctx) {
      let held: Message[] = [];
      return {
        push(message) {
          ctx.count('held');
          held.push(message);
        },
        end(emit) {
          for (const message of held) emit(message);
          held = [];
        },
        dispose() {
          disposed.count++;
        },
      };
    },
  };
}

async function collect(rules: Rule[], input: Message[], highWaterMark?: number): Promise<Message[]> {
  const out: Message[] = [];
  const transform = toTransform(rules, environment(), { highWaterMark });
  await pipeline(Readable.from(input, { objectMode: true }), transform, new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(message: Message, _encoding, callback) {
      out.push(message);
      setImmediate(callback);
    },
  }));
  return out;
}

describe('createRuleChain', () => {
  test('feeds each rule the previous rule\'s output, in order', () => {
    const out: Message[] = [];
    const chain = createRuleChain([dropOdd, duplicate], environment(), (m) => out.push(m));
    for (const message of numbered(4)) chain.write(message);
    chain.end();
    assert.deepEqual(out.map((m) => [m.content, m.copy ?? false]), [['m0', false], ['m0', true], ['m2', false], ['m2', true]]);
  });

  test('a throwing rule becomes a HygieneError naming the rule and the index in its input', () => {
    const chain = createRuleChain([dropOdd, throwAtThird], environment(), () => {});
    chain.write({ role: 'user', content: 'm0' });
    chain.write({ role: 'user', content: 'm1' });
    assert.throws(() => chain.write({ role: 'user', content: 'm2' }), (error: unknown) => {
      assert.ok(error instanceof HygieneError);
      assert.equal(error.code, 'rule_failed');
      assert.equal(error.rule, 'throw-at-third');
      // m1 was dropped upstream, so m2 is the second message the failing rule saw.
      assert.equal(error.index, 1);
      assert.match(error.message, /rule throw-at-third failed at message 1: boom/);
      return true;
    });
  });

  test('a HygieneError keeps its code and is attributed once', () => {
    const invariant = messageRule('invariant', () => {
      throw new HygieneError('invalid_replay_transcript', 'invalid_replay_transcript: test');
    });
    const chain = createRuleChain([identity, invariant], environment(), () => {});
    assert.throws(() => chain.write({ role: 'user', content: 'x' }), (error: unknown) => {
      assert.ok(error instanceof HygieneError);
      assert.equal(error.code, 'invalid_replay_transcript');
      assert.equal(error.rule, 'invariant');
      return true;
    });
  });

  test('end flushes buffered rules into the rules after them; counts reach the stats', () => {
    const env = environment();
    const out: Message[] = [];
    const disposed = { count: 0 };
    const chain = createRuleChain([holdUntilEnd(disposed), duplicate], env, (m) => out.push(m));
    for (const message of numbered(3)) chain.write(message);
    assert.equal(out.length, 0);
    chain.end();
    assert.equal(out.length, 6);
    chain.dispose();
    chain.dispose();
    assert.equal(disposed.count, 1);
    const stats = env.stats.snapshot();
    assert.deepEqual(stats.rules.hold, { held: 3 });
    assert.equal(stats.messagesIn, 3);
    assert.equal(stats.messagesOut, 6);
  });
});

describe('toTransform', () => {
  test('fused rules give the same output as the chain', async () => {
    assert.deepEqual(
      (await collect([dropOdd, duplicate], numbered(10))).map((m) => m.content),
      ['m0', 'm0', 'm2', 'm2', 'm4', 'm4', 'm6', 'm6', 'm8', 'm8'],
    );
  });

  test('highWaterMark 1 with a slow reader loses and reorders nothing', async () => {
    const input = numbered(200);
    const out = await collect([duplicate], input, 1);
    assert.equal(out.length, 400);
    assert.deepEqual(out.filter((m) => !m.copy).map((m) => m.content), input.map((m) => m.content));
  });

  test('backpressure: the transform stops taking input while its reader is stalled', async () => {
    const transform = toTransform([duplicate], environment(), { highWaterMark: 1 });
    let accepted = 0;
    for (let i = 0; i < 50; i++) {
      if (transform.write({ role: 'user', content: `m${i}` })) accepted++;
      else break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    // Nobody reads: the readable side fills after a few messages and writes report false.
    assert.ok(accepted < 10, `accepted ${accepted} writes without a reader`);
    transform.destroy();
  });

  test('a throwing rule errors the stream with the rule name and index', async () => {
    await assert.rejects(collect([throwAtThird], numbered(5)), (error: unknown) => {
      assert.ok(error instanceof HygieneError);
      assert.equal(error.rule, 'throw-at-third');
      assert.equal(error.index, 2);
      return true;
    });
  });

  test('a rule failing in end() errors the stream', async () => {
    const failingEnd: BufferedRule = {
      unit: 'buffered',
      meta: { name: 'failing-end', summary: '', counters: [] },
      create: () => ({
        push() {},
        end() {
          throw new Error('cannot finish');
        },
      }),
    };
    await assert.rejects(collect([failingEnd], numbered(2)), /rule failing-end failed at message 2: cannot finish/);
  });

  test('destroy mid-stream disposes buffered rules and ends cleanly', async () => {
    const disposed = { count: 0 };
    const transform = toTransform([holdUntilEnd(disposed)], environment());
    transform.write({ role: 'user', content: 'a' });
    transform.write({ role: 'user', content: 'b' });
    const closed = new Promise<void>((resolve) => transform.once('close', () => resolve()));
    transform.destroy();
    await closed;
    assert.equal(disposed.count, 1);
    assert.equal(transform.destroyed, true);
  });

  test('destroy with an error reports it and disposes once', async () => {
    const disposed = { count: 0 };
    const transform = toTransform([holdUntilEnd(disposed)], environment());
    const failed = new Promise<unknown>((resolve) => transform.once('error', resolve));
    transform.destroy(new Error('aborted by caller'));
    assert.match(String(await failed), /aborted by caller/);
    assert.equal(disposed.count, 1);
  });

  test('a normal end disposes buffered rules after flushing', async () => {
    const disposed = { count: 0 };
    const out = await collect([holdUntilEnd(disposed)], numbered(3));
    assert.equal(out.length, 3);
    assert.equal(disposed.count, 1);
  });
});

/** An asynchronous rule with at most `limit` messages in flight, emitting in input order, like the image stage. */
function delayedRule(limit: number, observed: { maxInFlight: number }, failOn?: string): BufferedRule {
  return {
    unit: 'buffered',
    meta: { name: 'delayed', summary: 'delayed', counters: [] },
    create() {
      const queue: Array<{ message: Message; done: boolean }> = [];
      let inFlight = 0;
      let failure: unknown;
      let wake: (() => void) | undefined;
      let emitTo: ((m: Message) => void) | undefined;
      const drain = (): void => {
        while (queue.length > 0 && queue[0]!.done) {
          const { message } = queue.shift()!;
          try {
            emitTo!(message);
          } catch (error) {
            failure ??= error;
          }
        }
        wake?.();
      };
      return {
        push(message, emit) {
          emitTo = emit;
          if (message.content === failOn) throw new Error('bad input');
          const item = { message, done: false };
          queue.push(item);
          inFlight++;
          observed.maxInFlight = Math.max(observed.maxInFlight, inFlight);
          setTimeout(() => {
            inFlight--;
            item.done = true;
            drain();
          }, 1 + (queue.length % 3));
        },
        ready() {
          if (failure !== undefined) return Promise.reject(failure);
          if (inFlight < limit) return undefined;
          return new Promise<void>((resolve) => (wake = resolve));
        },
        end(emit) {
          emitTo = emit;
          return new Promise<void>((resolve, reject) => {
            const check = (): void => {
              if (failure !== undefined) reject(failure);
              else if (queue.length === 0) resolve();
              else wake = check;
            };
            check();
          });
        },
      };
    },
  };
}

describe('asynchronous rules', () => {
  test('keep order, never exceed their in-flight limit, and feed the rules after them', async () => {
    const observed = { maxInFlight: 0 };
    const input = numbered(60);
    const out = await collect([delayedRule(3, observed), duplicate], input, 1);
    assert.equal(out.length, 120);
    assert.deepEqual(out.filter((m) => !m.copy).map((m) => m.content), input.map((m) => m.content));
    assert.ok(observed.maxInFlight <= 3, `max in flight ${observed.maxInFlight}`);
  });

  test('the chain form returns promises to wait on, and end waits for work in flight', async () => {
    const observed = { maxInFlight: 0 };
    const out: Message[] = [];
    const chain = createRuleChain([delayedRule(2, observed)], environment(), (m) => out.push(m));
    let waited = 0;
    for (const message of numbered(10)) {
      const wait = chain.write(message);
      if (wait !== undefined) {
        waited++;
        await wait;
      }
    }
    const ended = chain.end();
    assert.ok(ended instanceof Promise);
    await ended;
    assert.equal(out.length, 10);
    assert.ok(waited > 0);
    assert.ok(observed.maxInFlight <= 2);
  });

  test('an error thrown downstream of an asynchronous emit reaches the stream', async () => {
    const observed = { maxInFlight: 0 };
    await assert.rejects(collect([delayedRule(2, observed), throwAtThird], numbered(8)), /rule throw-at-third failed at message 2: boom/);
  });
});
