/**
 * `npm run bench:images`: the image stage (transforms/sanitize-images.ts) on sessions heavy
 * with images.
 *
 * It generates, seeded, bare-message JSONL sessions in a temporary directory: cycles of
 * user prompt, assistant tool call, tool result (text, or an image with a caption) and
 * assistant answer, with text of 0.2-4 KB. The images come from a pool of ten made by sharp
 * at start-up, all 1-4 MB: JPEG photos (4000x3000, 3000x4000), PNG screenshots (2560x1600,
 * 1920x1080), a WebP (3000x2000), which the stage must re-encode, and a PNG and a JPEG within
 * the limits, which it must pass through untouched (80% / 20%). Every image line is different
 * only in its position; each one is parsed, checked and (if oversized) decoded afresh.
 *
 * Default sizes: 500 images in 12,500 messages and 2,000 images in 50,000 messages (about
 * 1.7 and 6.8 GB). Each (mode, size, width) case runs in its own process, so its peak RSS is
 * its own. Modes: `stage` is the JSONL reader, the image stage alone and the JSONL writer (what
 * the stage costs); `pipeline` is the CLI's path (sanitizeFile, every rule of the google
 * route, whose tool-call-id rule holds the transcript up to memoryBudgetBytes, 64 MiB, before
 * spilling). Google, because its provider sets no request-wide image limit: on the anthropic
 * route limit-request-images replaces all but the newest few of these images (32 MB a request)
 * before the stage sees them, and the case would measure reading past placeholders, not images.
 * Width is the stage's image concurrency (options.concurrency; p-limit). The parent reads each
 * output back and checks every image is within the limits (max side 1200, 5 MiB,
 * 25 MP), that no message was lost or reordered, and the counts (resized / kept / omitted).
 * Reported: wall time, images per second (all images over wall time, reading and writing
 * included), peak RSS (getrusage maxRSS of the child).
 *
 * Each child runs under the command's process settings (bench/cli-settings.ts:
 * MALLOC_ARENA_MAX=2 and --expose-gc, which lets the image stage start collections,
 * lib/large-garbage.ts, and the rest of lib/process-settings.ts' flags) unless --node-defaults.
 *
 * Options: --sizes 500,2000 (images; messages are 25 per image), --concurrency 1,2,4,
 * --modes stage,pipeline, --sharp-threads N (sharp.concurrency(N) in the child; default:
 * sharp's own, 1 on glibc), --node-defaults (no MALLOC_ARENA_MAX, no --expose-gc),
 * --malloc-arena-max N (MALLOC_ARENA_MAX for the child: glibc gives every thread that decodes
 * an arena of its own, which keeps freed pixel buffers), --max-old-space-size MB (a heap limit
 * for the child), --dir DIR, --keep (keep the generated files), --no-verify. The 1-minute load average is printed with each row: other work on the machine
 * moves images/s far more than it moves peak RSS.
 *
 * Measured 2026-11-30 (2 cores, 24 GB, node 20.20, sharp 0.35.5; other work on the machine kept
 * the load at 1-6, so images/s are rough). Peak RSS, width 1 / 2 / 4, stage | pipeline:
 *   node's defaults            500 images  449 / 518 / 613 | 470 / 563 / 660 MB
 *   (--node-defaults)         2000 images  472 / 544 / 644 | 503 / 558 / 666 MB
 *   MALLOC_ARENA_MAX=2 alone   500 images  333 / 397 / 549 | 339 / 403 / 493 MB
 *                             2000 images  332 / 409 / 446 | 347 / 426 / 469 MB
 *   the command's settings     500 images                  | 317 / 317 / 332 MB
 *   (arena 2, --expose-gc,    2000 images                  | 319 / 319 / 332 MB
 *   collections every 16 MB)   images/s:   500 images  16.2 / 24.4 / 24.9, 2000 images 15.5 / 24.8 / 26.3
 * A 1 GB heap limit instead of the collections gave the same peaks (315-353 MB) but made
 * text-only runs 15-20% slower. The stage's own share is small (its in-flight images and its
 * queue): the rest is V8's lazily collected multi-MB strings and glibc's per-thread arenas
 * holding freed pixel buffers. sharp's thread setting (--sharp-threads 1 vs 2, 300 images)
 * changed images/s within noise and cost 40-60 MB in the default environment. sharp itself keeps
 * 1 thread on glibc unless MALLOC_ARENA_MAX is set, in which case it uses one per core.
 *
 * Read images/s across widths on the same machine and run, not as absolute numbers; peak RSS
 * is the figure that must stay flat as the session grows.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { benchArgs } from './args.ts';
import { parseArgs } from 'node:util';
import { finished } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import { sanitizeFile } from '../lib/run.ts';
import { probeImageHeader } from '../lib/images.ts';
import { JsonlWriter, readJsonlMessages } from '../lib/jsonl.ts';
import { createRuleChain } from '../lib/stage.ts';
import { StatsRecorder } from '../lib/stats.ts';
import { resolveHygieneOptions } from '../lib/options.ts';
import { resolveTranscriptPolicy } from '../lib/policy.ts';
import { sanitizeImagesRule } from '../transforms/sanitize-images.ts';
import { cliChildSettings } from './cli-settings.ts';

const ROUTE = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' };
const MESSAGES_PER_IMAGE = 25;
const MAX_SIDE = 1200;
const MAX_BYTES = 5 * 1024 * 1024;

const { values, positionals } = benchArgs(import.meta.url, {
  options: {
    child: { type: 'boolean' },
    sizes: { type: 'string' },
    concurrency: { type: 'string' },
    modes: { type: 'string' },
    'sharp-threads': { type: 'string' },
    'malloc-arena-max': { type: 'string' },
    'max-old-space-size': { type: 'string' },
    'node-defaults': { type: 'boolean' },
    dir: { type: 'string' },
    keep: { type: 'boolean' },
    'no-verify': { type: 'boolean' },
  },
  allowPositionals: true,
});

// ---------------------------------------------------------------------------------------
// Child: one run, in its own process

if (values.child) {
  const [mode, input, output, concurrency] = positionals;
  if (values['sharp-threads'] !== undefined) sharp.concurrency(Number(values['sharp-threads']));
  const options = { ...ROUTE, concurrency: Number(concurrency) };
  const started = performance.now();
  const out = createWriteStream(output!);
  let stats;
  if (mode === 'pipeline') {
    stats = await sanitizeFile({ path: input!, output: out, options });
  } else {
    // The image stage alone between the same reader and writer: what the stage itself costs.
    const resolved = resolveHygieneOptions(options);
    const recorder = new StatsRecorder();
    const writer = new JsonlWriter(out);
    const chain = createRuleChain([sanitizeImagesRule], { policy: resolveTranscriptPolicy(resolved), options: resolved, stats: recorder }, (m) => writer.write(m));
    for await (const batch of readJsonlMessages(createReadStream(input!, { highWaterMark: 256 * 1024 }))) {
      for (const message of batch) {
        const wait = chain.write(message);
        if (wait !== undefined) await wait;
      }
      await writer.drain();
    }
    await chain.end();
    await writer.flush();
    stats = recorder.snapshot();
  }
  out.end();
  await finished(out);
  const ms = performance.now() - started;
  process.stdout.write(
    JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, messagesIn: stats.messagesIn, messagesOut: stats.messagesOut, images: stats.rules['sanitize-images'] ?? {}, sharpThreads: sharp.concurrency() }) + '\n',
  );
  process.exit(0);
}

// ---------------------------------------------------------------------------------------
// Generation

/** A deterministic texture: a gradient under seeded noise of `grain` levels. */
function texture(width: number, height: number, grain: number, seed: number): Sharp {
  const pixels = Buffer.allocUnsafe(width * height * 3);
  let state = seed >>> 0 || 1;
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const noise = (state >>> 0) % grain;
      pixels[i++] = ((x * 255) / width + noise) & 255;
      pixels[i++] = ((y * 255) / height + noise) & 255;
      pixels[i++] = (((x + y) * 127) / (width + height) + noise) & 255;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

interface PoolImage {
  name: string;
  mimeType: string;
  data: string;
  bytes: number;
  withinLimits: boolean;
}

async function imagePool(): Promise<PoolImage[]> {
  const specs: Array<[string, string, () => Promise<Buffer>, boolean]> = [
    ['photo 4000x3000 a', 'image/jpeg', () => texture(4000, 3000, 8, 1).jpeg({ quality: 85 }).toBuffer(), false],
    ['photo 4000x3000 b', 'image/jpeg', () => texture(4000, 3000, 16, 2).jpeg({ quality: 85 }).toBuffer(), false],
    ['photo 4000x3000 c', 'image/jpeg', () => texture(4000, 3000, 24, 3).jpeg({ quality: 85 }).toBuffer(), false],
    ['photo 3000x4000', 'image/jpeg', () => texture(3000, 4000, 16, 4).jpeg({ quality: 85 }).toBuffer(), false],
    ['screenshot 2560x1600 a', 'image/png', () => texture(2560, 1600, 2, 5).png().toBuffer(), false],
    ['screenshot 2560x1600 b', 'image/png', () => texture(2560, 1600, 3, 6).png().toBuffer(), false],
    ['screenshot 1920x1080', 'image/png', () => texture(1920, 1080, 4, 7).png().toBuffer(), false],
    ['webp 3000x2000', 'image/webp', () => texture(3000, 2000, 32, 8).webp({ quality: 80 }).toBuffer(), false],
    ['png 1100x1100 (within limits)', 'image/png', () => texture(1100, 1100, 16, 9).png().toBuffer(), true],
    ['jpeg 1200x1200 (within limits)', 'image/jpeg', () => texture(1200, 1200, 96, 10).jpeg({ quality: 95 }).toBuffer(), true],
  ];
  const pool: PoolImage[] = [];
  for (const [name, mimeType, make, withinLimits] of specs) {
    const bytes = await make();
    const header = probeImageHeader(bytes)!;
    const within = bytes.length <= MAX_BYTES && header.width <= MAX_SIDE && header.height <= MAX_SIDE;
    if (within !== withinLimits || bytes.length < 1e6 || bytes.length > 4.2e6) throw new Error(`pool image ${name}: ${bytes.length} B, ${header.width}x${header.height}`);
    pool.push({ name, mimeType, data: bytes.toString('base64'), bytes: bytes.length, withinLimits });
  }
  return pool;
}

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  messages: number;
  images: number;
  withinLimits: number;
  bytes: number;
}

