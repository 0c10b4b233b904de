/**
 * The replayed conversation as the providers receive it: the message list read into provider
 * turns, with the small helpers every family's checks share.
 *
 * Assumptions about the runtime's conversion (pi-ai / `@openclaw/ai`), which the checks rely on:
 * - `user`, `assistant` and `toolResult` messages are sent as they are. The harness's own roles are
 *   "inserted back into model context" (OpenClaw's message types: `compactionSummary`,
 *   `branchSummary`, `bashExecution`, and `custom` unless `excludeFromContext`), and the agent
 *   runtime's `convertToLlm` turns such messages into user messages: they are read as user turns
 *   here (kind `context`, never empty). Anything else (role-less objects, unknown roles,
 *   non-objects) "cannot be converted" and is filtered out by the runtime, so it is skipped.
 * - A run of consecutive `toolResult` messages is sent as ONE provider message: one Anthropic or
 *   Bedrock `user` message with one `tool_result` block per result, one Gemini `user` content with
 *   one `functionResponse` part per result (observed on `projectGoogleMessages` of
 *   `@openclaw/ai` 2026.9.6), consecutive `tool` messages on chat completions and consecutive
 *   `function_call_output` items on Responses. A `user` message is always a turn of its own: the
 *   runtime does not merge it into a preceding result run.
 * - A tool call is a `toolCall`, `toolUse` or `functionCall` block (the project's paired-call
 *   types, tool-calls.md §2.1); its id goes out verbatim from `id`. A result answers the id in its
 *   `toolCallId`, verbatim (untrimmed): the runtime reads no alias field, which is why the spec
 *   README lists alias-only, blank and padded result ids among the cases that end up orphaned.
 *   Other block types (`tool_use`, `function_call`, ...) are not tool calls to the runtime.
 */
import { isRecord, isReplayedHarnessMessage, type Message } from '../types.ts';

/** A `user`, `assistant` or `toolResult` message and its index in the checked list. */
export interface ViewEntry {
  readonly index: number;
  readonly message: Message & Record<string, unknown>;
}

export type TurnKind = 'user' | 'context' | 'tool-results' | 'assistant';

/** One provider message: a user message, harness context sent as one, a run of tool results, or an assistant message. */
export interface ProviderTurn {
  /** The provider role: tool results travel in `user` turns. */
  readonly role: 'user' | 'assistant';
  readonly kind: TurnKind;
  /** One entry, or the whole run for `tool-results`. */
  readonly entries: readonly ViewEntry[];
  /** Index of the first entry. */
  readonly index: number;
}

export interface ReplayView {
  /** The checked list, as given. */
  readonly messages: readonly unknown[];
  readonly turns: readonly ProviderTurn[];
}

export function buildReplayView(messages: readonly unknown[]): ReplayView {
  const turns: ProviderTurn[] = [];
  let run: ViewEntry[] | undefined;
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    const role = message.role;
    const entry: ViewEntry = { index, message: message as Message & Record<string, unknown> };
    if (role === 'toolResult') {
      if (run === undefined) {
        run = [entry];
        turns.push({ role: 'user', kind: 'tool-results', entries: run, index });
      } else {
        run.push(entry);
      }
      return;
    }
    if (role === 'user' || role === 'assistant') {
      run = undefined;
      turns.push({ role, kind: role, entries: [entry], index });
    } else if (isReplayedHarnessMessage(message)) {
      run = undefined;
      turns.push({ role: 'user', kind: 'context', entries: [entry], index });
    }
  });
  return { messages, turns };
}

// ---------------------------------------------------------------------------------------------
// Tool calls and results

const CALL_TYPES: ReadonlySet<string> = new Set(['toolCall', 'toolUse', 'functionCall']);

/** A tool call as the provider receives it. `id` is whatever the block holds (the runtime sends it as is). */
export interface CallRef {
  readonly block: number;
  readonly id: unknown;
  readonly name: unknown;
  /** What the runtime sends as the call's input: `arguments`, whatever it holds (never `input`). */
  readonly arguments: unknown;
}

