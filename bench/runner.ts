/**
 * `npm run bench:runner`: the latency the pi extension adds to each model call, on in-memory
 * contexts of 1k, 10k and 100k messages.
 *
 * What is timed is the extension's own `context` handler, called as pi calls it (the factory
 * registers it on a recording stand-in for pi's API; a UI context that records the status):
 * messages in as objects, the hygiene for the route, the result out. pi's own deep copy of the
 * context before the event is pi's cost with or without the extension, so it is not counted.
 *
 * The contexts are pi sessions as they look after long use (seeded): user turns, assistant turns
 * with signed thinking, text and one to three tool calls, tool results of 0.2-4 KB (a quarter with
 * `details`), pi's own bash
 * executions and custom messages, a compaction summary at the head, and now and then the
 * shapes the hygiene repairs (an aborted turn with a synthetic result, a steering message between
 * a call and its result, a whitespace-only output), so the rules do real work.
 *
 * Target (issue 16): p50 <= 25 ms at 10k messages, and linear growth (the 100k p50 about 10x the
 * 10k one). `--gate` exits 1 when the 10k p50 misses the target.
 *
 * Usage: node --import tsx bench/runner.ts [--sizes 1000,10000,100000] [--runs N] [--route anthropic|openai-responses]
 *        [--seed N] [--gate] [--json]
 */
import { parseArgs } from 'node:util';
import transcriptHygiene from '../lib/pi/extension.ts';
import type { PiContextEvent, PiContextEventResult, PiContextHandler, PiExtensionAPI, PiExtensionContext, PiModel } from '../lib/pi/types.ts';

const TARGET_P50_MS_AT_10K = 25;

const MODELS: Record<string, PiModel> = {
  anthropic: { provider: 'anthropic', api: 'anthropic-messages', id: 'claude-sonnet-4-5', reasoning: true },
  'openai-responses': { provider: 'openai', api: 'openai-responses', id: 'gpt-5', reasoning: true },
};

/** mulberry32 */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'the parser reads each line of the file and the tests check that every token keeps its position while the build runs'.split(' ');

/** A pi context of `size` messages for `model` (see the module comment). */
export function generateContext(size: number, model: PiModel, seed: number): unknown[] {
  const next = rng(seed);
  const words = (n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const out: unknown[] = [];
  let clock = Date.parse('2026-11-01T00:00:00Z');
  let callSeq = 0;
  const time = (): number => (clock += 1000);
  const meta = { api: model.api, provider: model.provider, model: model.id, usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } };
  const callId = (): string => (model.api === 'openai-responses' ? `call_${++callSeq}|fc_${callSeq}` : `toolu_01${(++callSeq).toString(36).padStart(8, '0')}`);
  out.push({ role: 'compactionSummary', summary: words(60), tokensBefore: 120000, timestamp: time() });
  while (out.length < size) {
    out.push({ role: 'user', content: [{ type: 'text', text: words(5 + Math.floor(next() * 30)) }], timestamp: time() });
    const turns = 1 + Math.floor(next() * 4);
    for (let turn = 0; turn < turns && out.length < size; turn++) {
      const calls = 1 + Math.floor(next() * 3);
      const ids = Array.from({ length: calls }, callId);
      const content: unknown[] = [];
      if (model.api === 'anthropic-messages') content.push({ type: 'thinking', thinking: words(20), thinkingSignature: `Sig${ids[0]!.replace(/[^a-zA-Z0-9]/g, '')}AAAA` });
      content.push({ type: 'text', text: words(8) });
      for (const id of ids) content.push({ type: 'toolCall', id, name: next() < 0.5 ? 'bash' : 'read', arguments: { command: words(4), path: `src/${words(1)}.ts` } });
      const aborted = next() < 0.003;
      out.push({ role: 'assistant', content, ...meta, stopReason: aborted ? 'aborted' : 'toolUse', timestamp: time() });
      const steering = !aborted && next() < 0.002;
      ids.forEach((id, index) => {
        if (steering && index === 0) out.push({ role: 'user', content: [{ type: 'text', text: `steer: ${words(6)}` }], timestamp: time() });
        const blank = next() < 0.002;
        const text = aborted ? 'Operation aborted' : blank ? '\n' : words(40 + Math.floor(next() * 600));
        // pi's tools attach `details` (a diff, truncation facts) to some results, not all.
        const details = next() < 0.25 ? { details: { diff: words(12) } } : {};
        out.push({ role: 'toolResult', toolCallId: id, toolName: 'bash', content: [{ type: 'text', text }], ...details, isError: aborted, timestamp: time() });
      });
      if (next() < 0.02) out.push({ role: 'bashExecution', command: 'git status', output: words(10), exitCode: 0, cancelled: false, truncated: false, timestamp: time() });
      if (next() < 0.01) out.push({ role: 'custom', customType: 'notes', content: words(12), display: true, timestamp: time() });
    }
    out.push({ role: 'assistant', content: [{ type: 'text', text: words(30) }], ...meta, stopReason: 'stop', timestamp: time() });
  }
  return out.slice(0, size);
}