async function generate(file: string, images: number, pool: readonly PoolImage[]): Promise<Generated> {
  const random = prng(images);
  const words = 'the parser reads each line and hands the record to the next stage while the writer keeps a buffer of output tool result image screenshot file'.split(' ');
  const prose = Array.from({ length: 20_000 }, () => words[Math.floor(random() * words.length)]).join(' ');
  const textOf = (min: number, max: number): string => {
    const length = min + Math.floor(random() * (max - min));
    const start = Math.floor(random() * (prose.length - length));
    return prose.slice(start, start + length);
  };
  const messages = images * MESSAGES_PER_IMAGE;
  const cycles = Math.ceil(messages / 4);
  const out = createWriteStream(file);
  const summary: Generated = { messages: 0, images: 0, withinLimits: 0, bytes: 0 };
  let pending = '';
  const write = async (message: Record<string, unknown>): Promise<void> => {
    if (summary.messages >= messages) return;
    message.id = summary.messages++;
    pending += JSON.stringify(message) + '\n';
    if (pending.length > 1 << 20) {
      summary.bytes += pending.length;
      const ok = out.write(pending);
      pending = '';
      if (!ok) await once(out, 'drain');
    }
  };
  // Images spread evenly over the cycles; every tenth goes into a user prompt, the rest into tool results.
  let due = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    due += images / cycles;
    let picture: PoolImage | undefined;
    if (due >= 1 && summary.images < images) {
      due -= 1;
      picture = pool[summary.images % pool.length]!;
      summary.images++;
      if (picture.withinLimits) summary.withinLimits++;
    }
    const block = picture && { type: 'image', data: picture.data, mimeType: picture.mimeType };
    const inPrompt = block !== undefined && summary.images % 10 === 0;
    await write({ role: 'user', content: inPrompt ? [{ type: 'text', text: textOf(200, 800) }, block] : textOf(200, 800), timestamp: 1e12 + cycle });
    const callId = `call_${cycle}`;
    await write({ role: 'assistant', content: [{ type: 'text', text: textOf(100, 400) }, { type: 'toolCall', id: callId, name: 'read', arguments: { path: textOf(20, 60), note: textOf(200, 1000) } }], stopReason: 'toolUse' });
    await write({ role: 'toolResult', toolCallId: callId, toolName: 'read', content: block && !inPrompt ? [{ type: 'text', text: 'Read image file' }, block] : [{ type: 'text', text: textOf(500, 4000) }], isError: false });
    await write({ role: 'assistant', content: [{ type: 'text', text: textOf(200, 1000) }], stopReason: 'stop' });
  }
  summary.bytes += pending.length;
  out.write(pending);
  out.end();
  await finished(out);
  return summary;
}

