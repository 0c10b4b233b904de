/**
 * strip-dangling-tool-calls (spec turns-images-policy.md §3.3, step 2 of `validateAnthropicTurns`;
 * runs in `validateReplayTurns`, between the assistant merge and the user merge).
 *
 * Invariant: an assistant turn replays no tool call that nothing in its span answers. The span is
 * every message after the assistant up to the next assistant message of any kind. Only assistants
 * with at least one `toolCall`/`toolUse`/`functionCall` block whose `id` is a non-empty string are
 * looked at; an assistant whose call blocks all lack an id is left alone, calls included.
 * - Without a `thinking`/`redacted_thinking` block: the call blocks whose trimmed id is not
 *   resolved are dropped (blocks without a usable id too). A call is resolved by a `toolResult`
 *   message's first id field, by any id field of a `tool` message, or by any id field of a
 *   `toolResult`/`tool` content block inside any message of the span.
 * - With one (signed thinking must replay byte for byte, so it cannot lose a block): all or
 *   nothing. Every call needs a non-blank id and name, its id must be named by an id field of a
 *   `toolResult`/`tool` message of the span, and when those results carry a tool name (`toolName`,
 *   else `name`) the call's name must be one of them (case-sensitive). Otherwise the whole content
 *   is replaced. Oracle: `redactedThinking` (camel case) does not count as thinking.
 * A turn left with no blocks gets `[{type:"text", text:"[tool calls omitted]"}]`, or `[]` when its
 * `stopReason` is `aborted` or `error`. Results are never moved or removed (an omitted thinking
 * turn leaves its results orphaned, as the reference does: spec E13).
 *
 * Error prevented: Anthropic and Bedrock reject a `tool_use` block without a matching
 * `tool_result` right after it ("tool_use ids were found without tool_result blocks immediately
 * after"), and a signed thinking turn whose content was edited ("thinking blocks ... cannot be
 * modified").
 *
 * Unit: an assistant with calls plus its span, held in a SpillQueue (the span can be long: user
 * turns do not end it) until the outcome can no longer change: every call is answered (and, for a
 * thinking turn, each call's name is among its results' names), a thinking turn has a call without
 * id or name, the next assistant arrives, or the input ends. Whatever follows in the span once the
 * outcome is settled passes straight through.
 *
 * Counters: `droppedCalls` (call blocks removed from a turn that keeps other blocks),
 * `omittedTurns` (turns whose content became the placeholder or `[]`), `spilledEntries`.
 */
import type { BufferedRule, Emit, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { SpillQueue } from '../lib/frames.ts';
import { lineKeepingCodec } from '../lib/spill-lines.ts';
import { RESULT_ID_FIELDS, isCallTypeBlock, isPairedCallBlock, isThinkingLikeBlock, resultIdOf } from './tool-call-shapes.ts';

/** What an assistant turn whose every block was a dangling call holds instead. */
export const TOOL_CALLS_OMITTED_TEXT = '[tool calls omitted]';

interface Tally {
  droppedCalls: number;
  omittedTurns: number;
}

function trimmedString(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Every id field of a record holding a non-blank string, trimmed. */
function eachIdField(record: Record<string, unknown>, visit: (id: string) => void): void {
  for (const field of RESULT_ID_FIELDS) {
    const id = trimmedString(record[field]);
    if (id !== undefined) visit(id);
  }
}

/** The name a result carries: `toolName`, else `name` (oracle: a `name` beside a `toolName` is not read). */
function resultNameOf(message: Message): string | undefined {
  return trimmedString(message.toolName) ?? trimmedString(message.name);
}

/** An assistant the strip looks at: array content with at least one call block whose id is a non-empty string. */
export function hasIdentifiedToolCall(message: Message): boolean {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return false;
  return message.content.some(isPairedCallBlock);
}

function emptiedContent(message: Message): ContentBlock[] {
  const stop = message.stopReason;
  return stop === 'aborted' || stop === 'error' ? [] : [{ type: 'text', text: TOOL_CALLS_OMITTED_TEXT }];
}

/**
 * What the span of one assistant has shown so far, and what that means for the assistant. Holds
 * only the assistant's own call ids (and, for a thinking turn, the result names seen for them).
 */
class SpanCheck {
  private readonly thinking: boolean;
  /** Call ids (trimmed) no span message has resolved yet. */
  private readonly pending = new Set<string>();
  /** Thinking turns: tool names carried by the results of each call id. */
  private readonly names = new Map<string, Set<string>>();
  /** Thinking turns: the calls, to compare their names; undefined when one lacks an id or a name. */
  private readonly calls: Array<{ id: string; name: string }> | undefined;

  constructor(assistant: Message) {
    const content = assistant.content as unknown[];
    this.thinking = content.some(isThinkingLikeBlock);
    let calls: Array<{ id: string; name: string }> | undefined = [];
    for (const block of content) {
      if (!isCallTypeBlock(block)) continue;
      const id = trimmedString(block.id);
      if (id !== undefined) this.pending.add(id);
      const name = trimmedString(block.name);
      if (id === undefined || name === undefined) calls = undefined;
      else calls?.push({ id, name });
    }
    this.calls = calls;
    if (this.thinking && calls !== undefined) for (const call of calls) this.names.set(call.id, new Set());
  }

  /** Takes in one message of the span. */
  observe(message: unknown): void {
    if (!isRecord(message) || (this.pending.size === 0 && !this.thinking)) return;
    if (this.thinking) {
      if (this.calls === undefined) return;
      if (message.role !== 'toolResult' && message.role !== 'tool') return;
      const name = resultNameOf(message);
      eachIdField(message, (id) => {
        this.pending.delete(id);
        if (name !== undefined) this.names.get(id)?.add(name);
      });
      return;
    }
    if (message.role === 'toolResult') {
      const id = resultIdOf(message);
      if (id !== undefined) this.pending.delete(id);
    } else if (message.role === 'tool') {
      eachIdField(message, (id) => this.pending.delete(id));
    }
    const content = message.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (isRecord(block) && (block.type === 'toolResult' || block.type === 'tool')) eachIdField(block, (id) => this.pending.delete(id));
    }
  }

  /** True when no later span message can change the outcome. */
  get settled(): boolean {
    if (!this.thinking) return this.pending.size === 0;
    if (this.calls === undefined) return true;
    return this.pending.size === 0 && this.calls.every((call) => this.names.get(call.id)!.has(call.name));
  }

  /** Thinking turns: whether every call is answered, by a result of its own name when the results name one. */
  private thinkingTurnHolds(): boolean {
    if (this.calls === undefined || this.pending.size > 0) return false;
    return this.calls.every((call) => {
      const names = this.names.get(call.id)!;
      return names.size === 0 || names.has(call.name);
    });
  }

  /** The assistant as the span seen so far leaves it: the same object when nothing is dropped. */
  apply(assistant: Message, tally: Tally | undefined): Message {
    const content = assistant.content as unknown[];
    if (this.thinking) {
      if (this.thinkingTurnHolds()) return assistant;
      if (tally) tally.omittedTurns++;
      return { ...assistant, content: emptiedContent(assistant) };
    }
    const kept = content.filter((block) => {
      if (!isCallTypeBlock(block)) return true;
      const id = trimmedString(block.id);
      return id !== undefined && !this.pending.has(id);
    });
    if (kept.length === content.length) return assistant;
    if (kept.length === 0) {
      if (tally) tally.omittedTurns++;
      return { ...assistant, content: emptiedContent(assistant) };
    }
    if (tally) tally.droppedCalls += content.length - kept.length;
    return { ...assistant, content: kept as ContentBlock[] };
  }
}

/**
 * The whole-array form (§3.3 step 2 as the reference runs it: each assistant against its complete
 * span): the specification the streaming rule is tested against. Falsy entries are dropped, as the
 * reference's strip does; other entries that are not assistants with calls are kept as they are.
 */
export function stripDanglingToolCalls(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!message) continue;
    if (!hasIdentifiedToolCall(message)) {
      out.push(message);
      continue;
    }
    const check = new SpanCheck(message);
    for (let j = i + 1; j < messages.length; j++) {
      const next = messages[j];
      if (isRecord(next) && next.role === 'assistant') break;
      check.observe(next);
    }
    out.push(check.apply(message, undefined));
  }
  return out;
}

