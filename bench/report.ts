/**
 * `npm run bench:report`: renders bench/report.html from an existing bench/results.json (and
 * bench/reference.json beside it, when the reference was measured), without running anything.
 * `npm run bench` calls writeBenchReport itself after writing its results.
 *
 * Options: --results FILE (default bench/results.json), --reference FILE (default
 * reference.json beside the results; ignored when absent), --out FILE (default report.html
 * beside the results).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.ts';
import { renderBenchReportHtml } from './report-html.ts';
import type { BenchResults, ReferenceResults } from './results.ts';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_RESULTS = path.join(benchDir, 'results.json');

async function readJson<T>(file: string, optional: boolean): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file}: cannot read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
}

/** Renders the page for `resultsFile`; returns where it was written. */
export async function writeBenchReport(resultsFile: string, options: { reference?: string; out?: string } = {}): Promise<string> {
  const results = (await readJson<BenchResults>(resultsFile, false))!;
  if (!Array.isArray(results.rows) || !Array.isArray(results.imageRows)) throw new Error(`${resultsFile}: not a bench results file (no rows or imageRows)`);
  const reference = await readJson<ReferenceResults>(options.reference ?? path.join(path.dirname(resultsFile), 'reference.json'), options.reference === undefined);
  const out = options.out ?? path.join(path.dirname(resultsFile), 'report.html');
  await writeFile(out, renderBenchReportHtml(results, reference));
  return out;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = benchArgs(import.meta.url, { options: { results: { type: 'string' }, reference: { type: 'string' }, out: { type: 'string' } } });
  try {
    const out = await writeBenchReport(values.results ?? DEFAULT_RESULTS, { reference: values.reference, out: values.out });
    process.stdout.write(`wrote ${out}\n`);
  } catch (error) {
    process.stderr.write(`bench:report: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
