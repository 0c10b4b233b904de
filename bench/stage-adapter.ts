/**
 * What the stage adapter costs: the same fused rule chain (every rule of a route) driven
 * three ways over the same in-memory messages, best of several rounds:
 *   chain      createPipeline, plain function calls (no stream at all)
 *   through2   createHygieneStream: the chain in one through2.obj Transform (lib/stage.ts)
 *   node       the chain in a node:stream Transform written here, for comparison
 * Prints nanoseconds per message and the through2/node ratio.
 *
 *   npm run bench:stage -- [--messages N] [--rounds N]
 */
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { benchArgs } from './args.ts';
import { createHygieneStream } from '../lib/index.ts';
import { createPipeline } from '../lib/pipeline.ts';
import type { Message } from '../lib/types.ts';

const { values } = benchArgs(import.meta.url, { options: { messages: { type: 'string' }, rounds: { type: 'string' } } });
const count = Number(values.messages ?? 200_000);
const rounds = Number(values.rounds ?? 5);
const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };

/** A user turn, an assistant turn with text and one tool call, its result: the common shape. */
function makeMessages(n: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; out.length < n; i++) {
    const id = `toolu_${i.toString(36).padStart(8, '0')}`;
    out.push({ role: 'user', content: `question ${i}`, timestamp: 1_700_000_000_000 + i } as Message);
    out.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `looking at item ${i}` },
        { type: 'toolCall', id, name: 'read', arguments: { path: `src/${i}.ts` } },
      ],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'toolUse',
      timestamp: 1_700_000_000_000 + i,
    } as unknown as Message);
    out.push({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: `contents of ${i}` }], isError: false, timestamp: 1_700_000_000_000 + i } as unknown as Message);
  }
  return out.slice(0, n);
}

function sink(): Writable {
  return new Writable({ objectMode: true, highWaterMark: 16, write: (_message, _encoding, callback) => callback() });
}

async function viaChain(messages: readonly Message[]): Promise<void> {
  const pipelineRun = createPipeline(route, () => {});
  for (const message of messages) {
    const wait = pipelineRun.write(message);
    if (wait !== undefined) await wait;
  }
  await pipelineRun.end();
  pipelineRun.dispose();
}

async function viaThrough2(messages: readonly Message[]): Promise<void> {
  await pipeline(Readable.from(messages), createHygieneStream(route), sink());
}

async function viaNodeTransform(messages: readonly Message[]): Promise<void> {
  let chain: ReturnType<typeof createPipeline>;
  const transform = new Transform({
    objectMode: true,
    highWaterMark: 16,
    transform(message, _encoding, callback) {
      const wait = chain.write(message);
      if (wait === undefined) callback();
      else wait.then(() => callback(), callback);
    },
    flush(callback) {
      Promise.resolve(chain.end()).then(() => callback(), callback);
    },
  });
  chain = createPipeline(route, (message) => transform.push(message));
  await pipeline(Readable.from(messages), transform, sink());
}

const messages = makeMessages(count);
const cases = { chain: viaChain, through2: viaThrough2, node: viaNodeTransform };
const best: Record<string, number> = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const started = process.hrtime.bigint();
    await run(messages);
    const ns = Number(process.hrtime.bigint() - started) / messages.length;
    best[name] = Math.min(best[name] ?? Infinity, ns);
  }
}
console.log(`${messages.length} messages, anthropic route, best of ${rounds} rounds (ns per message):`);
for (const [name, ns] of Object.entries(best)) console.log(`  ${name.padEnd(9)} ${ns.toFixed(0)}`);
console.log(`  through2 / node Transform: ${(best.through2! / best.node!).toFixed(2)}x; stream overhead over plain calls: through2 ${(best.through2! - best.chain!).toFixed(0)} ns, node ${(best.node! - best.chain!).toFixed(0)} ns`);
