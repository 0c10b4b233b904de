/**
 * strip-thought-signatures (spec thinking.md §4.9; thinking.md §1.1 step 3, which is step 5 of
 * turns-images-policy.md §1: it belongs to the image + blank-text pass and runs before
 * `drop-blank-text-blocks`).
 *
 * Invariant: an assistant turn replays no thought signature the route's provider cannot use.
 * By default (`policy.sanitizeThoughtSignatures` undefined: OpenAI, OpenRouter non-Gemini,
 * completions routes) a snake_case `thought_signature` that is a string starting with `msg_`
 * (an OpenAI message id, not a signature) is removed. With `{allowBase64Only: true}` (the Google
 * family, OpenRouter and opencode-go Gemini models) `thought_signature` is removed unless it is
 * a string that passes `isBase64Signature`, and with `includeCamelCase: true` the same test
 * applies to `thoughtSignature`.
 *
 * Error prevented: Gemini rejects thought signatures that are not its own base64 tokens
 * ("Corrupted thought signature"); OpenAI message ids replayed as signatures are meaningless.
 *
 * Enabled when `!policy.preserveSignatures` (every route but the Anthropic-API ones; see
 * `stripThoughtSignaturesEnabled`). Per message, assistant turns with `stopReason: "error"` are
 * left alone, as are user, tool-result and other roles and string content.
 *
 * Unit: message (stateless). Counter: `strippedSignatures` (signature fields removed).
 * Untouched messages and blocks are returned as the same objects.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ThoughtSignatureSanitizing, TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

const BASE64_ALPHABETS = /^[A-Za-z0-9+/=_-]+$/;
const URL_SAFE_CHARS = /[-_]/;
const TRAILING_PADDING = /=+$/;

/**
 * `isBase64Signature` (thinking.md §4.9): non-blank after trim; whitespace removed, only base64
 * or base64url characters; decoded as base64url when it holds `-` or `_`, else as base64; at
 * least one byte; and canonical: re-encoding with the same alphabet gives the same text, up to
 * trailing `=`.
 */
export function isBase64Signature(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (trimmed === '') return false;
  const compact = trimmed.replace(/\s+/g, '');
  if (!BASE64_ALPHABETS.test(compact)) return false;
  const encoding = URL_SAFE_CHARS.test(compact) ? 'base64url' : 'base64';
  const decoded = Buffer.from(compact, encoding);
  if (decoded.length === 0) return false;
  return decoded.toString(encoding).replace(TRAILING_PADDING, '') === compact.replace(TRAILING_PADDING, '');
}

/** Whether one signature value is removed under the route's options. */
function shouldStrip(value: unknown, allowBase64Only: boolean): boolean {
  if (value === undefined) return false;
  if (allowBase64Only) return !isBase64Signature(value);
  return typeof value === 'string' && value.startsWith('msg_');
}

/**
 * The blocks of one assistant content array with the options' signatures removed: the same
 * array when nothing is removed. `removed` counts the fields taken out.
 */
export function stripThoughtSignaturesFromContent(
  content: readonly unknown[],
  options: ThoughtSignatureSanitizing | undefined,
): { content: readonly unknown[]; removed: number } {
  const allowBase64Only = options?.allowBase64Only === true;
  const includeCamelCase = options?.includeCamelCase === true;
  let next: unknown[] | undefined;
  let removed = 0;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isRecord(block)) continue;
    const snake = shouldStrip(block.thought_signature, allowBase64Only);
    const camel = includeCamelCase && shouldStrip(block.thoughtSignature, allowBase64Only);
    if (!snake && !camel) continue;
    const copy: Record<string, unknown> = { ...block };
    if (snake) {
      delete copy.thought_signature;
      removed++;
    }
    if (camel) {
      delete copy.thoughtSignature;
      removed++;
    }
    next ??= content.slice();
    next[i] = copy;
  }
  return next === undefined ? { content, removed: 0 } : { content: next, removed };
}

/**
 * The cleanup for one message: the same object unless it is an array assistant that did not
 * end in an error and carries a signature the options remove. The caller checks
 * `policy.preserveSignatures` (see `stripThoughtSignaturesEnabled`).
 */
export function stripThoughtSignatures(message: Message, options: ThoughtSignatureSanitizing | undefined): Message {
  return strip(message, options).message;
}

function strip(message: Message, options: ThoughtSignatureSanitizing | undefined): { message: Message; removed: number } {
  if (message.role !== 'assistant' || message.stopReason === 'error') return { message, removed: 0 };
  const content = message.content;
  if (!Array.isArray(content)) return { message, removed: 0 };
  const result = stripThoughtSignaturesFromContent(content, options);
  if (result.removed === 0) return { message, removed: 0 };
  return { message: { ...message, content: result.content as ContentBlock[] }, removed: result.removed };
}

/** The whole-array form: every message through `stripThoughtSignatures`. */
export function stripThoughtSignaturesFromMessages(
  messages: readonly Message[],
  options: ThoughtSignatureSanitizing | undefined,
): Message[] {
  return messages.map((message) => stripThoughtSignatures(message, options));
}

/** The pipeline gate: the images pass strips thought signatures unless the policy preserves signatures. */
export function stripThoughtSignaturesEnabled(policy: TranscriptPolicy, _options?: ResolvedHygieneOptions): boolean {
  return !policy.preserveSignatures;
}

export const stripThoughtSignaturesRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'strip-thought-signatures',
    summary: 'Removes thought signatures the provider cannot replay: OpenAI msg_ ids by default, anything but canonical base64 on Gemini routes; error turns are left alone.',
    counters: ['strippedSignatures'],
  },
  apply(message, ctx) {
    const result = strip(message, ctx.policy.sanitizeThoughtSignatures);
    if (result.removed > 0) ctx.count('strippedSignatures', result.removed);
    return result.message;
  },
};
