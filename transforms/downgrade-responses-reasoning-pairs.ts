/**
 * downgrade-responses-reasoning-pairs (spec tool-calls.md §7, Rule E; tool-calls.md §1.1 step 3,
 * after normalize-responses-tool-call-ids; OpenAI Responses routes only).
 *
 * Invariant: a replayed `call_…|fc_…` id keeps its `fc_` item only when a replayable reasoning
 * block (`thinking` whose signature is an `rs_…` reasoning item) comes earlier in the same
 * assistant turn; otherwise the id is cut to its call part, and the results directly following the
 * turn (`toolCallId`, `toolUseId`) follow it.
 *
 * Error prevented: OpenAI rejects a replayed `function_call` carrying an `fc_` item id whose
 * reasoning item is missing from the turn.
 *
 * Unit: buffered, but it never holds a message: the only state is the rewrite record of the
 * previous assistant, which applies to the unbroken run of results right after it and is cleared by
 * any other message. Counters: `downgraded` (call ids cut), `resultsRewritten`, `checkpointsRemoved`
 * (§3.3). Untouched messages are returned as the same object.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { isCallTypeBlock, withCopiedBlocks } from './tool-call-shapes.ts';
import { splitResponsesToolCallId } from './normalize-responses-tool-call-ids.ts';
import { recordEdits, setBlockField, setField, type MessageEdit } from '../lib/message-edits.ts';

/** A parsed reasoning signature: `id` starts with `rs_`, `type` is `reasoning` or `reasoning.*`. */
function isReasoningItem(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { id, type } = value;
  return typeof id === 'string' && id.startsWith('rs_')
    && typeof type === 'string' && (type === 'reasoning' || type.startsWith('reasoning.'));
}

/**
 * A replayable reasoning block: `type: "thinking"` whose `thinkingSignature` is an object, or a
 * string that, trimmed, starts with `{`, ends with `}` and parses, describing an `rs_` reasoning item.
 */
export function isReplayableReasoningBlock(block: unknown): boolean {
  if (!isRecord(block) || block.type !== 'thinking') return false;
  const signature = block.thinkingSignature;
  if (typeof signature === 'string') {
    const trimmed = signature.trim();
    if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return false;
    try {
      return isReasoningItem(JSON.parse(trimmed));
    } catch {
      return false;
    }
  }
  return isReasoningItem(signature);
}

/** The call part of an id whose split item starts with `fc_`, or undefined. */
function downgradedId(id: string): string | undefined {
  const { callId, itemId } = splitResponsesToolCallId(id);
  return itemId !== undefined && itemId.startsWith('fc_') ? callId : undefined;
}

export interface DowngradeTally {
  downgraded: number;
  resultsRewritten: number;
  checkpointsRemoved: number;
}

/** Rule E's per-stream state: feed messages in order; each comes back rewritten or as the same object. */
export class ReasoningPairDowngrader {
  /** old id → call id, for the results right after the previous assistant. */
  private record: Map<string, string> | undefined;

  constructor(private readonly tally?: DowngradeTally) {}

  apply(message: Message): Message {
    if (!isRecord(message)) {
      this.record = undefined;
      return message;
    }
    const role = message.role;
    if (role === 'toolResult') return this.record === undefined ? message : this.applyResult(message, this.record);
    this.record = undefined;
    if (role === 'assistant') return this.applyAssistant(message);
    return message;
  }

