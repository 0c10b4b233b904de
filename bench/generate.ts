/**
 * Seeded generator of realistic agent sessions for benchmarks (never committed: generated
 * into a temporary directory at run time).
 *
 * A session is a run of exchanges: a user prompt; an assistant turn with a signed thinking
 * block, a sentence and 1-3 tool calls whose JSON arguments are 1-4 KB; their results,
 * 0.5-20 KB each; sometimes another tool round; then an assistant answer. A few results
 * are displaced behind the next user prompt or missing, as crashes and interrupted runs
 * leave them. `session` format writes OpenClaw session entries (header, `message` entries
 * linked by id/parentId, a compaction now and then); `messages` writes bare messages.
 *
 * The `mixed-provider` workload (issue 19) is a session that switched models: assistant turns
 * alternate between Anthropic-shaped turns (`toolu_` call ids, signed thinking) and
 * OpenAI-Responses-shaped ones (`call_…|fc_…` ids, `rs_` reasoning items as thinking
 * signatures) every 40-80 turns, so on either route many turns carry ids or thinking the rules
 * rewrite. Signed thinking on 85% of assistant turns; 1-3 tool calls a turn with 1-4 KB of
 * arguments; results of 0.5-20 KB, log-uniform; 1 in 1,000 results missing and 1 in 1,000
 * displaced behind the next 1-3 frames; 0.3% of assistant turns aborted or errored (their
 * calls get no results). About 5.4 KB a message.
 *
 * The `mixed-details` workload (issue 27) is the same session where nearly every tool result
 * (95%) also carries pi's runtime-only `details` (an exit code and truncation, a diff, a path),
 * which every route strips: most lines change, as on the held-out workload of that issue.
 *
 * Usage: node --import tsx bench/generate.ts --messages 100000 [--format session|messages] [--workload agent|mixed-provider|mixed-details] [--seed 1] [--compaction-every 20000] OUT.jsonl
 * (--compaction-every: a compaction entry about every N messages of a session file; 0 for none, as `npm run bench` writes them)
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { benchArgs, benchUsageError } from './args.ts';

export type Workload = 'agent' | 'mixed-provider' | 'mixed-details';

export interface GenerateOptions {
  messages: number;
  /** `agent` (default): the Anthropic agent session above; `mixed-provider`: the model-switching one. */
  workload?: Workload;
  format?: 'session' | 'messages';
  seed?: number;
  /** Fraction of results moved behind the next user prompt. */
  displacedRate?: number;
  /** Fraction of results left out. */
  missingRate?: number;
  /** A compaction entry about every this many messages (session format only; 0 for none). */
  compactionEvery?: number;
  /** Multiplies text sizes (arguments, results, prose); the gate uses a smaller scale to stay quick. */
  payloadScale?: number;
}

export interface GenerateSummary {
  messages: number;
  bytes: number;
  toolCalls: number;
  displaced: number;
  missing: number;
}

/** mulberry32: small, fast, good enough for shaping test data. */
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

const WORDS = (
  'the parser reads each line splits on newline and hands the record to the next stage while the writer ' +
  'keeps a buffer of pending output so that backpressure from the destination pauses the reader before ' +
  'memory grows function returns value error handling test case file path config option stream chunk ' +
  'message result call tool assistant user thinking signature replay provider request response session'
).split(' ');

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

class TextSource {
  private readonly pool: string;
  constructor(private readonly random: () => number) {
    const words: string[] = [];
    for (let i = 0; i < 40_000; i++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    this.pool = words.join(' ');
  }

  /** Prose of about `length` characters, cut from a pre-built pool (no per-character work). */
  text(length: number): string {
    const start = Math.floor(this.random() * (this.pool.length - length - 1));
    return this.pool.slice(start, start + length);
  }

  token(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALNUM[Math.floor(this.random() * ALNUM.length)];
    return out;
  }
}

export async function generateSession(path: string, options: GenerateOptions): Promise<GenerateSummary> {
  const random = prng(options.seed ?? 1);
  const source = new TextSource(random);
  const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const scale = options.payloadScale ?? 1;
  const sized = (min: number, max: number): number => Math.max(1, Math.round(between(min, max) * scale));
  const format = options.format ?? 'session';
  const mixed = options.workload === 'mixed-provider' || options.workload === 'mixed-details';
  const withDetails = options.workload === 'mixed-details';
  const displacedRate = options.displacedRate ?? (mixed ? 0.001 : 0.01);
  const missingRate = options.missingRate ?? (mixed ? 0.001 : 0.005);
  const compactionEvery = format === 'session' ? (options.compactionEvery ?? 20_000) : 0;
  const out = createWriteStream(path);
  const summary: GenerateSummary = { messages: 0, bytes: 0, toolCalls: 0, displaced: 0, missing: 0 };
  let pending: string[] = [];
  let pendingChars = 0;
  let clock = Date.UTC(2026, 6, 20);
  let entryId = 0;
  let parentId: string | null = null;
  let sinceCompaction = 0;

  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingChars = 0;
    summary.bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  const writeLine = async (value: unknown): Promise<void> => {
    const line = JSON.stringify(value) + '\n';
    pending.push(line);
    pendingChars += line.length;
    if (pendingChars > 1 << 20) await flush();
  };
  const nextId = (): string => (entryId++).toString(16).padStart(8, '0');
  const writeMessage = async (message: Record<string, unknown>): Promise<void> => {
    clock += between(200, 4000);
    message.timestamp = clock;
    summary.messages++;
    sinceCompaction++;
    if (format === 'messages') return writeLine(message);
    const id = nextId();
    await writeLine({ type: 'message', id, parentId, timestamp: new Date(clock).toISOString(), message });
    parentId = id;
  };
  const usage = (): Record<string, number> => {
    const input = between(1000, 60_000);
    const output = between(20, 2000);
    return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output };
  };
  const assistantFields = (stopReason: string): Record<string, unknown> => ({
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: usage(),
    stopReason,
  });
  const thinkingBlock = (): Record<string, unknown> => ({
    type: 'thinking',
    thinking: source.text(sized(100, 800)),
    thinkingSignature: source.token(between(300, 400)),
  });
  const toolArguments = (): Record<string, unknown> => ({
    path: `src/${source.token(8)}.ts`,
    command: source.text(sized(1000, 4000)),
  });

