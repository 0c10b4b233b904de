/**
 * What repairSessionFileIfNeeded does to each line (spec/session-file.md §9.3), as pure
 * functions: which lines are dropped, which entries are rewritten, and which assistant turns
 * get a synthetic tool result inserted after them.
 */
import { isCorruptedImageBlock } from './repair-image.ts';

export const STREAM_ERROR_FALLBACK_TEXT = '[assistant turn failed before producing content]';
export const BLANK_USER_FALLBACK_TEXT = '(continue)';
export const CORRUPTED_IMAGE_FALLBACK_TEXT = '[image omitted: corrupted base64 payload]';

export interface LineRepair {
  /** `skip`: blank (not counted); `drop`: not JSON, or a structurally invalid message (counted); `keep`. */
  kind: 'skip' | 'drop' | 'keep';
  /** The entry to write (a new object when something changed). */
  entry: unknown;
  rewroteAssistant: boolean;
  rewroteUser: boolean;
  removedImages: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** §9.3 2.3: a `message` entry whose message is missing, not an object, or has no non-blank string role. */
export function isStructurallyInvalidMessageEntry(entry: unknown): boolean {
  if (!isObject(entry) || entry.type !== 'message') return false;
  const message = entry.message;
  if (!message || typeof message !== 'object') return true;
  const role = (message as Record<string, unknown>).role;
  return typeof role !== 'string' || role.trim().length === 0;
}

/** §9.3 2.4: a Bedrock-style failed turn: an assistant with `content: []` and stopReason "error". */
export function isEmptyErrorAssistantEntry(entry: unknown): boolean {
  if (!isObject(entry) || entry.type !== 'message' || !isObject(entry.message)) return false;
  const message = entry.message;
  return message.role === 'assistant' && Array.isArray(message.content) && message.content.length === 0 && message.stopReason === 'error';
}

function withMessage(entry: Record<string, unknown>, message: Record<string, unknown>, content: unknown): Record<string, unknown> {
  return { ...entry, message: { ...message, content } };
}

/** §9.3 2.5: corrupted inline images replaced by a text block. */
function repairImages(entry: Record<string, unknown>): { entry: Record<string, unknown>; removed: number } {
  const message = entry.message as Record<string, unknown>;
  const content = message.content;
  if (!Array.isArray(content)) return { entry, removed: 0 };
  let removed = 0;
  const next = content.map((block: unknown) => {
    if (!isCorruptedImageBlock(block)) return block;
    removed++;
    return { type: 'text', text: CORRUPTED_IMAGE_FALLBACK_TEXT };
  });
  return removed === 0 ? { entry, removed } : { entry: withMessage(entry, message, next), removed };
}

/** §9.3 2.6: blank user content becomes "(continue)"; blank text blocks are removed. Undefined when nothing changes. */
function repairBlankUser(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  const message = entry.message as Record<string, unknown>;
  const content = message.content;
  if (typeof content === 'string') return content.trim() ? undefined : withMessage(entry, message, BLANK_USER_FALLBACK_TEXT);
  if (!Array.isArray(content)) return undefined;
  let touched = false;
  const next = content.filter((block: unknown) => {
    if (!isObject(block) || block.type !== 'text') return true;
    const text = block.text;
    if (typeof text !== 'string' || text.trim().length > 0) return true;
    touched = true;
    return false;
  });
  if (next.length === 0) return withMessage(entry, message, [{ type: 'text', text: BLANK_USER_FALLBACK_TEXT }]);
  return touched ? withMessage(entry, message, next) : undefined;
}

/** The repair of one line of the file (§9.3 step 2, in order). */
export function repairLine(line: string): LineRepair {
  const out: LineRepair = { kind: 'keep', entry: undefined, rewroteAssistant: false, rewroteUser: false, removedImages: 0 };
  if (!line.trim()) {
    out.kind = 'skip';
    return out;
  }
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    out.kind = 'drop';
    return out;
  }
  if (isStructurallyInvalidMessageEntry(entry)) {
    out.kind = 'drop';
    return out;
  }
  if (isEmptyErrorAssistantEntry(entry)) {
    const record = entry as Record<string, unknown>;
    out.entry = withMessage(record, record.message as Record<string, unknown>, [{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }]);
    out.rewroteAssistant = true;
    return out;
  }
  out.entry = entry;
  if (!isObject(entry) || entry.type !== 'message' || !isObject(entry.message)) return out;
  const images = repairImages(entry);
  out.entry = images.entry;
  out.removedImages = images.removed;
  if ((images.entry.message as Record<string, unknown>).role === 'user') {
    const user = repairBlankUser(images.entry);
    if (user !== undefined) {
      out.entry = user;
      out.rewroteUser = true;
    }
  }
  return out;
}

/** §9.3 step 3: the first kept entry must be a session header with a non-empty string id. */
export function isRepairHeader(entry: unknown): boolean {
  return isObject(entry) && entry.type === 'session' && typeof entry.id === 'string' && entry.id.length > 0;
}

