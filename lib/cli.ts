/**
 * The `transcript-hygiene` command. Every failure ends in one line on stderr that names
 * the input (and line, when there is one) and a distinct exit code (lib/exit-codes.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { finished } from 'node:stream/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { HygieneError, isHygieneError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { resolveTranscriptPolicy } from './policy.ts';
import { resolveHygieneOptions, type HygieneOptions } from './options.ts';
import { STAGES } from './pipeline.ts';
import { sanitizeFile, type InputFormat } from './run.ts';
import { sanitizeStdin } from './session/spool.ts';
import { checkInputFile, isRegularFile } from './session/input-check.ts';
import { REPAIR_HELP, runRepairCommand } from './session/repair-command.ts';
import { runCheckCommand } from './invariants/check-command.ts';
import { runExportCommand } from './export/command.ts';
import { EXPORT_EXIT } from './export/report.ts';
import type { ExportFormat, ExportRoute } from './export/routes.ts';

class UsageError extends Error {}

const MAIN_HELP = `transcript-hygiene: clean an AI-agent transcript to a model provider's replay rules.

Usage:
  transcript-hygiene sanitize [FILE] --provider P --model-api A --model-id M [options]
  transcript-hygiene policy --provider P --model-api A --model-id M [--reasoning] [--json]
  transcript-hygiene check [FILE] --provider P --model-api A --model-id M [--after-hygiene] [--json]
  transcript-hygiene export --out DIR --provider P --model-api A --model-id M [options] INPUT...
  transcript-hygiene repair FILE... [--json]
  transcript-hygiene help [COMMAND]

Commands:
  sanitize   read a transcript (JSONL of messages or session entries, or a JSON array),
             write its replay copy for one provider route as JSONL
  policy     print the resolved policy of a route and the rules that run for it
  check      report where a transcript breaks the route's provider rules (exit 1 if it
             does), as given or, with --after-hygiene, after the pipeline
  export     sanitize many sessions (files, directories, a list on stdin) into a
             mirrored tree, in parallel, resumable, with a report of the failures
  repair     repair OpenClaw session files in place (torn lines, bad entries, empty
             error turns, blank user turns, corrupted images, missing tool results)

Run 'transcript-hygiene COMMAND --help' for a command's options.

Environment:
  TRANSCRIPT_HYGIENE_HEAP_MB=N   heap limit of the process doing the work, in MB (default:
                                 node's); a run that needs more stops with exit 10
  The work runs in a child node process started with MALLOC_ARENA_MAX=2 and --expose-gc,
  which keep image-heavy runs in bounded memory; set both yourself to run in place.

Example:
  transcript-hygiene sanitize fixtures/sessions/demo.jsonl \\
    --provider anthropic --model-api anthropic-messages --model-id claude-sonnet-4-5 --stats
`;

const ROUTE_HELP = `Route (which provider the transcript is replayed to):
  --provider P       provider id: anthropic, openai, google, amazon-bedrock, mistral,
                     openrouter, ollama, ... (unknown ids get the default policy)
  --model-api A      the model API: anthropic-messages, openai-responses,
                     openai-completions, google-generative-ai, bedrock-converse-stream, ...
  --model-id M       the model id, e.g. claude-sonnet-4-5, gpt-5, gemini-2.5-pro
  --reasoning        the model declares reasoning support (keeps reasoning fields on
                     OpenAI-compatible chat-completions routes)`;

const SANITIZE_HELP = `Usage: transcript-hygiene sanitize [FILE] --provider P --model-api A --model-id M [options]

Reads FILE (or stdin when FILE is absent or '-') and writes the replay copy as JSONL,
one message a line, to stdout or to -o FILE. The input is an OpenClaw / pi session file
(a {"type":"session"} header and entries), a stream of bare messages ({"role": ...}),
or a JSON array of messages (first character '['). A session file is read as OpenClaw
loads it: the active branch only, the latest compaction's summary in place of what it
summarised, branch summaries and custom messages as messages, other entries skipped,
lines that are not JSON skipped (counted in --stats); a session piped to stdin is first
copied to a temporary file (a session is read twice: an index pass, then the messages).

${ROUTE_HELP}

Options:
  -o, --output FILE  write here instead of stdout (written to a temporary file and
                     renamed when complete, so a partial file never appears)
  --thinking         thinking is on for this request (request-time steps)
  --display          for people, not a model: also remove runtime wrappers (internal
                     context, inbound metadata, channel envelopes) from user turns
  --format F         input format: auto (default), jsonl, json
  --image-max-dimension N
                     longest side of a replayed image, in pixels (default 1200);
                     larger images are re-encoded as JPEG to fit
  --image-max-bytes N
                     largest replayed image, in decoded bytes (default 5242880,
                     5 MiB); larger images are re-encoded as JPEG to fit
  --stats            print what each rule did as JSON on stderr
  -h, --help         this text

Exit codes: 0 done; 1 bad input (names file and line); 2 usage; 3 no such file;
4 output not writable; 5 transcript cannot be made valid for the route; 6 input is a
directory; 7 input unreadable; 8 input empty; 10 out of memory (see TRANSCRIPT_HYGIENE_HEAP_MB
in 'transcript-hygiene help').

Examples:
  transcript-hygiene sanitize session.jsonl --provider anthropic \\
    --model-api anthropic-messages --model-id claude-sonnet-4-5 -o replay.jsonl
  cat session.jsonl | transcript-hygiene sanitize --provider google \\
    --model-api google-generative-ai --model-id gemini-2.5-pro --stats > replay.jsonl
`;

const POLICY_HELP = `Usage: transcript-hygiene policy --provider P --model-api A --model-id M [--reasoning] [--json]

Prints the policy resolved for the route and the rules that run for it, in order.

${ROUTE_HELP}

Options:
  --json             print {route, policy, rules} as JSON
  -h, --help         this text

Example:
  transcript-hygiene policy --provider mistral --model-api openai-completions --model-id mistral-large-latest
`;

const CHECK_HELP = `Usage: transcript-hygiene check [FILE] --provider P --model-api A --model-id M [options]

Reads FILE (or stdin) like sanitize and reports every place where the transcript breaks
a structural rule the route's provider API enforces (tool results that do not follow
their calls, bad tool-call ids, empty content, alternation, ...), naming the rule, the
message index (and input line) and the offending id or block.

${ROUTE_HELP}

Options:
  --after-hygiene    check the pipeline's output (what sanitize writes) instead of the input
  --thinking         thinking is on for the request (checks the trailing-prefill rule)
  --format F         input format: auto (default), jsonl, json
  --json             print {route, checked, families, messages, violations} as JSON
  -h, --help         this text

Exit codes: 0 no violation; 1 violations found (or bad input, named on stderr); 2 usage;
3 input missing (6 a directory, 7 unreadable); 5 (with --after-hygiene) the pipeline cannot make the
transcript valid for the route.

Examples:
  transcript-hygiene check session.jsonl --provider amazon-bedrock \\
    --model-api bedrock-converse-stream --model-id anthropic.claude-sonnet-4-5-20250929-v1:0
  transcript-hygiene check session.jsonl --after-hygiene --json --provider openai \\
    --model-api openai-responses --model-id gpt-5
`;

const EXPORT_HELP = `Usage: transcript-hygiene export --out DIR --provider P --model-api A --model-id M [options] INPUT...
       transcript-hygiene export --out DIR --route-file ROUTES.json [options] INPUT...

Sanitizes many sessions into DIR, in parallel worker threads. INPUT is a session file,
a directory (searched recursively for *.jsonl), or '-' to read a list of paths from
stdin (one a line, or NUL-separated as find -print0 writes them). DIR mirrors the input
tree (the paths below the deepest directory that holds every input): one sanitized file
per session, under one subdirectory per route (named by the route) when several are
given. Each output is written to a temporary file and renamed when complete.

A session that cannot be read or sanitized never stops the export: it is listed with
file, line and reason in DIR/export-report.json and in the summary on stderr.
DIR/.export-manifest.json records each finished output; a re-run skips the outputs whose
session (size, mtime) and options are unchanged and whose file is in place.

${ROUTE_HELP}

Options:
  -o, --out DIR      output directory (created if missing)
  --route-file F     routes to export for, as a JSON array of {"name", "provider",
                     "modelApi", "modelId", "reasoning", "thinking", "imageMaxDimensionPx",
                     "imageMaxBytes", "allowedToolNames"}; with the route flags too, both
  --thinking         thinking is on for the requests (request-time steps), every route
  --format F         output: jsonl (default, one message a line) or json (one array a file)
  -j, --jobs N       worker threads (default: the number of cores)
  --force            redo every output, even those done and current
  --repair           repair a copy of each session first (as 'transcript-hygiene repair'
                     does: torn and invalid lines dropped, ...) and export the copy, so
                     bad lines do not fail it; the session itself is never changed
  --job-memory MB    heap limit of each job, in MiB (default 2048); a session that needs
                     more fails as out_of_memory and the export goes on
  --image-max-dimension N, --image-max-bytes N
                     as for sanitize, every route
  -q, --quiet        no progress lines (the summary is still printed if something failed)
  -h, --help         this text

Progress goes to stderr: on a terminal one status line (outputs done/total, failures,
bytes, MB/s, ETA), otherwise one line per output.

Exit codes (export's own): 0 every session exported or already current; 2 some sessions
failed (listed in the report), the rest were exported; 1 usage error, or the export
could not start (DIR not writable, or in use by another export); 130 interrupted by
SIGINT (143: SIGTERM), run it again to resume; 70 internal error.

Examples:
  transcript-hygiene export --out replay/ --provider anthropic \\
    --model-api anthropic-messages --model-id claude-sonnet-4-5 sessions/
  find sessions -name '*.jsonl' -mtime -7 -print0 | \\
    transcript-hygiene export --out week/ --route-file routes.json --jobs 4 -
`;

const ROUTE_OPTIONS = {
  provider: { type: 'string' },
  'model-api': { type: 'string' },
  'model-id': { type: 'string' },
  reasoning: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function routeOf(values: { provider?: string; 'model-api'?: string; 'model-id'?: string; reasoning?: boolean }): HygieneOptions {
  const missing = (['provider', 'model-api', 'model-id'] as const).filter((name) => values[name] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((name) => `--${name}`).join(', ')} (the route to sanitize for)`);
  return {
    provider: values.provider,
    modelApi: values['model-api'],
    modelId: values['model-id'],
    reasoning: values.reasoning ?? false,
  };
}

/** A flag that takes a whole number of at least 1 (digits only: no sign, unit, exponent or fraction). */
function positiveIntegerFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return parsed;
}

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** Checks the input before any work: stdin, or a readable regular file (not empty, with rejectEmpty). */
async function checkInput(file: string | undefined, options: { rejectEmpty?: boolean } = {}): Promise<string | undefined> {
  if (file === undefined || file === '-') return undefined;
  await checkInputFile(file, options);
  return file;
}

