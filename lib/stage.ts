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
import type { Emit, Rule, RuleContext, RuleProcessor } from './rule.ts';
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
function processorFor(rule: Rule, ctx: RuleContext): RuleProcessor {
  if (rule.unit === 'buffered') return rule.create(ctx);
  const apply = rule.apply;
  return {
    push(message: Message, emit: Emit) {
      const out = apply(message, ctx);
      if (out === null) return;
      if (Array.isArray(out)) {
        for (const item of out as readonly Message[]) emit(item);
        return;
      }
      emit(out as Message);
    },
    end() {},
  };
}

export function createRuleChain(rules: readonly Rule[], env: ChainEnvironment, sink: Emit): RuleChain {
  const processors = rules.map((rule) => processorFor(rule, contextFor(rule, env)));
  const names = rules.map((rule) => rule.meta.name);
  const seen = new Array<number>(rules.length).fill(0);
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
  };
}