  if (format === 'session') {
    await writeLine({ type: 'session', version: 3, id: '01982a6e-5c00-7a3b-9d2e-4f1c8b7a6e01', timestamp: new Date(clock).toISOString(), cwd: '/srv/project' });
  }

  if (mixed) {
    // The mixed-provider exchange loop: see the header.
    const PROVIDERS = {
      anthropic: { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' },
      openai: { api: 'openai-responses', provider: 'openai', model: 'gpt-5' },
    } as const;
    let shape: keyof typeof PROVIDERS = 'anthropic';
    let turnsLeft = between(40, 80);
    // Results held back, each with the number of frames still to pass before it is written.
    let held: Array<{ result: Record<string, unknown>; frames: number }> = [];
    const logUniform = (min: number, max: number): number => Math.max(1, Math.round(min * Math.pow(max / min, random()) * scale));
    const thinking = (): Record<string, unknown> => {
      const text = source.text(sized(100, 800));
      if (shape === 'anthropic') return { type: 'thinking', thinking: text, thinkingSignature: source.token(between(300, 400)) };
      const item = { type: 'reasoning', id: `rs_${source.token(48)}`, summary: [{ type: 'summary_text', text: text.slice(0, 200) }], encrypted_content: source.token(between(400, 1200)) };
      return { type: 'thinking', thinking: text, thinkingSignature: JSON.stringify(item) };
    };
    /** A pi-like `details` payload: exit code and truncation for bash, a diff for edit, a path and line count otherwise. */
    const toolDetails = (name: string): Record<string, unknown> => {
      if (name === 'bash') return { exitCode: between(0, 2), truncation: { truncated: random() < 0.2, totalLines: between(1, 4000), outputLines: between(1, 2000) }, fullOutputPath: `/tmp/pi-bash-${source.token(12)}.log` };
      if (name === 'edit') return { diff: source.text(logUniform(200, 3000)), firstChangedLine: between(1, 900) };
      return { path: `src/${source.token(8)}.ts`, lines: between(1, 4000), truncated: random() < 0.1 };
    };
    const callId = (): string => (shape === 'anthropic' ? `toolu_01${source.token(22)}` : `call_${source.token(24)}|fc_${source.token(48)}`);
    const text = (length: number): Record<string, unknown> =>
      shape === 'anthropic' ? { type: 'text', text: source.text(length) } : { type: 'text', text: source.text(length), textSignature: JSON.stringify({ v: 1, id: `msg_${source.token(48)}` }) };
    /** One assistant turn: its content, stop reason and (for a stopped turn) error message. */
    const assistant = async (content: unknown[], stopReason: string): Promise<void> => {
      const fields: Record<string, unknown> = { ...PROVIDERS[shape], usage: usage(), stopReason };
      if (stopReason === 'error') fields.errorMessage = 'terminated: upstream connection reset';
      await writeMessage({ role: 'assistant', content, ...fields });
      if (--turnsLeft === 0) {
        shape = shape === 'anthropic' ? 'openai' : 'anthropic';
        turnsLeft = between(40, 80);
      }
    };
    const releaseHeld = async (): Promise<void> => {
      const due = held.filter((h) => --h.frames <= 0);
      held = held.filter((h) => h.frames > 0);
      for (const h of due) await writeMessage(h.result);
    };
    while (summary.messages < options.messages) {
      await writeMessage({ role: 'user', content: source.text(sized(40, 500)) });
      const rounds = between(2, 6);
      let stopped = false;
      for (let round = 0; round < rounds && !stopped && summary.messages < options.messages; round++) {
        const signed = random() < 0.85;
        const calls = Array.from({ length: between(1, 3) }, () => ({
          type: 'toolCall',
          id: callId(),
          name: ['read', 'bash', 'edit', 'grep'][between(0, 3)]!,
          arguments: toolArguments(),
        }));
        summary.toolCalls += calls.length;
        const content = [...(signed ? [thinking()] : []), text(sized(20, 300)), ...calls];
        if (random() < 0.003) {
          // Aborted or errored mid-turn: the calls were never run.
          stopped = true;
          await assistant(content, random() < 0.5 ? 'aborted' : 'error');
          break;
        }
        await assistant(content, 'toolUse');
        for (const call of calls) {
          const result: Record<string, unknown> = { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: source.text(logUniform(500, 20_000)) }] };
          // mixed-details: the runtime's private payload on nearly every result, as pi writes it (after content).
          if (withDetails && random() < 0.95) result.details = toolDetails(call.name);
          result.isError = false;
          const roll = random();
          if (roll < missingRate) summary.missing++;
          else if (roll < missingRate + displacedRate) {
            summary.displaced++;
            held.push({ result, frames: between(1, 3) + 1 });
          } else await writeMessage(result);
        }
        await releaseHeld();
      }
      if (stopped || summary.messages >= options.messages) continue;
      await assistant([...(random() < 0.85 ? [thinking()] : []), text(sized(100, 1500))], 'stop');
    }
    for (const h of held) await writeMessage(h.result);
    held = [];
  }

  let displacedResults: Array<Record<string, unknown>> = [];
  while (!mixed && summary.messages < options.messages) {
    await writeMessage({ role: 'user', content: source.text(sized(40, 500)) });
    for (const result of displacedResults) await writeMessage(result);
    displacedResults = [];
    const rounds = random() < 0.3 ? 2 : 1;
    for (let round = 0; round < rounds && summary.messages < options.messages; round++) {
      const calls = Array.from({ length: between(1, 3) }, () => ({
        type: 'toolCall',
        id: `toolu_01${source.token(22)}`,
        name: ['read', 'bash', 'edit', 'grep'][between(0, 3)]!,
        arguments: toolArguments(),
      }));
      summary.toolCalls += calls.length;
      await writeMessage({
        role: 'assistant',
        content: [thinkingBlock(), { type: 'text', text: source.text(sized(20, 300)) }, ...calls],
        ...assistantFields('toolUse'),
      });
      for (const call of calls) {
        const result = {
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: source.text(sized(500, 20_000)) }],
          isError: false,
        };
        const roll = random();
        if (roll < missingRate) summary.missing++;
        else if (roll < missingRate + displacedRate) {
          summary.displaced++;
          displacedResults.push(result);
        } else await writeMessage(result);
      }
    }
    if (summary.messages >= options.messages) break;
    await writeMessage({ role: 'assistant', content: [thinkingBlock(), { type: 'text', text: source.text(sized(100, 1500)) }], ...assistantFields('stop') });
    if (compactionEvery > 0 && sinceCompaction >= compactionEvery) {
      sinceCompaction = 0;
      const id = nextId();
      await writeLine({ type: 'compaction', id, parentId, timestamp: new Date(clock).toISOString(), summary: source.text(2000), firstKeptEntryId: parentId, tokensBefore: 150_000 });
      parentId = id;
    }
  }
  await flush();
  out.end();
  await once(out, 'finish');
  return summary;
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'));
if (isMain) {
  const { values, positionals } = benchArgs(import.meta.url, {
    options: { messages: { type: 'string' }, format: { type: 'string' }, workload: { type: 'string' }, seed: { type: 'string' }, 'compaction-every': { type: 'string' } },
    allowPositionals: true,
  });
  const target = positionals[0];
  if (target === undefined || values.messages === undefined) benchUsageError(import.meta.url, '--messages N and OUT.jsonl are required');
  const count = (name: string, value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) benchUsageError(import.meta.url, `--${name}: ${value} is not a count`);
    return n;
  };
  const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T => {
    if (value === undefined) return allowed[0]!;
    if (!(allowed as readonly string[]).includes(value)) benchUsageError(import.meta.url, `--${name}: ${value} is not one of ${allowed.join(', ')}`);
    return value as T;
  };
  const summary = await generateSession(target, {
    messages: count('messages', values.messages, 0),
    format: oneOf('format', values.format, ['session', 'messages'] as const),
    workload: oneOf('workload', values.workload, ['agent', 'mixed-provider', 'mixed-details'] as const),
    seed: count('seed', values.seed, 1),
    compactionEvery: count('compaction-every', values['compaction-every'], 20_000),
  });
  process.stdout.write(JSON.stringify(summary) + '\n');
}