// ---------------------------------------------------------------------------------------
// Runs and checks

interface ChildResult {
  ms: number;
  maxRssKb: number;
  messagesIn: number;
  messagesOut: number;
  images: Record<string, number>;
  sharpThreads: number;
}

const run = promisify(execFile);
const self = fileURLToPath(import.meta.url);

/**
 * The child's node flags and environment: the command's own (bench/cli-settings.ts) unless
 * --node-defaults; --malloc-arena-max and --max-old-space-size override either.
 */
function childSettings(): { execArgv: string[]; env: NodeJS.ProcessEnv; label: string } {
  const base = values['node-defaults'] ? { execArgv: [], env: { ...process.env }, label: "node's defaults" } : cliChildSettings();
  let execArgv = [...base.execArgv];
  const env = { ...base.env };
  if (values['node-defaults']) delete env.MALLOC_ARENA_MAX;
  if (values['max-old-space-size'] !== undefined) {
    execArgv = execArgv.filter((flag) => !flag.startsWith('--max-old-space-size'));
    execArgv.push(`--max-old-space-size=${values['max-old-space-size']}`);
  }
  if (values['malloc-arena-max'] !== undefined) env.MALLOC_ARENA_MAX = values['malloc-arena-max'];
  const label = `MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX ?? 'unset'} ${execArgv.join(' ') || '(no heap flag)'}${values['node-defaults'] ? '' : " (the command's settings)"}`;
  return { execArgv, env, label };
}
const settings = childSettings();

