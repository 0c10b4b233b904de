/** `transcript-hygiene policy`: the resolved policy of a route and the rules that run for it. */
import { EXIT } from '../exit-codes.ts';
import { resolveTranscriptPolicy } from '../policy.ts';
import { resolveHygieneOptions } from '../options.ts';
import { STAGES } from '../pipeline.ts';
import { ROUTE_OPTIONS, parse, routeOf, type Io } from './args.ts';
import { POLICY_HELP } from './help.ts';

export function runPolicy(args: string[], io: Io): number {
  const { values } = parse(args, { ...ROUTE_OPTIONS, json: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(POLICY_HELP);
    return EXIT.ok;
  }
  const route = routeOf(values);
  const options = resolveHygieneOptions(route);
  const policy = resolveTranscriptPolicy(options);
  const rules = STAGES.filter((entry) => entry.when(policy, options)).map((entry) => ({
    name: entry.rule.meta.name,
    step: entry.step,
    summary: entry.rule.meta.summary,
  }));
  if (values.json) {
    io.stdout.write(JSON.stringify({ route, policy, rules }, null, 2) + '\n');
    return EXIT.ok;
  }
  const lines = [`Route: provider=${route.provider} modelApi=${route.modelApi} modelId=${route.modelId}${route.reasoning ? ' reasoning' : ''}`, '', 'Policy:'];
  const width = Math.max(...Object.keys(policy).map((key) => key.length));
  for (const [key, value] of Object.entries(policy)) lines.push(`  ${key.padEnd(width)}  ${value === undefined ? '(not set)' : JSON.stringify(value)}`);
  lines.push('', 'Rules, in order:');
  rules.forEach((rule, i) => lines.push(`  ${String(i + 1).padStart(2)}. ${rule.name} (step ${rule.step}): ${rule.summary}`));
  io.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}
