/**
 * The one adapter between a rule chain and a stream (lib/stage.ts runs the chain). Apart from
 * lib/stage.ts so that the command, which drives the chain with plain calls, never loads
 * through2 and readable-stream.
 */
import type { Transform, TransformCallback } from 'node:stream';
import through2 from 'through2';
import { createRuleChain, type ChainEnvironment, type RuleChain } from './stage.ts';
import type { Rule } from './rule.ts';
import type { Message } from './types.ts';

export interface StageTransformOptions {
  /** Readable-side buffer, in messages (default 16). */
  highWaterMark?: number;
}

/**
 * Wraps rules (one, or several fused) in one object-mode Transform, built with through2.obj.
 * Errors from a rule reach the stream's 'error' event as a HygieneError naming the rule and
 * the index of the message in that rule's input; destroy releases what the rules hold.
 *
 * The Transform is readable-stream's (through2's base), which pipes and composes with node's
 * own streams (stream.pipeline, for await); its type is given as node's Transform.
 */
export function toTransform(rules: readonly Rule[], env: ChainEnvironment, options: StageTransformOptions = {}): Transform {
  let chain: RuleChain | undefined;
  const transform = through2.obj(
    { highWaterMark: options.highWaterMark ?? 16 },
    function (message: Message, _encoding: BufferEncoding, callback: TransformCallback) {
      let wait: Promise<void> | undefined;
      try {
        wait = chain!.write(message);
      } catch (error) {
        callback(error as Error);
        return;
      }
      if (wait === undefined) callback();
      else wait.then(() => callback(), callback);
    },
    function (callback: TransformCallback) {
      let ended: Promise<void> | undefined;
      try {
        ended = chain!.end();
      } catch (error) {
        callback(error as Error);
        return;
      }
      const done = (): void => {
        chain!.dispose();
        callback();
      };
      if (ended === undefined) done();
      else ended.then(done, callback);
    },
  ) as unknown as Transform;
  transform.once('close', () => chain!.dispose());
  chain = createRuleChain(rules, env, (message) => {
    transform.push(message);
  });
  return transform;
}