/** Opens the temporary output first, so an unwritable destination fails before any work is done. */
async function openOutput(temporary: string, target: string): Promise<Writable> {
  let handle;
  try {
    handle = await fs.open(temporary, 'wx');
  } catch (error) {
    throw new HygieneError('output_failed', `${target}: cannot write output (${(error as Error).message})`);
  }
  return createWriteStream(temporary, { fd: handle, autoClose: true });
}

async function runSanitize(args: string[], io: Io): Promise<number> {
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

function runPolicy(args: string[], io: Io): number {
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
  for (const [key, value] of Object.entries(policy)) lines.push(`  ${key.padEnd(width)}  ${JSON.stringify(value) ?? 'undefined'}`);
  lines.push('', 'Rules, in order:');
  rules.forEach((rule, i) => lines.push(`  ${String(i + 1).padStart(2)}. ${rule.name} (step ${rule.step}): ${rule.summary}`));
  io.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

async function runCheck(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...ROUTE_OPTIONS,
    thinking: { type: 'boolean' },
    format: { type: 'string' },
    'after-hygiene': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`check takes one input file, got ${positionals.length}`);
  const format = values.format ?? 'auto';
  if (format !== 'auto' && format !== 'jsonl' && format !== 'json') throw new UsageError(`--format must be auto, jsonl or json, got ${values.format}`);
  const options: HygieneOptions = { ...routeOf(values), thinking: values.thinking ?? false };
  resolveHygieneOptions(options);
  const file = await checkInput(positionals[0]);
  return runCheckCommand({ file, stdin: io.stdin, stdout: io.stdout, options, format, afterHygiene: values['after-hygiene'] ?? false, json: values.json ?? false });
}

async function runExport(args: string[], io: Io): Promise<number> {
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
    });
    if (values.help) {
      io.stdout.write(EXPORT_HELP);
      return EXPORT_EXIT.ok;
    }
    if (values.out === undefined) throw new UsageError('missing --out DIR (where the sanitized sessions go)');
    if (positionals.length === 0) throw new UsageError('no input: give session files, directories, or - to read a list of paths from stdin');
    const format = values.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'json') throw new UsageError(`--format must be jsonl or json, got ${values.format}`);
    const flagRoute = values.provider !== undefined || values['model-api'] !== undefined || values['model-id'] !== undefined;
    const routes = flagRoute || values['route-file'] === undefined ? [routeOf(values) as ExportRoute] : [];
    return await runExportCommand(
      {
        inputs: positionals,
        outDir: values.out,
        routes,
        routeFile: values['route-file'],
        defaults: {
          reasoning: values.reasoning,
          thinking: values.thinking,
          imageMaxDimensionPx: positiveIntegerFlag('image-max-dimension', values['image-max-dimension']),
          imageMaxBytes: positiveIntegerFlag('image-max-bytes', values['image-max-bytes']),
        },
        format: format as ExportFormat,
        jobs: positiveIntegerFlag('jobs', values.jobs),
        jobMemoryMb: positiveIntegerFlag('job-memory', values['job-memory']),
        force: values.force ?? false,
        repair: values.repair ?? false,
        quiet: values.quiet ?? false,
      },
      io,
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`transcript-hygiene: ${error.message}\nRun 'transcript-hygiene export --help' for usage.\n`);
    return EXPORT_EXIT.usage;
  }
}