/** The extension's context handler, registered on a stand-in that only records it. */
function contextHandler(): PiContextHandler {
  let handler: PiContextHandler | undefined;
  const api: PiExtensionAPI = {
    on: (_event, registered) => {
      handler = registered;
    },
    getThinkingLevel: () => 'medium',
  };
  transcriptHygiene(api);
  return handler!;
}

function percentile(sorted: readonly number[], p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at]!;
}

interface SizeResult {
  readonly messages: number;
  readonly runs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Process CPU time of the median call (includes V8's helper threads): what an idle machine's wall time approaches. */
  readonly cpuP50Ms: number;
  readonly usPerMessage: number;
  readonly changed: number;
  readonly status: string;
}

async function measure(size: number, runs: number, model: PiModel, seed: number): Promise<SizeResult> {
  const handler = contextHandler();
  const statuses: string[] = [];
  const ctx: PiExtensionContext = { hasUI: true, model, ui: { notify: () => {}, setStatus: (_key, text) => void (text !== undefined && statuses.push(text)) } };
  const messages = generateContext(size, model, seed);
  const inputs = new Set(messages);
  let changed = 0;
  const call = async (): Promise<{ wall: number; cpu: number }> => {
    const event: PiContextEvent = { type: 'context', messages };
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const result = (await handler(event, ctx)) as PiContextEventResult | undefined;
    const wall = performance.now() - started;
    const cpuUsed = process.cpuUsage(cpuStart);
    // Messages the hygiene replaced or added (the rest are the caller's own objects).
    if (result?.messages !== undefined) changed = result.messages.filter((message) => !inputs.has(message)).length;
    return { wall, cpu: (cpuUsed.user + cpuUsed.system) / 1000 };
  };
  const warmup = Math.max(2, Math.min(5, Math.ceil(runs / 5)));
  for (let i = 0; i < warmup; i++) await call();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { wall, cpu } = await call();
    walls.push(wall);
    cpus.push(cpu);
  }
  walls.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  const p50 = percentile(walls, 50);
  return {
    messages: size,
    runs,
    p50Ms: p50,
    p95Ms: percentile(walls, 95),
    cpuP50Ms: percentile(cpus, 50),
    usPerMessage: (p50 * 1000) / size,
    changed,
    status: statuses.at(-1) ?? '',
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      runs: { type: 'string' },
      route: { type: 'string', default: 'anthropic' },
      seed: { type: 'string', default: '16' },
      gate: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const model = MODELS[values.route!];
  if (model === undefined) throw new Error(`unknown route ${values.route}: ${Object.keys(MODELS).join(', ')}`);
  const sizes = values.sizes!.split(',').map(Number);
  const results: SizeResult[] = [];
  for (const size of sizes) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`--sizes: ${size} is not a message count`);
    const runs = values.runs !== undefined ? Number(values.runs) : size <= 1000 ? 100 : size <= 10000 ? 40 : 10;
    results.push(await measure(size, runs, model, Number(values.seed)));
  }
  const at10k = results.find((result) => result.messages === 10000);
  const meetsTarget = at10k === undefined || at10k.p50Ms <= TARGET_P50_MS_AT_10K;
  if (values.json) {
    console.log(JSON.stringify({ route: values.route, node: process.version, targetP50MsAt10k: TARGET_P50_MS_AT_10K, meetsTarget, results }, null, 2));
  } else {
    console.log(`bench:runner, route ${values.route} (${model.provider}/${model.id}, thinking on), node ${process.version}`);
    console.log('messages    runs    p50 ms    p95 ms  cpu p50   µs/msg   changed  status');
    for (const result of results) {
      console.log(
        `${String(result.messages).padStart(8)}  ${String(result.runs).padStart(6)}  ${result.p50Ms.toFixed(1).padStart(8)}  ${result.p95Ms.toFixed(1).padStart(8)}  ${result.cpuP50Ms.toFixed(1).padStart(7)}  ${result.usPerMessage.toFixed(2).padStart(7)}  ${String(result.changed).padStart(8)}  ${result.status}`,
      );
    }
    for (let i = 1; i < results.length; i++) {
      const [a, b] = [results[i - 1]!, results[i]!];
      console.log(`growth ${a.messages} -> ${b.messages}: p50 x${(b.p50Ms / a.p50Ms).toFixed(1)} for x${(b.messages / a.messages).toFixed(0)} messages`);
    }
    if (at10k !== undefined) console.log(`target p50 <= ${TARGET_P50_MS_AT_10K} ms at 10k: ${meetsTarget ? 'met' : 'missed'} (${at10k.p50Ms.toFixed(1)} ms)`);
  }
  if (values.gate && !meetsTarget) process.exitCode = 1;
}

await main();
