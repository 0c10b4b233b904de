/**
 * The Anthropic Messages request as the API judges it: the request body's `messages` read back
 * into the project's message model, checked with the project's provider rules
 * (`lib/invariants/`, family `anthropic`), plus the wire-level rules that the invariants leave to
 * the runtime's conversion (roles, `tool_use.input` objects, signatures as sent). Each violation
 * carries the location and wording of the 400 the API returns for it.
 *
 * Reading back: a `tool_use` is a `toolCall` block (input as `arguments`); each `tool_result`
 * block becomes a `toolResult` message answering `tool_use_id`, in block order, and the other
 * blocks of the same user message a user message after them; a `thinking` block keeps its
 * `signature` as `thinkingSignature`; a string `content` is one text block, in a `tool_result`
 * too, so an empty or whitespace-only tool output is a blank text block (pi sends an empty
 * output, `content: []`, as `""`).
 */
import { checkTranscript } from '../../../lib/invariants/index.ts';
import { isRecord } from '../../../lib/types.ts';

import type { WireViolation } from './api.ts';

export type { WireViolation } from './api.ts';

interface Origin {
  readonly message: number;
  readonly block?: number;
}

interface ReadBack {
  readonly messages: Record<string, unknown>[];
  /** Where each read-back message came from in the request. */
  readonly origins: Origin[];
}

function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function resultContent(content: unknown): unknown[] {
  return content === undefined ? [] : blocksOf(content);
}

function readAssistantBlock(block: unknown): unknown {
  if (!isRecord(block)) return block;
  switch (block.type) {
    case 'tool_use':
      return { type: 'toolCall', id: block.id, name: block.name, arguments: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, thinkingSignature: block.signature };
    default:
      return block;
  }
}

function readBack(messages: readonly unknown[]): ReadBack {
  const out: Record<string, unknown>[] = [];
  const origins: Origin[] = [];
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    if (message.role === 'assistant') {
      out.push({ role: 'assistant', content: blocksOf(message.content).map(readAssistantBlock), stopReason: 'stop' });
      origins.push({ message: index });
      return;
    }
    if (message.role !== 'user') return;
    const rest: unknown[] = [];
    let firstRest: number | undefined;
    blocksOf(message.content).forEach((block, b) => {
      if (isRecord(block) && block.type === 'tool_result') {
        out.push({ role: 'toolResult', toolCallId: block.tool_use_id, content: resultContent(block.content), isError: block.is_error === true });
        origins.push({ message: index, block: b });
      } else {
        firstRest ??= b;
        rest.push(block);
      }
    });
    if (rest.length > 0 || typeof message.content === 'string' || (Array.isArray(message.content) && message.content.length === 0)) {
      out.push({ role: 'user', content: typeof message.content === 'string' ? message.content : rest });
      origins.push({ message: index, ...(firstRest === undefined ? {} : { block: firstRest }) });
    }
  });
  return { messages: out, origins };
}

function location(origin: Origin | undefined, block?: number): string {
  if (origin === undefined) return 'messages';
  const at = block ?? origin.block;
  return at === undefined ? `messages.${origin.message}` : `messages.${origin.message}.content.${at}`;
}

/** The API's wording per invariant, given the offending id. */
const WORDING: Record<string, (id: string) => string> = {
  'anthropic/tool-result-missing': (id) =>
    `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  'anthropic/unexpected-tool-result': (id) =>
    `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
  'anthropic/duplicate-tool-result': (id) => `each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`,
  'anthropic/tool-use-id-pattern': () => "String should match pattern '^[a-zA-Z0-9_-]+$'",
  'anthropic/duplicate-tool-use-id': () => '`tool_use` ids must be unique',
  'anthropic/empty-content': () => 'all messages must have non-empty content except for the optional final assistant message',
  'anthropic/blank-text': () => 'text content blocks must contain non-whitespace text',
  'anthropic/trailing-prefill': () =>
    'Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
};

