/**
 * The `transcript-hygiene` command. Every failure ends in one line on stderr that names
 * the input (and line, when there is one) and a distinct exit code (lib/exit-codes.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { finished } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { HygieneError, isHygieneError } from './errors.ts';
import { EXIT } from './exit-codes.ts';
import { resolveTranscriptPolicy } from './policy.ts';
import { resolveHygieneOptions, type HygieneOptions } from './options.ts';
import { STAGES } from './pipeline.ts';
import { sanitizeFile, sanitizeStream, type InputFormat } from './run.ts';

class UsageError extends Error {}

const MAIN_HELP = `transcript-hygiene: clean an AI-agent transcript to a model provider's replay rules.

Usage:
  transcript-hygiene sanitize [FILE] --provider P --model-api A --model-id M [options]
  transcript-hygiene policy --provider P --model-api A --model-id M [--reasoning] [--json]
  transcript-hygiene help [COMMAND]

Commands:
  sanitize   read a transcript (JSONL of messages or session entries, or a JSON array),
             write its replay copy for one provider route as JSONL
  policy     print the resolved policy of a route and the rules that run for it

Run 'transcript-hygiene COMMAND --help' for a command's options.

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
one message a line, to stdout or to -o FILE. Input lines may be bare messages
({"role": ...}) or OpenClaw session entries ({"type": "message", ...}); other entry
types are skipped. A file whose first character is '[' is read as a JSON array.

${ROUTE_HELP}

Options:
  -o, --output FILE  write here instead of stdout (written to a temporary file and
                     renamed when complete, so a partial file never appears)
  --thinking         thinking is on for this request (request-time steps)
  --format F         input format: auto (default), jsonl, json
  --stats            print what each rule did as JSON on stderr
  -h, --help         this text

Exit codes: 0 done; 1 bad input (names file and line); 2 usage; 3 input missing or
unreadable; 4 output not writable; 5 transcript cannot be made valid for the route.

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

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** Checks the input before any work: stdin, or a readable regular file. */
async function checkInput(file: string | undefined): Promise<string | undefined> {
  if (file === undefined || file === '-') return undefined;
  let stat;
  try {
    stat = await fs.stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HygieneError(code === 'ENOENT' ? 'input_not_found' : 'input_unreadable', `${file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, { source: file });
  }
  if (stat.isDirectory()) throw new HygieneError('input_unreadable', `${file}: is a directory (give a session file)`, { source: file });
  try {
    await fs.access(file, fs.constants.R_OK);
  } catch {
    throw new HygieneError('input_unreadable', `${file}: permission denied`, { source: file });
  }
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
    format: { type: 'string' },
    stats: { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(SANITIZE_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`sanitize takes one input file, got ${positionals.length}`);
  const format = (values.format ?? 'auto') as InputFormat;
  if (!['auto', 'jsonl', 'json'].includes(format)) throw new UsageError(`--format must be auto, jsonl or json, got ${values.format}`);
  const options: HygieneOptions = { ...routeOf(values), thinking: values.thinking ?? false };
  resolveHygieneOptions(options);
  const file = await checkInput(positionals[0]);

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
        ? await sanitizeStream({ input: io.stdin, output, options, source: '<stdin>', format })
        : await sanitizeFile({ path: file, output, options, format });
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

function exitCodeFor(error: HygieneError): number {
  switch (error.code) {
    case 'malformed_line':
      return EXIT.badInput;
    case 'invalid_option':
      return EXIT.usage;
    case 'input_not_found':
    case 'input_unreadable':
      return EXIT.inputUnavailable;
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
      case undefined:
      case 'help':
      case '--help':
      case '-h': {
        const topic = rest[0];
        io.stdout.write(topic === 'sanitize' ? SANITIZE_HELP : topic === 'policy' ? POLICY_HELP : MAIN_HELP);
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
