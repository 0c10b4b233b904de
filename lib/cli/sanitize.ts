/** `transcript-hygiene sanitize`: one transcript in, its replay copy out. */
import { promises as fs, createReadStream, createWriteStream } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { HygieneError, isHygieneError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../options.ts';
import { sanitizeFile, type InputFormat } from '../run.ts';
import { sanitizeStdin } from '../session/spool.ts';
import { isRegularFile } from '../session/input-check.ts';
import { ROUTE_OPTIONS, UsageError, checkInput, parse, positiveIntegerFlag, routeOf, type Io } from './args.ts';
import { SANITIZE_HELP } from './help.ts';

async function openOutput(temporary: string, target: string): Promise<Writable> {
  let handle;
  try {
    handle = await fs.open(temporary, 'wx');
  } catch (error) {
    throw new HygieneError('output_failed', `${target}: cannot write output (${(error as Error).message})`);
  }
  return createWriteStream(temporary, { fd: handle, autoClose: true });
}

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
  });
  if (values.help) {
    io.stdout.write(SANITIZE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`sanitize takes one input file, got ${positionals.length}`);
  const format = (values.format ?? 'auto') as InputFormat;
  if (!['auto', 'jsonl', 'json'].includes(format)) throw new UsageError(`--format must be auto, jsonl or json, got ${values.format}`);
  const options: HygieneOptions = {
    ...routeOf(values),
    thinking: values.thinking ?? false,
    display: values.display ?? false,
    imageMaxDimensionPx: positiveIntegerFlag('image-max-dimension', values['image-max-dimension']),
    imageMaxBytes: positiveIntegerFlag('image-max-bytes', values['image-max-bytes']),
  };
  resolveHygieneOptions(options);
  const file = await checkInput(positionals[0], { rejectEmpty: true });

  const target = values.output;
  const temporary = target === undefined ? undefined : path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}`);
  const output = temporary === undefined ? io.stdout : await openOutput(temporary, target!);
  let outputError: Error | undefined;
  output.on('error', (error: Error) => {
    outputError = error;
  });
  try {
    const stats =
      file === undefined
        ? await sanitizeStdin({ input: io.stdin, output, options, source: '<stdin>', format })
        : (await isRegularFile(file))
          ? await sanitizeFile({ path: file, output, options, format })
          : // A pipe given by path (e.g. <(zcat s.jsonl.gz)): read once, as stdin is.
            await sanitizeStdin({ input: createReadStream(file), output, options, source: file, format });
    if (temporary !== undefined && target !== undefined) {
      output.end();
      await finished(output);
      await fs.rename(temporary, target);
    }
    if (values.stats) io.stderr.write(JSON.stringify(stats) + '\n');
    return EXIT.ok;
  } catch (error) {
    if (temporary !== undefined) {
      output.destroy();
      await fs.rm(temporary, { force: true });
    }
    if (outputError !== undefined && !isHygieneError(error)) {
      throw new HygieneError('output_failed', `${target ?? '<stdout>'}: cannot write output (${outputError.message})`);
    }
    throw error;
  }
}
