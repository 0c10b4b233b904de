/**
 * Runs one synchronous rule over an array through the real chain (`createRuleChain`), the way the pipeline
 * runs it: buffered processors get `push`/`end`/`dispose`, message rules are adapted, counters
 * land in a StatsRecorder. Errors come out as the chain wraps them (a HygieneError naming the rule).
 */
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../../lib/options.ts';
import type { Rule } from '../../lib/rule.ts';
import type { TranscriptPolicy } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { TEST_NOW, testPolicy } from './build.ts';

export interface RunRuleInit {
  policy?: Partial<TranscriptPolicy>;
  options?: HygieneOptions;
}

export interface RunRuleResult {
  output: Message[];
  /** The rule's counters (only those it reported). */
  counts: Record<string, number>;
  /** How many messages had come out after each write; the last entry is after the end of input. Shows what a rule holds and when it lets go. */
  emittedAfter: number[];
}

export function runRule(rule: Rule, messages: readonly Message[], init: RunRuleInit = {}): RunRuleResult {
  const stats = new StatsRecorder();
  const output: Message[] = [];
  const chain = createRuleChain(
    [rule],
    {
      policy: testPolicy(init.policy),
      options: resolveHygieneOptions({ now: () => TEST_NOW, ...init.options }),
      stats,
    },
    (message) => output.push(message),
  );
  const emittedAfter: number[] = [];
  try {
    for (const message of messages) {
      chain.write(message);
      emittedAfter.push(output.length);
    }
    chain.end();
    emittedAfter.push(output.length);
  } finally {
    chain.dispose();
  }
  return { output, counts: { ...(stats.snapshot().rules[rule.meta.name] ?? {}) }, emittedAfter };
}
