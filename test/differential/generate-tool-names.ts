/**
 * Random transcripts for tool-call names (issue 20, item 10: ours): calls whose names fail the
 * reference's name check (spec tool-calls.md §2.3: MCP-style `mcp.s3/list_objects`, spaces, over
 * 64 characters, blank, not a string, missing), names inside it that a provider's pattern rejects
 * (`ns:tool.v1` on Bedrock and OpenAI, `1read` on Gemini) and valid ones, answered by a real
 * result or not, results displaced after a user turn, string results, results named after their
 * call or not, and signed thinking turns on the routes that replay them whole.
 *
 * The reference drops every call of the first kind with its result; the project keeps the ones a
 * tool answered. The recorder asks the reference about them under placeholder names
 * (answered-names.ts), so the rest of each answer is still the reference's.
 *
 * Kept out, where the project deliberately differs for other reasons (spec/README.md): provider
 * `mistral` and Claude behind `google-antigravity`; histories that do not start with a user turn.
 */
import type { DifferentialCase, DifferentialOptions } from './cases.ts';
import { CLOCK, type Json } from './generate-thinking.ts';
import { Random, hashSeed } from './random.ts';

interface NamesRoute {
  key: string;
  options: DifferentialOptions;
  /** Signed Anthropic thinking may lead an assistant turn. */
  signed?: boolean;
}

const ROUTES: readonly NamesRoute[] = [
  { key: 'anthropic-sonnet', signed: true, options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' } },
  { key: 'anthropic-opus', signed: true, options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' } },
  { key: 'minimax', signed: true, options: { provider: 'minimax', modelApi: 'anthropic-messages', modelId: 'MiniMax-M2' } },
  { key: 'bedrock', signed: true, options: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' } },
  { key: 'gemini', options: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' } },
  { key: 'openai-responses', options: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' } },
  { key: 'openai-chat', options: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' } },
  { key: 'openrouter-mistral', options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'mistralai/mistral-large' } },
  { key: 'vllm', options: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' } },
];

const MISSING = Symbol('missing');

/** Names by kind; `MISSING` leaves the field out. */
const NAMES: ReadonlyArray<readonly [tag: string, name: unknown]> = [
  ['valid', 'read'],
  ['valid', 'exec_command'],
  ['provider-invalid', 'ns:tool.v1'],
  ['provider-invalid', '1read'],
  ['malformed', 'mcp.s3/list_objects'],
  ['malformed', 'web search'],
  ['malformed', ' list files '],
  ['malformed', `server.${'x'.repeat(70)}`],
  ['malformed', ''],
  ['malformed', '  '],
  ['malformed', 42],
  ['malformed', MISSING],
];

function generateCase(index: number, seed: number): DifferentialCase {
  const rng = new Random(hashSeed('tool-names', seed, index));
  const route = ROUTES[index % ROUTES.length]!;
  const tags = new Set<string>();
  let time = CLOCK - 1_000_000;
  const at = (): number => (time += 1000);
  const messages: Json[] = [{ role: 'user', content: 'start', timestamp: at() }];
  const episodes = rng.int(1, 3);
  let nextId = 1;
  for (let e = 0; e < episodes; e++) {
    const calls: Array<{ id: string; name: unknown }> = [];
    const content: Json[] = [];
    if (route.signed && rng.chance(0.4)) {
      content.push({ type: 'thinking', thinking: 'plan', thinkingSignature: `sig${rng.alphanumeric(8)}` });
      tags.add('signed');
    }
    const count = rng.int(1, 3);
    for (let c = 0; c < count; c++) {
      const [tag, name] = rng.pick(NAMES);
      tags.add(tag);
      const id = rng.chance(0.2) ? `call-${nextId++}` : `call_${nextId++}`;
      const block: Json = { type: 'toolCall', id, arguments: { n: c } };
      if (name !== MISSING) block.name = name;
      content.push(block);
      calls.push({ id, name });
    }
    if (rng.chance(0.3)) content.push({ type: 'text', text: 'working' });
    messages.push({ role: 'assistant', content, stopReason: 'toolUse', timestamp: at() });
    const answered = calls.filter(() => rng.chance(0.75));
    if (answered.length < calls.length) tags.add('unanswered');
    const displaced = answered.length > 0 && rng.chance(0.15);
    if (displaced) {
      messages.push({ role: 'user', content: 'meanwhile', timestamp: at() });
      tags.add('displaced');
    }
    for (const call of answered) {
      const toolName = rng.weighted<unknown>([
        [typeof call.name === 'string' ? call.name : 'read', 6],
        ['', 1],
        ['other_tool', 1],
      ]);
      const output = `output of ${call.id}`;
      messages.push({
        role: 'toolResult',
        toolCallId: call.id,
        toolName,
        content: rng.chance(0.15) ? output : [{ type: 'text', text: output }],
        isError: false,
        timestamp: at(),
      });
    }
    messages.push(rng.chance(0.5) ? { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop', timestamp: at() } : { role: 'user', content: 'next', timestamp: at() });
    if (messages[messages.length - 1]!.role === 'assistant') messages.push({ role: 'user', content: 'go on', timestamp: at() });
  }
  const name = `tool-names ${seed}:${String(index).padStart(4, '0')} ${route.key} ${messages.length}msg [${[...tags].sort().join(',')}]`;
  return { name, options: route.options, messages };
}

export function generateToolNameCases(seed: number, count: number): DifferentialCase[] {
  return Array.from({ length: count }, (_, index) => generateCase(index, seed));
}
