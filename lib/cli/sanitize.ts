/** `transcript-hygiene sanitize`: one transcript in, its replay copy out. */
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { openAtomic, planOutput, type AtomicFile } from '../atomic-write.ts';
import { HygieneError, isHygieneError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../options.ts';
import { sanitizeFile, type InputFormat } from '../run.ts';
import { writesBeforeCallback } from '../jsonl.ts';
import { sanitizeStdin } from '../session/spool.ts';
import { describeMessageless, fileHead, isRegularFile, messagesWithRole, recordHead } from '../session/input-check.ts';
import { inputWarnings } from '../input-warnings.ts';
import { ROUTE_OPTIONS, UsageError, checkInput, parse, positiveIntegerFlag, routeOf, type Io } from './args.ts';
import { SANITIZE_HELP } from './help.ts';
import { REDACT_OPTIONS, redactOf } from './redact-flags.ts';
import { sanitizeDatabaseSession } from '../session/db-sanitize.ts';
import { databaseInput } from './database-input.ts';
import { outputOverInput } from './same-file.ts';

export async function runSanitize(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...ROUTE_OPTIONS,
    output: { type: 'string', short: 'o' },
    thinking: { type: 'boolean' },
    display: { type: 'boolean' },
    format: { type: 'string' },
    stats: { type: 'boolean' },
    'image-max-dimension': { type: 'string' },
    'image-max-bytes': { type: 'string' },
    'no-tools': { type: 'boolean' },
    'max-tool-result-bytes': { type: 'string' },
    ...REDACT_OPTIONS,
    session: { type: 'string' },
    'busy-timeout': { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(SANITIZE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`sanitize takes one input file, got ${positionals.length}`);
  const format = (values.format ?? 'auto') as InputFormat;
  if (!['auto', 'jsonl', 'json'].includes(format)) throw new UsageError(`--format must be auto, jsonl or json, got ${values.format}`);
  const redact = await redactOf(values);
  const options: HygieneOptions = {
    ...routeOf(values),
    ...(redact === undefined ? {} : { redact }),
    thinking: values.thinking ?? false,
    display: values.display ?? false,
    imageMaxDimensionPx: positiveIntegerFlag('image-max-dimension', values['image-max-dimension']),
    imageMaxBytes: positiveIntegerFlag('image-max-bytes', values['image-max-bytes']),
    ...(values['no-tools'] === true ? { tools: false } : {}),
    maxToolResultBytes: positiveIntegerFlag('max-tool-result-bytes', values['max-tool-result-bytes']),
  };
  resolveHygieneOptions(options);
  const target = values.output;
  // A directory given as the output fails before any work.
  if (target !== undefined) await planOutput(target);
  const input = positionals[0] === '-' ? undefined : positionals[0];
  const overwritten = await outputOverInput({ file: input, stdin: io.stdin }, { target, stdout: io.stdout });
  if (overwritten !== undefined) {
    throw new UsageError(`the output is the input (${overwritten}): sanitize writes a replay copy of bare messages, which would replace the session; write it elsewhere, or use 'transcript-hygiene repair ${overwritten === '<stdin>' ? 'FILE' : overwritten}' to fix a session file in place`);
  }
  const file = await checkInput(positionals[0], { rejectEmpty: true });
  const database = await databaseInput(file, values.session, 'sanitize');

  const atomic: AtomicFile | undefined = target === undefined ? undefined : await openAtomic(target);
  const output: Writable = atomic === undefined ? io.stdout : atomic.stream();
  // Node's stdout is done with each buffer when it calls back: the writer may fill it again (lib/jsonl.ts).
  if (atomic === undefined && output === process.stdout) writesBeforeCallback(output);
  let outputError: Error | undefined;
  output.on('error', (error: Error) => {
    outputError = error;
  });
  try {
    // What the input starts with, to say what it holds if it gives no message.
    const piped = file === undefined ? recordHead(io.stdin) : (await isRegularFile(file)) ? undefined : recordHead(createReadStream(file));
    const source = file ?? '<stdin>';
    const stats = database
      ? await sanitizeDatabaseSession({ path: file!, session: values.session!, output, options, dropForeignRoles: true, busyTimeoutMs: positiveIntegerFlag('busy-timeout', values['busy-timeout']) })
      : piped !== undefined
        ? // stdin, or a pipe given by path (e.g. <(zcat s.jsonl.gz)): read once.
          await sanitizeStdin({ input: piped.input, output, options, source, format, dropForeignRoles: true })
        : await sanitizeFile({ path: file!, output, options, format, dropForeignRoles: true });
    if (!database && messagesWithRole(stats) === 0) throw describeMessageless(source, piped === undefined ? await fileHead(file!) : piped.head());
    for (const warning of inputWarnings(source, stats)) io.stderr.write(`transcript-hygiene: warning: ${warning}\n`);
    await atomic?.commit();
    if (values.stats) io.stderr.write(JSON.stringify(stats) + '\n');
    return EXIT.ok;
  } catch (error) {
    await atomic?.abort();
    if (outputError !== undefined && !isHygieneError(error)) {
      throw new HygieneError('output_failed', `${target ?? '<stdout>'}: cannot write output (${outputError.message})`);
    }
    throw error;
  }
}