async function runCase(mode: string, input: string, output: string, concurrency: number): Promise<ChildResult> {
  const args = [...settings.execArgv, '--import', 'tsx', self, '--child', mode, input, output, String(concurrency)];
  if (values['sharp-threads'] !== undefined) args.push('--sharp-threads', values['sharp-threads']);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 24, env: settings.env });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as ChildResult;
}

/** Reads the output back: every image within the limits, every message there, in order. */
async function verify(output: string, generated: Generated): Promise<void> {
  let expected = 0;
  let images = 0;
  const lines = createInterface({ input: createReadStream(output, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const message = JSON.parse(line) as { id: number; content: unknown };
    if (message.id !== expected) throw new Error(`output message ${expected}: got id ${message.id}`);
    expected++;
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type: string; data?: string; mimeType?: string }>) {
      if (block.type !== 'image') continue;
      images++;
      const bytes = Buffer.from(block.data!, 'base64');
      const header = probeImageHeader(bytes);
      if (header === undefined || header.width > MAX_SIDE || header.height > MAX_SIDE || header.width * header.height > 25_000_000 || bytes.length > MAX_BYTES) {
        throw new Error(`output image in message ${message.id} is over the limits: ${JSON.stringify(header)} ${bytes.length} B`);
      }
    }
  }
  if (expected !== generated.messages) throw new Error(`output has ${expected} messages, input ${generated.messages}`);
  if (images !== generated.images) throw new Error(`output has ${images} images, input ${generated.images}`);
}

