/**
 * The one adapter between rules and streams.
 *
 * `createRuleChain` runs an ordered list of rules as plain function calls: each rule's
 * output feeds the next rule directly, with no stream in between (a Transform per rule
 * costs about a microsecond a message; a function call a tenth of that). `toTransform`
 * (lib/stage-transform.ts) wraps a chain (one rule or many fused) in a single object-mode
 * Transform; it is the only place in the project that implements the stream contract.
 */
import { HygieneError, isHygieneError } from './errors.ts';
import type { Emit, MessageRule, Rule, RuleContext, RuleProcessor } from './rule.ts';
import { forkState, Unforkable } from './fork-state.ts';
import type { Message } from './types.ts';
import type { StatsRecorder } from './stats.ts';
import type { TranscriptPolicy } from './policy.ts';
import type { ResolvedHygieneOptions } from './options.ts';

export interface ChainEnvironment {
  readonly policy: TranscriptPolicy;
  readonly options: ResolvedHygieneOptions;
  readonly stats: StatsRecorder;
}

/** A running chain of rules: write messages in, receive the survivors through `sink`. */
export interface RuleChain {
  /** Undefined when the chain can take the next message at once; a promise when an asynchronous rule is at its limit. */
  write(message: Message): Promise<void> | undefined;
  /** End of input: every rule flushes what it holds, in order. A promise when an asynchronous rule is in the chain. */
  end(): Promise<void> | undefined;
  /** Release resources held by rules (spill files); safe to call more than once. */
  dispose(): void;
  /**
   * An independent copy of the chain as it stands (every rule's state, the counters), sending
   * what it emits to `sink`; undefined when some rule's state cannot be copied faithfully
   * (lib/fork-state.ts). `shared` names the objects the copy may keep by reference: the input
   * messages, which nothing mutates.
   */
  fork(env: ChainEnvironment, sink: Emit, shared: (value: object) => boolean): RuleChain | undefined;
}

function wrapFailure(error: unknown, rule: string, index: number): HygieneError {
  // Errors pass through every upstream rule's frame on the way out; attribute them once, to the rule that threw.
  if (isHygieneError(error)) {
    if (error.rule !== undefined) return error;
    return new HygieneError(error.code, error.message, { rule, index, cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new HygieneError('rule_failed', `rule ${rule} failed at message ${index}: ${reason}`, {
    rule,
    index,
    cause: error,
  });
}

function contextFor(rule: Rule, env: ChainEnvironment): RuleContext {
  const record = env.stats.recordFor(rule.meta.name);
  return {
    policy: env.policy,
    options: env.options,
    count(counter: string, n = 1) {
      record[counter] = (record[counter] ?? 0) + n;
    },
    now: env.options.now,
  };
}

/** Adapts a message rule to the processor shape, so the chain handles one kind of thing. */
class MessageRuleProcessor implements RuleProcessor {
  constructor(
    private readonly rule: MessageRule,
    private readonly ctx: RuleContext,
  ) {}

  push(message: Message, emit: Emit): void {
    const out = this.rule.apply(message, this.ctx);
    if (out === null) return;
    if (Array.isArray(out)) {
      for (const item of out as readonly Message[]) emit(item);
      return;
    }
    emit(out as Message);
  }

  end(): void {}
}

function processorFor(rule: Rule, ctx: RuleContext): RuleProcessor {
  return rule.unit === 'buffered' ? rule.create(ctx) : new MessageRuleProcessor(rule, ctx);
}

/** Why the last chain fork failed: which rule's state could not be copied (for the bench and tests). */
export let lastUnforkable: string | undefined;

export function createRuleChain(rules: readonly Rule[], env: ChainEnvironment, sink: Emit): RuleChain {
  const contexts = rules.map((rule) => contextFor(rule, env));
  const processors = rules.map((rule, i) => processorFor(rule, contexts[i]!));
  return chainOf(rules, processors, contexts, env, sink, new Array<number>(rules.length).fill(0));
}

function chainOf(rules: readonly Rule[], processors: readonly RuleProcessor[], contexts: readonly RuleContext[], env: ChainEnvironment, sink: Emit, seen: number[]): RuleChain {
  const names = rules.map((rule) => rule.meta.name);
  // emits[i] feeds processor i; emits[rules.length] is the sink. Built once, not per message.
  const emits = new Array<Emit>(rules.length + 1);
  const stats = env.stats;
  emits[rules.length] = (message: Message) => {
    stats.messagesOut++;
    sink(message);
  };
  for (let i = rules.length - 1; i >= 0; i--) {
    const processor = processors[i]!;
    const next = emits[i + 1]!;
    emits[i] = (message: Message) => {
      const index = seen[i]!;
      seen[i] = index + 1;
      try {
        processor.push(message, next);
      } catch (error) {
        throw wrapFailure(error, names[i]!, index);
      }
    };
  }
  let disposed = false;
  const head = emits[0]!;
  const waiting = processors.filter((processor) => processor.ready !== undefined);
  const ready = (): Promise<void> | undefined => {
    let pending: Promise<void>[] | undefined;
    for (const processor of waiting) {
      const wait = processor.ready!();
      if (wait !== undefined) (pending ??= []).push(wait);
    }
    if (pending === undefined) return undefined;
    return pending.length === 1 ? pending[0] : Promise.all(pending).then(() => undefined);
  };
  const endFrom = (start: number): Promise<void> | undefined => {
    for (let i = start; i < processors.length; i++) {
      let ended: void | Promise<void>;
      try {
        ended = processors[i]!.end(emits[i + 1]!);
      } catch (error) {
        throw wrapFailure(error, names[i]!, seen[i]!);
      }
      if (ended instanceof Promise) {
        return ended.then(
          () => endFrom(i + 1),
          (error: unknown) => {
            throw wrapFailure(error, names[i]!, seen[i]!);
          },
        );
      }
    }
    return undefined;
  };
  const fork = (forkEnv: ChainEnvironment, forkSink: Emit, shared: (value: object) => boolean): RuleChain | undefined => {
    if (disposed) return undefined;
    const forkContexts = rules.map((rule) => contextFor(rule, forkEnv));
    const functions = new Map<unknown, unknown>();
    const objects = new Map<object, object>();
    contexts.forEach((ctx, i) => {
      const copy = forkContexts[i]!;
      objects.set(ctx, copy);
      functions.set(ctx.count, copy.count);
      functions.set(ctx.now, copy.now);
    });
    // The rules themselves are module constants, shared.
    for (const rule of rules) objects.set(rule, rule);
    objects.set(env.policy, forkEnv.policy);
    objects.set(env.options, forkEnv.options);
    let forked: RuleProcessor[];
    let forkedCount = 0;
    try {
      forked = processors.map((processor, i) => {
        forkedCount = i;
        return processor.fork?.(forkContexts[i]!) ?? forkState([processor], { functions, objects, shared })[0]!;
      });
    } catch (error) {
      if (error instanceof Unforkable) {
        lastUnforkable = `${error.message} (${names[forkedCount]})`;
        return undefined;
      }
      throw error;
    }
    return chainOf(rules, forked, forkContexts, forkEnv, forkSink, seen.slice());
  };
  return {
    write(message: Message) {
      stats.messagesIn++;
      head(message);
      return waiting.length === 0 ? undefined : ready();
    },
    end: () => endFrom(0),
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const processor of processors) processor.dispose?.();
    },
    fork,
  };
}
