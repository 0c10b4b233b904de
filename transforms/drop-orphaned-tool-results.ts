/**
 * drop-orphaned-tool-results: our provider rule, not the reference's. As the very last replay
 * step, a tool result must answer a call of the assistant turn right before it (only other
 * results in between), by its `toolCallId`, once; any other result is dropped.
 *
 * Why: pairing repair runs before turn validation, and validation can still orphan results: a
 * signed thinking turn whose call name does not match its result's becomes `[tool calls
 * omitted]` with its results left in place (spec turns-images-policy.md §3.3, E13), and a
 * result whose id is only in an alias field or padded with spaces keeps an id no call has
 * (spec/README.md, "Provider rules come before the reference"). Anthropic rejects those
 * ("unexpected tool_use_id found in tool_result blocks"), and chat-completions servers reject a
 * tool message that follows no tool_calls. Responses routes are left to the replay invariant,
 * which refuses such a transcript by design.
 *
 * Unit: message, with the previous assistant's call ids as state. Counter: `dropped`.
 */
import type { BufferedRule, Emit, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import { isPairedCallBlock } from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

/** The whole-array form, for tests. */
export function dropOrphanedToolResults(messages: readonly Message[]): { messages: Message[]; dropped: number } {
  const out: Message[] = [];
  const filter = new OrphanedResultFilter(() => {});
  for (const message of messages) filter.push(message, (m) => out.push(m));
  return { messages: out, dropped: filter.dropped };
}

class OrphanedResultFilter implements RuleProcessor {
  /** Call ids of the assistant the current run of results follows, with how many calls are still unanswered. */
  private open = new Map<string, number>();
  dropped = 0;

  constructor(private readonly count: (counter: string) => void) {}

  push(message: Message, emit: Emit): void {
    if (message.role === 'toolResult') {
      const id = message.toolCallId;
      const waiting = typeof id === 'string' ? this.open.get(id) : undefined;
      if (waiting !== undefined) {
        if (waiting === 1) this.open = deleteKey(this.open, id as string);
        else this.open.set(id as string, waiting - 1);
        emit(message);
        return;
      }
      this.dropped++;
      this.count('dropped');
      return;
    }
    if (this.open.size > 0) this.open = new Map();
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content) if (isPairedCallBlock(block)) this.open.set(block.id, (this.open.get(block.id) ?? 0) + 1);
    }
    emit(message);
  }

  end(): void {}
}

export function dropOrphanedToolResultsEnabled(policy: TranscriptPolicy): boolean {
  return !policy.responsesFamily;
}

export const dropOrphanedToolResultsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'drop-orphaned-tool-results',
    summary: 'Ours: drops a tool result that does not answer, by toolCallId, a call of the assistant turn right before it (left behind by "[tool calls omitted]" or an id only in an alias field).',
    counters: ['dropped'],
  },
  create: (ctx) => new OrphanedResultFilter(ctx.count),
};