function exitCodeFor(error: HygieneError): number {
  switch (error.code) {
    case 'malformed_line':
      return EXIT.badInput;
    case 'invalid_option':
      return EXIT.usage;
    case 'invalid_session':
      return EXIT.badInput;
    case 'input_not_found':
      return EXIT.inputUnavailable;
    case 'input_is_directory':
      return EXIT.inputIsDirectory;
    case 'input_unreadable':
      return EXIT.inputUnreadable;
    case 'input_empty':
      return EXIT.inputEmpty;
    case 'lock_timeout':
      return EXIT.locked;
    case 'invalid_replay_transcript':
      return EXIT.replayInvalid;
    case 'output_failed':
      return EXIT.outputFailed;
    default:
      return EXIT.internal;
  }
}

export async function main(argv: string[], io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'sanitize':
        return await runSanitize(rest, io);
      case 'policy':
        return runPolicy(rest, io);
      case 'check':
        return await runCheck(rest, io);
      case 'export':
        return await runExport(rest, io);
      case 'repair':
        return await runRepairCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h': {
        const topic = rest[0];
        if (topic === 'export' || topic === 'repair') {
          io.stdout.write(topic === 'export' ? EXPORT_HELP : REPAIR_HELP);
          return EXIT.ok;
        }
        io.stdout.write(topic === 'sanitize' ? SANITIZE_HELP : topic === 'policy' ? POLICY_HELP : topic === 'check' ? CHECK_HELP : MAIN_HELP);
        return command === undefined ? EXIT.usage : EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`transcript-hygiene: ${error.message}\nRun 'transcript-hygiene ${command && command !== 'help' ? `${command} ` : ''}--help' for usage.\n`);
      return EXIT.usage;
    }
    if (isHygieneError(error)) {
      io.stderr.write(`transcript-hygiene: ${error.message}\n`);
      return exitCodeFor(error);
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`transcript-hygiene: internal error: ${message}\n`);
    return EXIT.internal;
  }
}