const sizes = (values.sizes ?? '500,2000').split(',').map(Number);
const widths = (values.concurrency ?? '1,2,4').split(',').map(Number);
const modes = (values.modes ?? 'stage,pipeline').split(',');
const dir = await mkdtemp(path.join(values.dir ?? tmpdir(), 'th-bench-images-'));
process.stdout.write(
  `image bench: ${availableParallelism()} cores, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}, sharp ${sharp.versions.sharp} / libvips ${sharp.versions.vips}, ` +
    `sharp threads ${values['sharp-threads'] ?? "sharp's default (per row)"}, ${settings.label}, load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}, node ${process.version}\n`,
);

try {
  const t0 = performance.now();
  const pool = await imagePool();
  process.stdout.write(`image pool (${Math.round(performance.now() - t0)} ms): ${pool.map((p) => `${p.name} ${(p.bytes / 1e6).toFixed(1)} MB`).join('; ')}\n\n`);
  process.stdout.write(`${'mode'.padEnd(8)} ${'images'.padStart(6)} ${'messages'.padStart(8)} ${'file'.padStart(7)}  width ${'wall'.padStart(8)} ${'images/s'.padStart(8)} ${'peak RSS'.padStart(9)}  resized kept omitted\n`);
  const rows: unknown[] = [];
  for (const images of sizes) {
    const input = path.join(dir, `session-${images}.jsonl`);
    const generated = await generate(input, images, pool);
    const fileBytes = (await stat(input)).size;
    for (const mode of modes) {
      for (const width of widths) {
        const output = path.join(dir, `out-${images}-${width}.jsonl`);
        const result = await runCase(mode, input, output, width);
        if (!values['no-verify']) await verify(output, generated);
        if (result.messagesOut !== generated.messages) throw new Error(`lost messages: ${result.messagesOut} of ${generated.messages}`);
        const resized = result.images.resized ?? 0;
        const kept = (result.images.kept ?? 0) + (result.images.canonicalized ?? 0);
        const omitted = result.images.omitted ?? 0;
        if (resized + kept + omitted !== generated.images || omitted !== 0 || kept !== generated.withinLimits) {
          throw new Error(`image counts ${JSON.stringify(result.images)} for ${generated.images} images (${generated.withinLimits} within limits)`);
        }
        const row = {
          mode,
          images,
          messages: generated.messages,
          fileMb: Math.round(fileBytes / 1e6),
          concurrency: width,
          seconds: Number((result.ms / 1000).toFixed(1)),
          imagesPerSecond: Number((generated.images / (result.ms / 1000)).toFixed(1)),
          peakRssMb: Math.round(result.maxRssKb / 1024),
          resized,
          kept,
          omitted,
        };
        rows.push({ ...row, sharpThreads: result.sharpThreads, loadAverage: Number(loadavg()[0]!.toFixed(1)) });
        process.stdout.write(
          `${mode.padEnd(8)} ${String(images).padStart(6)} ${String(row.messages).padStart(8)} ${String(row.fileMb).padStart(4)} MB  ${String(width).padStart(5)} ${row.seconds.toFixed(1).padStart(7)}s ${row.imagesPerSecond.toFixed(1).padStart(8)} ${String(row.peakRssMb).padStart(6)} MB  ${String(resized).padStart(7)} ${String(kept).padStart(4)} ${String(omitted).padStart(7)}  sharp threads ${result.sharpThreads}, load ${loadavg()[0]!.toFixed(1)}\n`,
        );
        await rm(output, { force: true });
      }
    }
    if (!values.keep) await rm(input, { force: true });
  }
  process.stdout.write(`\n${JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: availableParallelism(), settings: settings.label, rows })}\n`);
} finally {
  if (!values.keep) await rm(dir, { recursive: true, force: true });
}