export interface DanglingToolCallStripOptions {
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

/** The streaming core: holds one assistant-with-calls and its span until its outcome is settled. */
export class DanglingToolCallStrip implements RuleProcessor {
  private readonly held: SpillQueue<Message>;
  /** Defined while an assistant and its span are held. */
  private check: SpanCheck | undefined;
  private readonly tally: Tally = { droppedCalls: 0, omittedTurns: 0 };

  constructor(private readonly options: DanglingToolCallStripOptions) {
    this.held = new SpillQueue<Message>(lineKeepingCodec, { budgetBytes: options.memoryBudgetBytes });
  }

  push(message: Message, emit: Emit): void {
    if (!message) return;
    const isAssistant = isRecord(message) && message.role === 'assistant';
    // The next assistant of any kind ends the held span.
    if (isAssistant) this.release(emit);
    if (this.check === undefined) {
      if (!isAssistant || !hasIdentifiedToolCall(message)) {
        emit(message);
        return;
      }
      const check = new SpanCheck(message);
      if (check.settled) {
        this.emitApplied(check, message, emit);
        return;
      }
      this.check = check;
      this.held.push(message);
      return;
    }
    this.check.observe(message);
    this.held.push(message);
    if (this.check.settled) this.release(emit);
  }

  end(emit: Emit): void {
    this.release(emit);
    if (this.held.spilledEntries > 0) this.options.count('spilledEntries', this.held.spilledEntries);
  }

  dispose(): void {
    this.held.dispose();
  }

  /** Emits the held assistant as its span left it, then the span. */
  private release(emit: Emit): void {
    const check = this.check;
    if (check === undefined) return;
    this.check = undefined;
    this.emitApplied(check, this.held.shift()!, emit);
    while (this.held.length > 0) emit(this.held.shift()!);
  }

  private emitApplied(check: SpanCheck, assistant: Message, emit: Emit): void {
    const tally = this.tally;
    tally.droppedCalls = 0;
    tally.omittedTurns = 0;
    const out = check.apply(assistant, tally);
    if (tally.droppedCalls > 0) this.options.count('droppedCalls', tally.droppedCalls);
    if (tally.omittedTurns > 0) this.options.count('omittedTurns', tally.omittedTurns);
    emit(out);
  }
}

export const stripDanglingToolCallsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'strip-dangling-tool-calls',
    summary: 'Drops tool calls that nothing up to the next assistant answers; a thinking turn with any such call, or a turn left empty, becomes "[tool calls omitted]".',
    counters: ['droppedCalls', 'omittedTurns', 'spilledEntries'],
  },
  create(ctx) {
    return new DanglingToolCallStrip({ memoryBudgetBytes: ctx.options.memoryBudgetBytes, count: ctx.count });
  },
};
