/**
 * Shared definitions of the tool-call rules (spec tool-calls.md §1.1, §2): the two call-block
 * recognizers, the result id list and the rewrite-priority raw id, the §5.1 result alias rewrite,
 * tool-name validity with the allowlist, synthetic-result recognition, the §3.3 checkpoint rule
 * for rewritten ids, the `allowProviderOwnedThinkingReplay` switch and a cached SHA-256 helper.
 *
 * Not a rule: nothing here holds state across messages except the bounded hash cache.
 */
import { createHash } from 'node:crypto';
import { recordEdits, setBlockField, setField, type MessageEdit } from '../lib/message-edits.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message, ToolCallBlock } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

// ---------------------------------------------------------------------------------------------
// Call blocks (§2.1)

/** Block types of a paired call (and of the id rewriters §5, §6, §7). */
export const PAIRED_CALL_TYPES: ReadonlySet<string> = new Set(['toolCall', 'toolUse', 'functionCall']);

/** Block types of a contract call block (input validation only). */
export const CONTRACT_CALL_TYPES: ReadonlySet<string> = new Set([
  'toolCall', 'toolUse', 'functionCall', 'tool_call', 'tool_use', 'function_call',
]);

/** A `toolCall`/`toolUse`/`functionCall` block, whatever its id (§6 and §7 also take empty ids). */
export function isCallTypeBlock(block: unknown): block is ToolCallBlock {
  return isRecord(block) && PAIRED_CALL_TYPES.has(block.type as string);
}

/** A paired call (§2.1): a call-type block whose `id` is a non-empty string (not trimmed). */
export function isPairedCallBlock(block: unknown): block is ToolCallBlock & { id: string } {
  if (!isRecord(block) || !PAIRED_CALL_TYPES.has(block.type as string)) return false;
  const id = block.id;
  return typeof id === 'string' && id !== '';
}

/** A contract call block (§2.1): a non-array object with one of the six call types. */
export function isContractCallBlock(block: unknown): block is ToolCallBlock {
  return isRecord(block) && CONTRACT_CALL_TYPES.has(block.type as string);
}

/** A `thinking` or `redacted_thinking` block (oracle: `redactedThinking` does not count for §5.5). */
export function isThinkingLikeBlock(block: unknown): boolean {
  if (!isRecord(block)) return false;
  const type = block.type;
  return type === 'thinking' || type === 'redacted_thinking';
}

/** The block has input (§3 step 4): `input` or `arguments` is neither absent, undefined nor null. */
export function hasToolCallInput(block: Record<string, unknown>): boolean {
  const input = block.input;
  if (input !== undefined && input !== null) return true;
  const args = block.arguments;
  return args !== undefined && args !== null;
}

// ---------------------------------------------------------------------------------------------
// Result ids (§2.2)

/** Pairing / invariant order. */
export const RESULT_ID_FIELDS = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'] as const;

/** Id-rewriting order (§5, §6): `call_id` first. */
export const REWRITE_ID_FIELDS = ['call_id', 'callId', 'tool_call_id', 'tool_use_id', 'toolCallId', 'toolUseId'] as const;

/** The result id list: string values of the six fields in pairing order, trimmed, non-empty, without duplicates. */
export function resultIdList(message: Message): string[] {
  const ids: string[] = [];
  for (const field of RESULT_ID_FIELDS) {
    const value = message[field];
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed !== '' && !ids.includes(trimmed)) ids.push(trimmed);
  }
  return ids;
}

/** "The result id": the first entry of the result id list, without building the list. */
export function resultIdOf(message: Message): string | undefined {
  for (const field of RESULT_ID_FIELDS) {
    const value = message[field];
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed !== '') return trimmed;
  }
  return undefined;
}

/** The raw id the rewriters resolve: the first non-empty string (untrimmed) in rewrite priority. */
export function rewriteRawIdOf(message: Message): string | undefined {
  for (const field of REWRITE_ID_FIELDS) {
    const value = message[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * The §5.1 alias rewrite of a result whose raw id resolved to `resolved`: every id field holding a
 * non-empty string that differs from `resolved` is set to it, and a non-string `toolCallId` is set
 * (added when absent). Oracle: non-string aliases (`5`, `null`) and empty-string ones (`""`,
 * including an empty `toolCallId`) are left as they are. Returns the same object when nothing differs.
 */
export function rewriteResultIds(message: Message, resolved: string): Message {
  let changed = typeof message.toolCallId !== 'string';
  if (!changed) {
    for (const field of REWRITE_ID_FIELDS) {
      const value = message[field];
      if (typeof value === 'string' && value !== '' && value !== resolved) {
        changed = true;
        break;
      }
    }
  }
  if (!changed) return message;
  const copy: Record<string, unknown> = { ...message };
  const edits: MessageEdit[] = [];
  for (const field of REWRITE_ID_FIELDS) {
    const value = copy[field];
    if (typeof value === 'string' && value !== '' && value !== resolved) {
      copy[field] = resolved;
      edits.push(setField(field, value, resolved));
    }
  }
  if (typeof copy.toolCallId !== 'string') {
    edits.push(setField('toolCallId', copy.toolCallId, resolved));
    copy.toolCallId = resolved;
  }
  return recordEdits(message, copy as Message, edits);
}

/**
 * Each call block's id passed through `next`, in order (it may keep state: it sees every call id
 * once). Returns the new content, or undefined when no id changed, and one edit per id changed
 * (for recordEdits, when the caller changes nothing else).
 */
export function mapCallBlockIds(
  content: readonly unknown[],
  isCall: (block: unknown) => block is { id: string },
  next: (id: string) => string,
): { content: ContentBlock[] | undefined; edits: MessageEdit[] } {
  let out: ContentBlock[] | undefined;
  const edits: MessageEdit[] = [];
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isCall(block)) continue;
    const id = next(block.id);
    if (id === block.id) continue;
    out ??= content.slice() as ContentBlock[];
    out[i] = { ...(block as object), id } as ContentBlock;
    edits.push(setBlockField(i, 'id', block.id, id));
  }
  return { content: out, edits };
}

// ---------------------------------------------------------------------------------------------
// Tool names (§2.3)

const TOOL_NAME_PATTERN = /^[A-Za-z0-9_:.-]+$/;
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * Allowlist normalisation: string entries, trimmed, non-empty, lower-cased. `undefined` when
 * nothing remains or no list was given (no allowlist).
 */
export function normalizeAllowedToolNames(names: readonly unknown[] | undefined): ReadonlySet<string> | undefined {
  if (names === undefined) return undefined;
  const set = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string') continue;
    const trimmed = name.trim();
    if (trimmed !== '') set.add(trimmed.toLowerCase());
  }
  return set.size === 0 ? undefined : set;
}

