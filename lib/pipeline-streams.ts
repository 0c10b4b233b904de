/** The pipeline as object-mode Transforms: all of a route's rules fused, or one named rule. */
import { didYouMean } from './closest.ts';
import type { Transform } from 'node:stream';
import { HygieneError } from './errors.ts';
import type { HygieneOptions } from './options.ts';
import { prepare, STAGES, type SelectOptions } from './pipeline.ts';
import type { Rule } from './rule.ts';
import { toTransform } from './stage-transform.ts';
import type { TranscriptPolicy } from './policy.ts';
import type { HygieneStats } from './stats.ts';

export interface PipelineTransform {
  readonly stream: Transform;
  readonly policy: TranscriptPolicy;
  readonly rules: readonly Rule[];
  stats(): HygieneStats;
}

/** The same rules as `createPipeline`, as one object-mode Transform. */
export function createPipelineTransform(options: HygieneOptions, select: SelectOptions = {}): PipelineTransform {
  const { policy, options: resolved, rules, stats } = prepare(options, select);
  const stream = toTransform(rules, { policy, options: resolved, stats });
  return { stream, policy, rules, stats: () => stats.snapshot() };
}

/**
 * One named rule of a route as its own object-mode Transform, for users who compose their own
 * pipeline. Rules rely on the ones before them (spec order), so pipe them in `ruleNamesFor`'s
 * order; a rule that does not run for the route is refused, naming the ones that do.
 */
export function createRuleTransform(name: string, options: HygieneOptions): PipelineTransform {
  const { policy, options: resolved, rules, stats } = prepare(options, {});
  const rule = rules.find((candidate) => candidate.meta.name === name);
  if (rule === undefined) {
    const known = STAGES.some((entry) => entry.rule.meta.name === name);
    const route = `${resolved.provider}/${resolved.modelApi}/${resolved.modelId}`;
    const unknown = `no rule named ${JSON.stringify(name)}${didYouMean(String(name), STAGES.map((entry) => entry.rule.meta.name))}`;
    throw new HygieneError('invalid_option', `${known ? `rule ${name} does not run for ${route}` : unknown}; the route's rules are: ${rules.map((candidate) => candidate.meta.name).join(', ')}`);
  }
  const stream = toTransform([rule], { policy, options: resolved, stats });
  return { stream, policy, rules: [rule], stats: () => stats.snapshot() };
}