/** The tool calls of an assistant message, in content order. */
export function callsOf(message: Record<string, unknown>): CallRef[] {
  const content = message.content;
  if (!Array.isArray(content)) return [];
  const calls: CallRef[] = [];
  content.forEach((block, index) => {
    if (isRecord(block) && CALL_TYPES.has(block.type as string)) calls.push({ block: index, id: block.id, name: block.name, arguments: block.arguments });
  });
  return calls;
}

/** The ids of the calls that have a non-empty string id, in content order (repeats kept). */
export function callIdsOf(message: Record<string, unknown>): string[] {
  return callsOf(message)
    .map((call) => call.id)
    .filter((id): id is string => typeof id === 'string' && id !== '');
}

/** The id a result answers on the wire: its `toolCallId` when that is a string. */
export function resultIdOf(message: Record<string, unknown>): string | undefined {
  return typeof message.toolCallId === 'string' ? message.toolCallId : undefined;
}

/** A JSON object (what every provider takes as a call's input): not an array, not null. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value);
}

/**
 * The calls whose input the provider rejects: `arguments` that is not a JSON object. With
 * `missingIsEmpty` (the transports that send `arguments ?? {}`), absent or null arguments are fine.
 */
export function callsWithInvalidInput(view: ReplayView, missingIsEmpty: boolean): Array<{ index: number; call: CallRef }> {
  const found: Array<{ index: number; call: CallRef }> = [];
  for (const turn of view.turns) {
    if (turn.kind !== 'assistant') continue;
    const entry = turn.entries[0]!;
    for (const call of callsOf(entry.message)) {
      if (isJsonObject(call.arguments)) continue;
      if (missingIsEmpty && (call.arguments === undefined || call.arguments === null)) continue;
      found.push({ index: entry.index, call });
    }
  }
  return found;
}

/** How a call's input is shown in a message: its JSON type. */
export function showInputType(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** How an id is shown in a message: quoted, so blanks and padding are visible. */
export function showId(id: unknown): string {
  return typeof id === 'string' ? JSON.stringify(id) : `(${id === undefined ? 'missing' : typeof id})`;
}

// ---------------------------------------------------------------------------------------------
// Content

const SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature'] as const;

export function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** A thinking-like block with a replayable signature (the spec's definition, thinking.md §4.6). */
export function hasReplayableSignature(block: Record<string, unknown>): boolean {
  if (SIGNATURE_FIELDS.some((field) => isNonBlankString(block[field]))) return true;
  return block.type === 'redacted_thinking' && isNonBlankString(block.data);
}

/**
 * "Persisted media facts" (turns-images-policy.md §4.1; the pipeline's own definition): such a user
 * turn may be kept with blank content, because the runtime gives it a caption
 * (`[User sent media without caption]`) at the model boundary.
 */
export { hasPersistedMediaFacts } from '../persisted-media.ts';

export interface ContentFacts {
  /** Blocks the provider receives (or the content is a non-blank string). */
  readonly sendable: number;
  /** Indexes of `text` blocks whose text is not a non-blank string. */
  readonly blankTexts: readonly number[];
}

/**
 * What the provider receives of a message's content. A non-blank string is one text block; in an
 * array, `text` blocks count when their text is non-blank (blank ones are reported on their own),
 * unsigned `thinking` counts when its text is non-blank (the runtime sends it as text and skips it
 * when blank: thinking.md §4.17), and every other object block counts (images, calls, signed or
 * redacted thinking, unknown types, which the runtime forwards or maps). Anything else is empty.
 */
export function contentFacts(content: unknown): ContentFacts {
  if (typeof content === 'string') return { sendable: content.trim() === '' ? 0 : 1, blankTexts: [] };
  if (!Array.isArray(content)) return { sendable: 0, blankTexts: [] };
  let sendable = 0;
  const blankTexts: number[] = [];
  content.forEach((block, index) => {
    if (!isRecord(block)) return;
    if (block.type === 'text') {
      if (isNonBlankString(block.text)) sendable++;
      else blankTexts.push(index);
      return;
    }
    if (block.type === 'thinking' && !hasReplayableSignature(block) && block.redacted !== true) {
      if (isNonBlankString(block.thinking)) sendable++;
      return;
    }
    sendable++;
  });
  return { sendable, blankTexts };
}
