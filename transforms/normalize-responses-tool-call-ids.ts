/**
 * normalize-responses-tool-call-ids (spec tool-calls.md §6, Rule D; tool-calls.md §1.1 step 3,
 * turns-images-policy.md §1 step 9, OpenAI Responses routes only).
 *
 * Invariant: every tool-call id replayed to OpenAI Responses is `call_…` or `call_…|fc_…`, each
 * part matching `^call_[A-Za-z0-9_-]{1,59}$` / `^fc_[A-Za-z0-9_-]{1,61}$` (at most 64 characters),
 * and each tool result carries the same normalized id as its call.
 *
 * Error prevented: OpenAI Responses rejects `function_call.call_id`, `function_call.id` and
 * `function_call_output.call_id` values outside those shapes.
 *
 * Unit: message. The mapping is a pure function of the id (cached), with no uniqueness handling,
 * so no state crosses messages. An assistant copied because an id changed loses an
 * `anthropic-compaction` / `openai-responses-compaction` checkpoint (§3.3). Counters: `idsNormalized`
 * (call ids changed), `resultsRewritten` (results changed), `checkpointsRemoved`. Untouched messages
 * are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { recordEdits } from '../lib/message-edits.ts';
import { isCallTypeBlock, mapCallBlockIds, rewriteRawIdOf, rewriteResultIds, sha256Hex, withCopiedBlocks } from './tool-call-shapes.ts';

/** A call-type block (§2.1) whose id is a string: the blocks whose ids Rule D normalizes. */
function isStringIdCallBlock(block: unknown): block is { id: string } {
  return isCallTypeBlock(block) && typeof block.id === 'string';
}

export const OPENAI_RESPONSES_ID_MAX_LENGTH = 64;
const CALL_ID = /^call_[A-Za-z0-9_-]{1,59}$/;
const ITEM_ID = /^fc_[A-Za-z0-9_-]{1,61}$/;
const UNSAFE = /[^A-Za-z0-9_-]/g;
const EDGE_UNDERSCORES = /^_+|_+$/g;

/** The §6 split: at the first `|` when it is neither the first nor the last character. */
export function splitResponsesToolCallId(id: string): { callId: string; itemId: string | undefined } {
  const sep = id.indexOf('|');
  if (sep > 0 && sep < id.length - 1) return { callId: id.slice(0, sep), itemId: id.slice(sep + 1) };
  return { callId: id, itemId: undefined };
}

/** `part(value, prefix, regex)` of §6. */
function normalizePart(value: string, prefix: string, pattern: RegExp): string {
  const trimmed = value.trim();
  if (pattern.test(trimmed)) return trimmed;
  const maxTail = OPENAI_RESPONSES_ID_MAX_LENGTH - prefix.length;
  const hash = sha256Hex(trimmed === '' ? prefix : trimmed).slice(0, 10);
  let tail = trimmed.startsWith(prefix) ? trimmed.slice(prefix.length) : trimmed;
  tail = tail.replace(UNSAFE, '_').replace(EDGE_UNDERSCORES, '').slice(0, Math.max(1, maxTail - 11));
  if (tail === '') tail = 'id';
  return prefix + `${tail}_${hash}`.slice(0, maxTail);
}

function computeNormalized(id: string): string {
  const { callId, itemId } = splitResponsesToolCallId(id);
  if (CALL_ID.test(callId) && (itemId === undefined || ITEM_ID.test(itemId))) return id;
  if (itemId === undefined) return normalizePart(callId, 'call_', CALL_ID);
  // The call part is normalised from the whole `callId|itemId` string (§6).
  return `${normalizePart(id, 'call_', CALL_ID)}|${normalizePart(itemId, 'fc_', ITEM_ID)}`;
}

const CACHE_LIMIT = 8192;
const cache = new Map<string, string>();

/** The normalized id (the same string when it already fits); cached by raw id. */
export function normalizeResponsesToolCallId(id: string): string {
  const cached = cache.get(id);
  if (cached !== undefined) return cached;
  const normalized = computeNormalized(id);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(id, normalized);
  return normalized;
}

interface Tally {
  ids: number;
  results: number;
  checkpoints: number;
}

function normalize(message: Message, tally: Tally | undefined): Message {
  if (!isRecord(message)) return message;
  const role = message.role;
  if (role === 'assistant') {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    const { content: out, edits: replacements } = mapCallBlockIds(content, isStringIdCallBlock, normalizeResponsesToolCallId);
    if (tally) tally.ids += replacements.length;
    if (out === undefined) return message;
    const copied = withCopiedBlocks(message, out);
    if (tally && copied.checkpointRemoved) tally.checkpoints++;
    // Only block ids changed, unless a checkpoint went too (then the copy is not described).
    return copied.checkpointRemoved ? copied.message : recordEdits(message, copied.message, replacements);
  }
  if (role === 'toolResult') {
    const raw = rewriteRawIdOf(message);
    if (raw === undefined) return message;
    const out = rewriteResultIds(message, normalizeResponsesToolCallId(raw));
    if (tally && out !== message) tally.results++;
    return out;
  }
  return message;
}

/** Rule D for one message: the same object when no id changes. */
export function normalizeResponsesToolCallIdsInMessage(message: Message): Message {
  return normalize(message, undefined);
}

/** `normalizeOpenAIResponsesToolCallIds(messages)`: the same array when nothing changed. */
export function normalizeResponsesToolCallIds(messages: readonly Message[]): readonly Message[] {
  let out: Message[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const next = normalize(message, undefined);
    if (out === undefined && next !== message) out = messages.slice(0, i);
    if (out !== undefined) out.push(next);
  }
  return out ?? messages;
}

// Rules run synchronously one message at a time, so one scratch tally serves every call.
const scratch: Tally = { ids: 0, results: 0, checkpoints: 0 };

export const normalizeResponsesToolCallIdsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'normalize-responses-tool-call-ids',
    summary: 'Rewrites tool-call ids that do not fit OpenAI Responses\' call_*/fc_* shapes (64 characters at most), in calls and their results alike.',
    counters: ['idsNormalized', 'resultsRewritten', 'checkpointsRemoved'],
  },
  apply(message, ctx) {
    scratch.ids = 0;
    scratch.results = 0;
    scratch.checkpoints = 0;
    const out = normalize(message, scratch);
    if (out === message) return out;
    if (scratch.ids > 0) ctx.count('idsNormalized', scratch.ids);
    if (scratch.results > 0) ctx.count('resultsRewritten', scratch.results);
    if (scratch.checkpoints > 0) ctx.count('checkpointsRemoved', scratch.checkpoints);
    return out;
  },
};
