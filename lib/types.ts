/**
 * The message model of a replayed transcript. Shapes are compatible with pi-ai's
 * (the agent runtime OpenClaw is built on). Everything is open: unknown roles,
 * unknown block types and unknown fields pass through untouched, so every type
 * here carries an index signature.
 */

export interface TextBlock {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  thinkingSignature?: string;
  [key: string]: unknown;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking' | 'redactedThinking';
  data?: string;
  [key: string]: unknown;
}

/** A tool call as pi-ai stores it; `toolUse` and `functionCall` are the same idea under other providers' names. */
export interface ToolCallBlock {
  type: 'toolCall' | 'toolUse' | 'functionCall';
  id?: string;
  name?: string;
  arguments?: unknown;
  input?: unknown;
  partialJson?: string;
  [key: string]: unknown;
}

export interface ImageBlock {
  type: 'image';
  data?: string;
  mimeType?: string;
  [key: string]: unknown;
}

/** Any block, including block types this project does not know (they pass through). */
export interface UnknownBlock {
  type?: unknown;
  [key: string]: unknown;
}

export type ContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock | ImageBlock | UnknownBlock;

export interface UserMessage {
  role: 'user';
  content: string | ContentBlock[];
  timestamp?: number;
  provenance?: unknown;
  [key: string]: unknown;
}

export interface AssistantMessage {
  role: 'assistant';
  content: ContentBlock[] | string;
  stopReason?: string;
  provider?: string;
  api?: string;
  model?: string;
  timestamp?: number;
  [key: string]: unknown;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId?: string;
  toolName?: string;
  content: ContentBlock[] | string;
  isError?: boolean;
  details?: unknown;
  timestamp?: number;
  [key: string]: unknown;
}

/** A message of a role this project does not know (`compactionSummary`, `custom`, ...): passed through. */
export interface OtherMessage {
  role?: unknown;
  [key: string]: unknown;
}

/** Any message object in the stream. Non-objects never enter the pipeline (the reader drops and counts them). */
export type Message = UserMessage | AssistantMessage | ToolResultMessage | OtherMessage;

export function isUserMessage(message: Message): message is UserMessage {
  return message.role === 'user';
}

export function isAssistantMessage(message: Message): message is AssistantMessage {
  return message.role === 'assistant';
}

export function isToolResultMessage(message: Message): message is ToolResultMessage {
  return message.role === 'toolResult';
}

/** True for a plain (non-null, non-array) object: the only values the pipeline carries as messages. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Harness roles the runtime replays to the model as user messages (OpenClaw's message types). */
const REPLAYED_HARNESS_ROLES: ReadonlySet<unknown> = new Set(['compactionSummary', 'branchSummary', 'bashExecution', 'custom']);

/** A harness message the runtime's `convertToLlm` sends as a user message (unless `excludeFromContext`). */
export function isReplayedHarnessMessage(message: Record<string, unknown>): boolean {
  return REPLAYED_HARNESS_ROLES.has(message.role) && message.excludeFromContext !== true;
}

/** "Blank" as the spec defines it: a string that is empty after JavaScript's trim(). */
export function isBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() === '';
}
