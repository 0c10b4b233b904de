/**
 * A child-process runner for memory tests: sanitizes stdin (a bare message stream, so no
 * pre-scan is possible) to stdout for one route with a given memory budget, then prints
 * `{"maxRssKb": N, "stats": {...}}` on stderr.
 *
 * Usage: node --import tsx test/helpers/sanitize-stdin.ts BUDGET_BYTES PROVIDER MODEL_API MODEL_ID
 */
import { sanitizeStream } from '../../lib/run.ts';
import { peakRssKb } from '../../lib/peak-rss.ts';

const [budget, provider, modelApi, modelId] = process.argv.slice(2);
const stats = await sanitizeStream({
  input: process.stdin,
  output: process.stdout,
  source: '<stdin>',
  options: { provider, modelApi, modelId, memoryBudgetBytes: Number(budget), now: () => 1798761600000 },
});
process.stderr.write(JSON.stringify({ maxRssKb: peakRssKb(), stats }) + '\n');