/** Where the API reports an invariant: the message, or the block inside it. */
function invariantLocation(rule: string, origin: Origin | undefined, block: number | undefined): string {
  if (rule === 'anthropic/tool-result-missing' || rule === 'anthropic/empty-content') return location(origin && { message: origin.message });
  if (rule === 'anthropic/tool-use-id-pattern') return `${location(origin, block)}.${origin?.block === undefined ? 'tool_use.id' : 'tool_result.tool_use_id'}`;
  if (rule === 'anthropic/blank-text') return 'messages';
  return location(origin, block);
}

function wireChecks(messages: readonly unknown[], out: WireViolation[]): void {
  messages.forEach((message, m) => {
    if (!isRecord(message)) {
      out.push({ rule: 'wire/message-object', message: `messages.${m}: Input should be a valid dictionary` });
      return;
    }
    if (message.role !== 'user' && message.role !== 'assistant') {
      out.push({ rule: 'wire/role', message: `messages.${m}.role: Input should be 'user' or 'assistant'` });
      return;
    }
    if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
      out.push({ rule: 'wire/content', message: `messages.${m}.content: Input should be a valid list` });
      return;
    }
    if (!Array.isArray(message.content)) return;
    message.content.forEach((block, b) => {
      const at = `messages.${m}.content.${b}`;
      if (!isRecord(block)) {
        out.push({ rule: 'wire/block-object', message: `${at}: Input should be a valid dictionary` });
        return;
      }
      if (block.type === 'text' && typeof block.text !== 'string') out.push({ rule: 'wire/text', message: `${at}.text: Input should be a valid string` });
      if (message.role === 'assistant' && block.type === 'tool_result') out.push({ rule: 'wire/role', message: `${at}: \`tool_result\` blocks can only be in \`user\` messages` });
      if (message.role === 'user' && (block.type === 'tool_use' || block.type === 'thinking')) out.push({ rule: 'wire/role', message: `${at}: \`${String(block.type)}\` blocks can only be in \`assistant\` messages` });
      if (block.type === 'tool_use') {
        const input = block.input;
        if (!isRecord(input)) out.push({ rule: 'wire/tool-use-input', message: `${at}.tool_use.input: Input should be a valid dictionary` });
        if (typeof block.name !== 'string' || block.name === '') out.push({ rule: 'wire/tool-use-name', message: `${at}.tool_use.name: Field required` });
      }
      if (block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature.trim() === '')) {
        out.push({ rule: 'wire/thinking-signature', message: `${at}.thinking.signature: Field required` });
      }
      if (block.type === 'redacted_thinking' && (typeof block.data !== 'string' || block.data.trim() === '')) {
        out.push({ rule: 'wire/redacted-thinking-data', message: `${at}.redacted_thinking.data: Field required` });
      }
    });
  });
}

/** Every rule the request breaks, wire-level first; empty when the API would take it. */
export function checkAnthropicRequest(body: unknown): WireViolation[] {
  const out: WireViolation[] = [];
  if (!isRecord(body)) return [{ rule: 'wire/body', message: 'Input should be a valid dictionary' }];
  if (!Array.isArray(body.messages)) return [{ rule: 'wire/messages', message: 'messages: Field required' }];
  if (typeof body.model !== 'string') out.push({ rule: 'wire/model', message: 'model: Field required' });
  wireChecks(body.messages, out);
  const { messages, origins } = readBack(body.messages);
  const thinking = isRecord(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
  const violations = checkTranscript(messages, { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: String(body.model), thinking });
  for (const violation of violations) {
    const wording = WORDING[violation.rule];
    const origin = origins[violation.index];
    const text = wording === undefined ? violation.message : wording(violation.id ?? '');
    out.push({ rule: violation.rule, message: `${invariantLocation(violation.rule, origin, violation.block)}: ${text}` });
  }
  return out;
}
