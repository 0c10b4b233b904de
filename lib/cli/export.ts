/** `transcript-hygiene export`: many sessions into a mirrored tree, in parallel. */
import { isHygieneError } from '../errors.ts';
import { EXPORT_EXIT } from '../export/report.ts';
import type { ExportFormat, ExportRoute } from '../export/routes.ts';
import { ROUTE_OPTIONS, UsageError, parse, positiveIntegerFlag, routeOf, usageLine, type Io } from './args.ts';
import { EXPORT_HELP } from './help.ts';
import { REDACT_OPTIONS, redactOf } from './redact-flags.ts';

export async function runExport(args: string[], io: Io): Promise<number> {
  // export's usage errors exit 1, not 2 as the other commands' do (its codes are in EXPORT_HELP).
  try {
    const { values, positionals } = parse(args, {
      ...ROUTE_OPTIONS,
      thinking: { type: 'boolean' },
      'route-file': { type: 'string' },
      out: { type: 'string', short: 'o' },
      jobs: { type: 'string', short: 'j' },
      format: { type: 'string' },
      force: { type: 'boolean' },
      repair: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      'job-memory': { type: 'string' },
      'image-max-dimension': { type: 'string' },
      'image-max-bytes': { type: 'string' },
      'no-tools': { type: 'boolean' },
      'max-tool-result-bytes': { type: 'string' },
      queue: { type: 'string' },
      ...REDACT_OPTIONS,
      session: { type: 'string', multiple: true },
    });
    if (values.help) {
      io.stdout.write(EXPORT_HELP);
      return EXPORT_EXIT.ok;
    }
    if (values.out === undefined) throw new UsageError('missing --out DIR (where the sanitized sessions go)');
    if (positionals.length === 0) throw new UsageError('no input: give session files, directories, or - to read a list of paths from stdin');
    const format = values.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'json') throw new UsageError(`--format must be jsonl or json, got ${values.format}`);
    if (values.queue !== undefined && (values.jobs !== undefined || values['job-memory'] !== undefined)) {
      throw new UsageError(`${values.jobs !== undefined ? '--jobs' : '--job-memory'} is the workers' with --queue: give 'transcript-hygiene worker' --concurrency and --job-memory`);
    }
    const flagRoute = values.provider !== undefined || values['model-api'] !== undefined || values['model-id'] !== undefined;
    const routes = flagRoute || values['route-file'] === undefined ? [routeOf(values) as ExportRoute] : [];
    if (values.queue !== undefined) {
      // The broker first, before the pipeline is loaded: one that cannot be reached is one line at once.
      const { parseBrokerUrl, probeBroker } = await import('../export/queue/broker.ts');
      try {
        await probeBroker(parseBrokerUrl(values.queue));
      } catch (error) {
        if (!isHygieneError(error)) throw error;
        io.stderr.write(`transcript-hygiene: ${error.message}\n`);
        return EXPORT_EXIT.usage;
      }
    }
    const redact = await redactOf(values);
    const { runExportCommand } = await import('../export/command.ts');
    return await runExportCommand(
      {
        inputs: positionals,
        outDir: values.out,
        routes,
        routeFile: values['route-file'],
        unknownRouteOk: values['provider-unknown-ok'] ?? false,
        defaults: {
          reasoning: values.reasoning,
          thinking: values.thinking,
          imageMaxDimensionPx: positiveIntegerFlag('image-max-dimension', values['image-max-dimension']),
          imageMaxBytes: positiveIntegerFlag('image-max-bytes', values['image-max-bytes']),
          redact,
          ...(values['no-tools'] === true ? { tools: false } : {}),
          maxToolResultBytes: positiveIntegerFlag('max-tool-result-bytes', values['max-tool-result-bytes']),
        },
        format: format as ExportFormat,
        jobs: positiveIntegerFlag('jobs', values.jobs),
        jobMemoryMb: positiveIntegerFlag('job-memory', values['job-memory']),
        force: values.force ?? false,
        repair: values.repair ?? false,
        quiet: values.quiet ?? false,
        ...(values.session === undefined ? {} : { sessions: values.session }),
        ...(values.queue === undefined ? {} : { queue: values.queue }),
      },
      io,
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(usageLine(error.message, 'export'));
    return EXPORT_EXIT.usage;
  }
}
