/**
 * Shared pieces of the thinking / reasoning rules (spec thinking.md §3, §4.5–§4.8): the
 * placeholder text, block predicates, the timestamp parser, the signed-provider test, and
 * `Holdback`, the SpillQueue-backed buffer the lookahead rules hold messages in.
 *
 * No rule lives here; each rule has its own file.
 */
import { SpillQueue } from '../lib/frames.ts';
import { lineKeepingCodec } from '../lib/spill-lines.ts';
import type { Emit } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { recordEdits, removeBlock, type MessageEdit } from '../lib/message-edits.ts';
import { parseTimestampMs } from '../lib/timestamps.ts';

/** What an assistant turn emptied by a thinking rule holds instead (thinking.md, conventions). */
export const OMITTED_REASONING_TEXT = '[assistant reasoning omitted]';

/** A fresh placeholder content array (never shared between messages). */
export function omittedReasoningContent(): ContentBlock[] {
  return [{ type: 'text', text: OMITTED_REASONING_TEXT }];
}

/** A block whose `type` is exactly `thinking` or `redacted_thinking` (thinking.md, conventions). */
export function isThinkingLikeBlock(block: unknown): block is Record<string, unknown> {
  if (!isRecord(block)) return false;
  const type = block.type;
  return type === 'thinking' || type === 'redacted_thinking';
}

/** An assistant message whose content is an array: the only kind the thinking rules look at. */
export function isArrayAssistant(message: Message): message is Message & { content: unknown[] } {
  return message.role === 'assistant' && Array.isArray(message.content);
}

const REPLAY_TOOL_CALL_TYPES: ReadonlySet<unknown> = new Set(['toolCall', 'tool_use', 'function_call']);

/**
 * The tool-call test of `dropReasoningFromHistory` and `shouldPreserveLatestAssistantThinking`
 * (thinking.md §3): a block of type `toolCall`, `tool_use` or `function_call`. `toolUse` and
 * `functionCall` do not count here.
 */
export function hasReplayToolCallBlock(message: Message): boolean {
  const content = message.content;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (isRecord(block) && REPLAY_TOOL_CALL_TYPES.has(block.type)) return true;
  }
  return false;
}

export { parseTimestampMs };

const SIGNED_THINKING_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'amazon-bedrock', 'anthropic-vertex']);

/** `providerRequiresSignedThinking` (thinking.md §2): the provider, trimmed and lower-cased, is one of three. */
export function providerRequiresSignedThinking(provider: unknown): boolean {
  return typeof provider === 'string' && SIGNED_THINKING_PROVIDERS.has(provider.trim().toLowerCase());
}

/**
 * Removes the blocks `drop` selects from an array assistant (thinking.md §4.6–§4.8): the same
 * message when none is removed; the remaining blocks when some are; the placeholder when it
 * removed every block. Other fields (`providerReplay` included) are kept as they are: these
 * rules do not go through the compaction-owner helper (§4.3).
 */
export function withoutBlocks(
  message: Message,
  drop: (block: unknown) => boolean,
): { message: Message; removed: number; placeholder: boolean } {
  const content = message.content as unknown[];
  let kept: unknown[] | undefined;
  let edits: MessageEdit[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (drop(block)) {
      kept ??= content.slice(0, i);
      (edits ??= []).push(removeBlock(i, block));
    } else if (kept !== undefined) {
      kept.push(block);
    }
  }
  if (kept === undefined) return { message, removed: 0, placeholder: false };
  const removed = content.length - kept.length;
  if (kept.length === 0) return { message: { ...message, content: omittedReasoningContent() }, removed, placeholder: true };
  // The thinking rules drop blocks from most assistant turns of a long session: say which, so
  // the writer can cut them out of the original line instead of stringifying the turn again.
  const copy = recordEdits(message, { ...message, content: kept as ContentBlock[] }, edits!);
  return { message: copy, removed, placeholder: false };
}

/**
 * The buffer of a lookahead rule: a first-in first-out run of held messages that spills to a
 * temporary file past the memory budget (lib/frames.ts). Created on first use.
 */
export class Holdback {
  private queue: SpillQueue<Message> | undefined;

  constructor(private readonly budgetBytes: number) {}

  get length(): number {
    return this.queue?.length ?? 0;
  }

  /** Messages that went to disk so far. */
  get spilledEntries(): number {
    return this.queue?.spilledEntries ?? 0;
  }

  push(message: Message): void {
    (this.queue ??= new SpillQueue<Message>(lineKeepingCodec, { budgetBytes: this.budgetBytes })).push(message);
  }

  peek(): Message | undefined {
    return this.queue?.peek();
  }

  shift(): Message | undefined {
    return this.queue?.shift();
  }

  /** Emits every held message, in order. */
  drain(emit: Emit): void {
    const queue = this.queue;
    if (queue === undefined) return;
    while (queue.length > 0) emit(queue.shift()!);
  }

  /** Drops every held message, returning how many there were. */
  discard(): number {
    const queue = this.queue;
    if (queue === undefined) return 0;
    let n = 0;
    while (queue.length > 0) {
      queue.shift();
      n++;
    }
    return n;
  }

  dispose(): void {
    this.queue?.dispose();
    this.queue = undefined;
  }
}
