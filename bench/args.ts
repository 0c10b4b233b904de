/**
 * Command-line options for the bench scripts: `parseArgs`, plus `--help` (`-h`), which prints the
 * script's own doc comment (what it measures, its options, its usage line), and a one-line error
 * with exit code 2 for an option it does not know, instead of a stack trace or, worse, a long run
 * that ignored the option; `benchUsageError` does the same for a value the script cannot use.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Exit code for options a bench script cannot take (as the command's usage errors). */
export const BENCH_USAGE_EXIT = 2;

/** The first doc comment of a source file, without its comment marks. */
export function docCommentOf(source: string): string | undefined {
  const match = /\/\*\*([\s\S]*?)\*\//.exec(source);
  if (match === null) return undefined;
  return match[1]!
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** A bad option value: one line naming the script, exit code 2 (not a stack trace). */
export function benchUsageError(scriptUrl: string, message: string): never {
  process.stderr.write(`${scriptName(scriptUrl)}: ${message} (--help lists the options)\n`);
  process.exit(BENCH_USAGE_EXIT);
}

function scriptName(scriptUrl: string): string {
  return path.relative(process.cwd(), fileURLToPath(scriptUrl));
}

/**
 * `parseArgs(config)` for the script at `scriptUrl` (its `import.meta.url`): `--help` prints the
 * script's doc comment and exits 0; an unknown option or a missing value prints one line naming
 * the script and exits 2.
 */
export function benchArgs<const T extends ParseArgsConfig>(scriptUrl: string, config: T): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<ParseArgsConfig>>;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw error;
    benchUsageError(scriptUrl, (error as Error).message.split('\n')[0]!);
  }
  if (parsed.values['help'] === true) {
    process.stdout.write(`${docCommentOf(readFileSync(fileURLToPath(scriptUrl), 'utf8')) ?? `${scriptName(scriptUrl)}: no description`}\n`);
    process.exit(0);
  }
  return parsed as ReturnType<typeof parseArgs<T>>;
}