  private applyAssistant(message: Message): Message {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    // Scan first: most turns have no `|fc_` id, and then no signature needs parsing.
    let first = -1;
    for (let i = 0; i < content.length; i++) {
      const block: unknown = content[i];
      if (isCallTypeBlock(block) && typeof block.id === 'string' && downgradedId(block.id) !== undefined) {
        first = i;
        break;
      }
    }
    if (first === -1) return message;
    let seen = false;
    for (let i = 0; i < first; i++) {
      if (isReplayableReasoningBlock(content[i])) {
        seen = true;
        break;
      }
    }
    if (seen) return message;
    let out: ContentBlock[] | undefined;
    const edits: MessageEdit[] = [];
    const record = new Map<string, string>();
    for (let i = first; i < content.length; i++) {
      const block: unknown = content[i];
      if (isCallTypeBlock(block) && typeof block.id === 'string') {
        const next = downgradedId(block.id);
        if (next === undefined) continue;
        record.set(block.id, next);
        out ??= content.slice() as ContentBlock[];
        out[i] = { ...block, id: next };
        edits.push(setBlockField(i, 'id', block.id, next));
        if (this.tally) this.tally.downgraded++;
      } else if (isReplayableReasoningBlock(block)) {
        break; // later calls are protected by this reasoning
      }
    }
    if (out === undefined) return message;
    this.record = record;
    const copied = withCopiedBlocks(message, out);
    if (this.tally && copied.checkpointRemoved) this.tally.checkpointsRemoved++;
    // Only call ids changed, unless a checkpoint went too (then the copy is not described).
    return copied.checkpointRemoved ? copied.message : recordEdits(message, copied.message, edits);
  }

  private applyResult(message: Message, record: Map<string, string>): Message {
    const { toolCallId, toolUseId } = message;
    const nextCall = typeof toolCallId === 'string' ? record.get(toolCallId) : undefined;
    const nextUse = typeof toolUseId === 'string' ? record.get(toolUseId) : undefined;
    if (nextCall === undefined && nextUse === undefined) return message;
    const copy: Message = { ...message };
    const edits: MessageEdit[] = [];
    if (nextCall !== undefined) {
      copy.toolCallId = nextCall;
      edits.push(setField('toolCallId', toolCallId, nextCall));
    }
    if (nextUse !== undefined) {
      copy.toolUseId = nextUse;
      edits.push(setField('toolUseId', toolUseId, nextUse));
    }
    if (this.tally) this.tally.resultsRewritten++;
    // Recorded, so the writer patches the ids into the original line.
    return recordEdits(message, copy, edits);
  }
}

/** `downgradeOpenAIFunctionCallReasoningPairs(messages)`: the same array when nothing changed. */
export function downgradeResponsesReasoningPairs(messages: readonly Message[]): readonly Message[] {
  const downgrader = new ReasoningPairDowngrader();
  let out: Message[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const next = downgrader.apply(message);
    if (out === undefined && next !== message) out = messages.slice(0, i);
    if (out !== undefined) out.push(next);
  }
  return out ?? messages;
}

/** The rule's processor: a class, so a forked copy of its state (lib/fork-state.ts) is its own. */
class DowngradeProcessor implements RuleProcessor {
  private readonly tally: DowngradeTally = { downgraded: 0, resultsRewritten: 0, checkpointsRemoved: 0 };
  private readonly downgrader = new ReasoningPairDowngrader(this.tally);

  constructor(private readonly ctx: RuleContext) {}

  push(message: Message, emit: Emit): void {
    const out = this.downgrader.apply(message);
    if (out !== message) this.flush();
    emit(out);
  }

  end(): void {}

  private flush(): void {
    const { ctx, tally } = this;
    if (tally.downgraded > 0) ctx.count('downgraded', tally.downgraded);
    if (tally.resultsRewritten > 0) ctx.count('resultsRewritten', tally.resultsRewritten);
    if (tally.checkpointsRemoved > 0) ctx.count('checkpointsRemoved', tally.checkpointsRemoved);
    tally.downgraded = 0;
    tally.resultsRewritten = 0;
    tally.checkpointsRemoved = 0;
  }
}

export const downgradeResponsesReasoningPairsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'downgrade-responses-reasoning-pairs',
    summary: 'Cuts `|fc_*` item ids from OpenAI Responses tool calls that have no earlier reasoning item in their turn, and from the results right after it.',
    counters: ['downgraded', 'resultsRewritten', 'checkpointsRemoved'],
  },
  create(ctx) {
    return new DowngradeProcessor(ctx);
  },
};