/** The message of a `message` entry whose message is an object, else undefined. */
export function messageOf(entry: unknown): Record<string, unknown> | undefined {
  if (!isObject(entry) || entry.type !== 'message' || !isObject(entry.message)) return undefined;
  return entry.message;
}

const RESULT_ID_KEYS = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'] as const;

/** The result id of a tool result: the first non-empty trimmed value of the six keys (§9.3 step 4). */
export function toolResultIdOf(message: Record<string, unknown>): string | undefined {
  if (message.role !== 'toolResult') return undefined;
  for (const key of RESULT_ID_KEYS) {
    const value = message[key];
    if (typeof value !== 'string') continue;
    const id = value.trim();
    if (id) return id;
  }
  return undefined;
}

export interface ToolCall {
  id: string;
  name: string | undefined;
}

const TOOL_CALL_TYPES = new Set(['toolCall', 'toolUse', 'functionCall']);

/** Blocks of type toolCall, toolUse or functionCall with a non-empty string id. */
export function toolCallsOf(message: Record<string, unknown>): ToolCall[] {
  const content = message.content;
  if (!Array.isArray(content)) return [];
  const calls: ToolCall[] = [];
  for (const block of content) {
    if (!isObject(block) || typeof block.type !== 'string' || !TOOL_CALL_TYPES.has(block.type)) continue;
    if (typeof block.id !== 'string' || !block.id) continue;
    calls.push({ id: block.id, name: typeof block.name === 'string' ? block.name : undefined });
  }
  return calls;
}

function trimmed(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function stopsCleanly(message: Record<string, unknown>): boolean {
  return message.stopReason !== 'error' && message.stopReason !== 'aborted';
}

/** §9.3 4.1: the code-mode rule's assistants. */
export function isCodeModeCandidate(message: Record<string, unknown>): boolean {
  return message.role === 'assistant' && message.api === 'openai-chatgpt-responses' && message.provider === 'openai' && stopsCleanly(message);
}

const RESPONSES_APIS = new Set(['openai-responses', 'azure-openai-responses', 'openai-codex-responses']);

/** §9.3 4.2: the delivery-mirror rule's assistants (before looking at the next message entry). */
export function isMirrorCandidate(message: Record<string, unknown>): boolean {
  return message.role === 'assistant' && RESPONSES_APIS.has(trimmed(message.api)) && stopsCleanly(message);
}

/** A transcript-only delivery mirror: an assistant from provider openclaw, model delivery-mirror or gateway-injected. */
export function isDeliveryMirror(message: Record<string, unknown>): boolean {
  const model = trimmed(message.model);
  return message.role === 'assistant' && trimmed(message.provider) === 'openclaw' && (model === 'delivery-mirror' || model === 'gateway-injected');
}

export function isMessageToolName(name: string | undefined): boolean {
  return trimmed(name).toLowerCase() === 'message';
}

/** §9.3 4.3: the synthetic result entry inserted right after an assistant line. */
export function syntheticResultEntry(parent: unknown, call: ToolCall, id: string, now: number): Record<string, unknown> {
  const parentId = isObject(parent) && typeof parent.id === 'string' ? parent.id : undefined;
  return {
    type: 'message',
    id,
    ...(parentId === undefined ? {} : { parentId }),
    timestamp: new Date(now).toISOString(),
    message: {
      role: 'toolResult',
      toolCallId: call.id,
      toolName: call.name ?? 'unknown',
      content: [{ type: 'text', text: 'aborted' }],
      details: { openclawSyntheticMissingToolResult: true },
      isError: true,
      timestamp: now,
    },
  };
}

export interface RepairCounts {
  droppedLines: number;
  rewrittenAssistantMessages: number;
  droppedBlankUserMessages: number;
  rewrittenUserMessages: number;
  removedCorruptedImageBlocks: number;
  insertedToolResults: number;
}

/** The debug summary of §9.2. */
export function repairSummary(counts: RepairCounts): string {
  const parts: string[] = [];
  if (counts.droppedLines > 0) parts.push(`dropped ${counts.droppedLines} malformed line(s)`);
  if (counts.rewrittenAssistantMessages > 0) parts.push(`rewrote ${counts.rewrittenAssistantMessages} assistant message(s)`);
  if (counts.droppedBlankUserMessages > 0) parts.push(`dropped ${counts.droppedBlankUserMessages} blank user message(s)`);
  if (counts.rewrittenUserMessages > 0) parts.push(`rewrote ${counts.rewrittenUserMessages} user message(s)`);
  if (counts.removedCorruptedImageBlocks > 0) parts.push(`removed ${counts.removedCorruptedImageBlocks} corrupted image block(s)`);
  if (counts.insertedToolResults > 0) parts.push(`inserted ${counts.insertedToolResults} missing tool result(s)`);
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}
