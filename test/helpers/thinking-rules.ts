/**
 * Test helpers for the thinking / reasoning rules: run one rule through the real rule chain,
 * and generate random transcripts rich in thinking blocks, signatures, tool calls, users,
 * results and compaction summaries (for the streaming-equals-whole-array checks).
 */
import type { Message } from '../../lib/types.ts';
import { mulberry32, hashSeed } from '../differential/random.ts';

/** One rule through the real chain: shared with the other rules' tests. */
import { runRule, type RunRuleInit } from './run-rule.ts';
import type { Rule } from '../../lib/rule.ts';

export { runRule, type RunRuleResult as RunResult } from './run-rule.ts';

const SIGNATURES: readonly unknown[] = ['SIG', 'c2lnbmF0dXJl', '', '   ', null, 7, 'msg_abc', 'YWJj ZA=='];
const REASONING_ITEM = '{"type":"reasoning","id":"rs_1","summary":[]}';

/** A random transcript of `length` messages (seeded: the same seed gives the same list). */
export function randomThinkingTranscript(seed: number, length: number): Message[] {
  const random = mulberry32(hashSeed('thinking-rules', seed));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number): boolean => random() < p;
  let clock = 1000;
  let callId = 0;
  const openCalls: string[] = [];
  const timestamp = (): unknown => {
    clock += 1 + Math.floor(random() * 20);
    if (chance(0.1)) return undefined;
    if (chance(0.1)) return new Date(clock).toISOString();
    if (chance(0.03)) return 'yesterday';
    return clock;
  };
  const withTimestamp = (message: Record<string, unknown>): Message => {
    const ts = timestamp();
    return (ts === undefined ? message : { ...message, timestamp: ts }) as Message;
  };
  const thinkingBlock = (): Record<string, unknown> => {
    const kind = random();
    if (kind < 0.15) return { type: 'redacted_thinking', data: pick(SIGNATURES) };
    const block: Record<string, unknown> = { type: 'thinking', thinking: pick(['plan', 'x', '']) };
    const field = pick(['thinkingSignature', 'signature', 'thought_signature', 'thoughtSignature', 'none', 'reasoning']);
    if (field === 'reasoning') block.thinkingSignature = REASONING_ITEM;
    else if (field !== 'none') block[field] = pick(SIGNATURES);
    return block;
  };
  const assistantBlocks = (): unknown[] => {
    const blocks: unknown[] = [];
    const n = Math.floor(random() * 4);
    for (let i = 0; i < n; i++) {
      const kind = random();
      if (kind < 0.45) blocks.push(thinkingBlock());
      else if (kind < 0.7) blocks.push({ type: 'text', text: pick(['a', 'answer', 'x']), ...(chance(0.2) ? { textSignature: '{"v":1,"id":"msg_1","phase":"final_answer"}' } : {}) });
      else {
        const id = `call_${++callId}`;
        openCalls.push(id);
        blocks.push({ type: pick(['toolCall', 'toolCall', 'tool_use', 'toolUse', 'function_call']), id, name: 'read', arguments: {} });
      }
    }
    return blocks;
  };
  const out: Message[] = [];
  for (let i = 0; i < length; i++) {
    const kind = random();
    if (kind < 0.2) {
      out.push(withTimestamp({ role: 'user', content: pick(['q', 'next', 'go on']) }));
    } else if (kind < 0.6) {
      const content = chance(0.05) ? 'plain text' : assistantBlocks();
      out.push(withTimestamp({ role: 'assistant', content, stopReason: pick(['stop', 'toolUse', 'length', 'error']) }));
    } else if (kind < 0.85) {
      const id = openCalls.length > 0 && chance(0.8) ? openCalls.shift()! : 'orphan';
      out.push(withTimestamp({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false }));
    } else if (kind < 0.93) {
      // Summaries sometimes carry a time from the past, so later assistants can fall on either side.
      const summary = withTimestamp({ role: 'compactionSummary', summary: 'sum', tokensBefore: 100 });
      out.push(chance(0.3) && typeof summary.timestamp === 'number' ? { ...summary, timestamp: summary.timestamp - Math.floor(random() * 200) } : summary);
    } else {
      out.push(withTimestamp({ role: 'custom', customType: 'note', content: 'n' }));
    }
  }
  return out;
}

/** Streams `messages` through `rule` and records how many messages had come out after each write. */
export function emissionTrace(
  rule: Rule,
  messages: readonly Message[],
  init: RunRuleInit = {},
): { output: Message[]; emittedAfter: number[] } {
  const { output, emittedAfter } = runRule(rule, messages, init);
  return { output, emittedAfter };
}