/** The name's syntax alone: a string that, trimmed, is non-empty, at most 64 characters and `[A-Za-z0-9_:.-]+`. */
export function isValidToolNameSyntax(name: unknown): name is string {
  if (typeof name !== 'string') return false;
  const trimmed = name.trim();
  return trimmed !== '' && trimmed.length <= MAX_TOOL_NAME_LENGTH && TOOL_NAME_PATTERN.test(trimmed);
}

/** `isAllowedToolCallName`: valid syntax and, with an allowlist, the trimmed lower-cased name is in it. */
export function isValidToolName(name: unknown, allowlist?: ReadonlySet<string>): boolean {
  if (!isValidToolNameSyntax(name)) return false;
  return allowlist === undefined || allowlist.has(name.trim().toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// Synthetic results (§2.5)

export const SYNTHETIC_TOOL_RESULT_TEXT =
  '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.';

/** Recognised as synthetic: `isError` truthy and the details marker, or a text block with the default text. */
export function isSyntheticToolResult(message: Message): boolean {
  if (!message.isError) return false;
  const details = message.details;
  if (isRecord(details) && details.openclawSyntheticMissingToolResult === true) return true;
  const content = message.content;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (isRecord(block) && block.type === 'text' && block.text === SYNTHETIC_TOOL_RESULT_TEXT) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Compaction checkpoints (§3.3; thinking.md §4.3)

/**
 * The assistant with new content in which at least one block was replaced by a copy (an id
 * rewritten by §6 or §7): an `anthropic-compaction` or `openai-responses-compaction` checkpoint
 * is removed; any other `providerReplay` (including `openai-responses-retained-compaction`) stays.
 * Returns the new message and whether a checkpoint was removed.
 */
export function withCopiedBlocks(message: Message, content: ContentBlock[]): { message: Message; checkpointRemoved: boolean } {
  const replay = message.providerReplay;
  if (isRecord(replay) && (replay.type === 'anthropic-compaction' || replay.type === 'openai-responses-compaction')) {
    const { providerReplay: _removed, ...rest } = message;
    return { message: { ...rest, content } as Message, checkpointRemoved: true };
  }
  return { message: { ...message, content } as Message, checkpointRemoved: false };
}

// ---------------------------------------------------------------------------------------------
// Policy switch (§1.1)

const THINKING_REPLAY_APIS: ReadonlySet<string> = new Set(['anthropic-messages', 'bedrock-converse-stream']);
const SIGNATURE_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'amazon-bedrock', 'anthropic-vertex']);

/**
 * `allowProviderOwnedThinkingReplay` (§1.1): api `anthropic-messages` or `bedrock-converse-stream`,
 * `validateAnthropicTurns`, (`preserveSignatures` or provider anthropic / amazon-bedrock /
 * anthropic-vertex), and not `dropThinkingBlocks`. The provider is compared trimmed and lower-cased,
 * as the policy resolver normalizes it.
 */
export function allowProviderOwnedThinkingReplay(
  policy: TranscriptPolicy,
  options: Pick<ResolvedHygieneOptions, 'provider' | 'modelApi'>,
): boolean {
  if (!THINKING_REPLAY_APIS.has(options.modelApi)) return false;
  if (!policy.validateAnthropicTurns || policy.dropThinkingBlocks) return false;
  return policy.preserveSignatures || SIGNATURE_PROVIDERS.has(options.provider.trim().toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// SHA-256 (§12)

const HASH_CACHE_LIMIT = 4096;
const hashCache = new Map<string, string>();

/** Lower-case hex SHA-256 of the UTF-8 text; recent inputs are cached (seeds and ids repeat). */
export function sha256Hex(text: string): string {
  const cached = hashCache.get(text);
  if (cached !== undefined) return cached;
  const hex = createHash('sha256').update(text, 'utf8').digest('hex');
  if (hashCache.size >= HASH_CACHE_LIMIT) hashCache.clear();
  hashCache.set(text, hex);
  return hex;
}
