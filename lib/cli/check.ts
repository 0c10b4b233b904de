/** `transcript-hygiene check`: where a transcript breaks the route's provider rules. */
import { EXIT } from '../exit-codes.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../options.ts';
import { runCheckCommand } from '../invariants/check-command.ts';
import { ROUTE_OPTIONS, UsageError, checkInput, parse, positiveIntegerFlag, routeOf, type Io } from './args.ts';
import { databaseInput } from './database-input.ts';
import { readDatabaseTranscript } from '../session/db-sanitize.ts';
import { CHECK_HELP } from './help.ts';
import { REDACT_OPTIONS, redactOf } from './redact-flags.ts';

export async function runCheck(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...ROUTE_OPTIONS,
    thinking: { type: 'boolean' },
    format: { type: 'string' },
    'after-hygiene': { type: 'boolean' },
    json: { type: 'boolean' },
    'no-tools': { type: 'boolean' },
    'max-tool-result-bytes': { type: 'string' },
    ...REDACT_OPTIONS,
    session: { type: 'string' },
    'busy-timeout': { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`check takes one input file, got ${positionals.length}`);
  const format = values.format ?? 'auto';
  if (format !== 'auto' && format !== 'jsonl' && format !== 'json') throw new UsageError(`--format must be auto, jsonl or json, got ${values.format}`);
  const redact = await redactOf(values);
  if (redact !== undefined && values['after-hygiene'] !== true) throw new UsageError('--redact and --redact-pattern go with --after-hygiene (they change what sanitize writes)');
  const options: HygieneOptions = { ...routeOf(values), thinking: values.thinking ?? false, ...(values['no-tools'] === true ? { tools: false } : {}), maxToolResultBytes: positiveIntegerFlag('max-tool-result-bytes', values['max-tool-result-bytes']), ...(redact === undefined ? {} : { redact }) };
  resolveHygieneOptions(options);
  // An empty file is exit 8, as for sanitize and in export's report.
  const file = await checkInput(positionals[0], { rejectEmpty: true });
  const transcript = (await databaseInput(file, values.session, 'check'))
    ? await readDatabaseTranscript({ path: file!, session: values.session!, options, busyTimeoutMs: positiveIntegerFlag('busy-timeout', values['busy-timeout']) })
    : undefined;
  return runCheckCommand({ transcript, file, stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, options, format, afterHygiene: values['after-hygiene'] ?? false, json: values.json ?? false });
}
