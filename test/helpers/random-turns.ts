/**
 * Seeded generator of awkward message lists for the turn rules' stream-versus-array tests: runs of
 * same-role turns, role-less and unknown-role objects, tool calls with missing, blank, padded and
 * repeated ids, thinking turns, results that name other tools, ids in alias fields and in content
 * blocks, and now and then a long text so a small memory budget spills.
 */
import { hashSeed, mulberry32 } from '../differential/random.ts';
import type { Message } from '../../lib/types.ts';

export interface TurnGenerator {
  readonly next: () => number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

function generator(seed: number): TurnGenerator {
  const next = mulberry32(seed);
  return {
    next,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

const IDS: readonly unknown[] = ['c1', 'c2', 'c3', ' c1 ', '', '  ', undefined, 7];
const RESULT_IDS: readonly unknown[] = ['c1', 'c2', 'c3', 'c4', ' c2', '', undefined];
const NAMES: readonly unknown[] = ['read', 'read', 'write', '', undefined];
const ID_FIELDS = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'] as const;

function text(g: TurnGenerator): string {
  return g.chance(0.05) ? 'long '.repeat(300) : g.pick(['a', 'b', 'hello', ' ', 'x y']);
}

function withDefined(record: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(record)) if (record[key] === undefined) delete record[key];
  return record;
}

function call(g: TurnGenerator): Record<string, unknown> {
  return withDefined({ type: g.pick(['toolCall', 'toolCall', 'toolUse', 'functionCall']), id: g.pick(IDS), name: g.pick(NAMES), arguments: {} });
}

function assistant(g: TurnGenerator, t: number): Message {
  const blocks: unknown[] = [];
  if (g.chance(0.2)) blocks.push({ type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' });
  if (g.chance(0.05)) blocks.push({ type: g.pick(['redacted_thinking', 'redactedThinking']), data: 'r' });
  if (g.chance(0.6)) blocks.push({ type: 'text', text: text(g) });
  const calls = Math.floor(g.next() * 4);
  for (let i = 0; i < calls; i++) blocks.push(call(g));
  return withDefined({
    role: 'assistant',
    content: g.chance(0.1) ? text(g) : blocks,
    stopReason: g.pick(['stop', 'toolUse', 'toolUse', 'aborted', 'error', '', undefined]),
    usage: g.chance(0.3) ? { input: t } : g.pick([undefined, null, 0]),
    errorMessage: g.chance(0.1) ? 'boom' : undefined,
    model: g.chance(0.3) ? `m${t}` : undefined,
    timestamp: t,
  }) as Message;
}

function toolResult(g: TurnGenerator, t: number): Message {
  const message: Record<string, unknown> = { role: 'toolResult' };
  const field = g.chance(0.8) ? 'toolCallId' : g.pick(ID_FIELDS);
  message[field] = g.pick(RESULT_IDS);
  if (g.chance(0.15)) message[g.pick(ID_FIELDS)] = g.pick(RESULT_IDS);
  const toolName = g.pick(NAMES);
  if (toolName !== undefined) message.toolName = toolName;
  if (g.chance(0.1)) message.name = g.pick(['read', 'write']);
  message.content = g.chance(0.2) ? text(g) : [{ type: 'text', text: text(g) }];
  message.timestamp = t;
  return withDefined(message) as Message;
}

function user(g: TurnGenerator, t: number): Message {
  const content = g.pick<() => unknown>([
    () => text(g),
    () => [{ type: 'text', text: text(g) }],
    () => [{ type: 'text', text: text(g) }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    () => [withDefined({ type: g.pick(['toolResult', 'tool']), [g.pick(ID_FIELDS)]: g.pick(RESULT_IDS) })],
    () => 42,
    () => undefined,
  ])();
  return withDefined({
    role: 'user',
    content,
    timestamp: g.pick([t, t, null, undefined]),
    provenance: g.chance(0.1) ? { kind: 'inter_session' } : undefined,
    idempotencyKey: g.chance(0.2) ? `k${t}` : undefined,
  }) as Message;
}

function other(g: TurnGenerator, t: number): Message {
  return g.pick<() => Message>([
    () => withDefined({ role: 'tool', [g.pick(ID_FIELDS)]: g.pick(RESULT_IDS), ...(g.chance(0.5) ? { name: g.pick(['read', 'write']) } : {}), content: 'r', timestamp: t }) as Message,
    () => withDefined({ content: g.pick([text(g), [{ type: 'text', text: 'roleless' }], undefined]), timestamp: t }) as Message,
    () => ({ role: '', content: 'falsy role', timestamp: t }),
    () => ({ role: 'custom', content: 'c', timestamp: t }),
    () => ({ role: 'compactionSummary', summary: 's', timestamp: t }),
  ])();
}

/**
 * One generated message list; the same seed always gives the same list. Every value survives a
 * JSON round trip (no `undefined` fields), so spilled messages come back equal.
 */
export function generateTurns(seed: number, options: { nonObjects?: boolean } = {}): Message[] {
  const g = generator(hashSeed('turns', seed));
  const length = Math.floor(g.next() * 24);
  const out: Message[] = [];
  for (let t = 1; t <= length; t++) {
    const r = g.next();
    if (options.nonObjects && r < 0.03) out.push(g.pick([null, 0, '', 'str', 5]) as unknown as Message);
    else if (r < 0.3) out.push(assistant(g, t));
    else if (r < 0.55) out.push(toolResult(g, t));
    else if (r < 0.85) out.push(user(g, t));
    else out.push(other(g, t));
  }
  return out;
}
