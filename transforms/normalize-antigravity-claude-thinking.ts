/**
 * normalize-antigravity-claude-thinking (spec thinking.md §4.18, the seed's rule: "Antigravity
 * Claude: thinking signatures are normalized and unsigned thinking blocks are dropped"; a seed
 * deviation, spec/README.md: the reference keeps these blocks, E21). It takes the slot of the
 * thinking-signature cleanup, step 6 of turns-images-policy.md §1 (thinking.md §1.1 step 5),
 * which does not otherwise run on these Google routes: after the image + blank-text pass (whose
 * base64 thought-signature cleanup, `strip-thought-signatures`, has already run), before
 * tool-call input validation.
 *
 * Invariant: on Google Antigravity with a Claude model every replayed `thinking` block carries a
 * valid signature in `thinkingSignature`. A block's signature is the first of
 * `thinkingSignature`, `signature`, `thought_signature`, `thoughtSignature` that is not
 * null/undefined; it is valid when it is a string whose trimmed form is non-empty, a multiple
 * of 4 long and matches `^[A-Za-z0-9+/]+={0,2}$`. A block without a valid signature is dropped;
 * one whose valid signature sits in another field gets it copied, as is, into
 * `thinkingSignature` (the other fields stay). `redacted_thinking` and other blocks are left
 * alone. An assistant turn this leaves with no blocks is dropped, as the seed's (legacy)
 * implementation did; Gemini turn validation then joins what surrounds it.
 *
 * Error prevented: Claude behind Antigravity rejects thinking blocks without a signature
 * ("messages.N.content.N.thinking.signature: Field required") or with a malformed one.
 *
 * Enabled when `policy.normalizeAntigravityClaudeThinking` (provider `google-antigravity` with a
 * Claude-family model id; `normalizeAntigravityClaudeThinkingEnabled`).
 *
 * Unit: message (stateless). Counters: `droppedBlocks`, `normalizedSignatures`, `droppedTurns`.
 * Untouched messages are returned as the same objects.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

const ANTIGRAVITY_SIGNATURE = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether a value is a signature Antigravity's Claude accepts (trimmed, base64 shape, length a multiple of 4). */
export function isValidAntigravitySignature(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  return trimmed !== '' && trimmed.length % 4 === 0 && ANTIGRAVITY_SIGNATURE.test(trimmed);
}

/** The signature a thinking block carries: the first of the four fields that is not null or undefined. */
function signatureOf(block: Record<string, unknown>): unknown {
  return block.thinkingSignature ?? block.signature ?? block.thought_signature ?? block.thoughtSignature;
}

interface Tally {
  droppedBlocks: number;
  normalizedSignatures: number;
}

function normalize(message: Message, tally: Tally | undefined): Message | null {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
  const content = message.content as unknown[];
  let next: unknown[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isRecord(block) || block.type !== 'thinking') {
      next?.push(block);
      continue;
    }
    const signature = signatureOf(block);
    if (!isValidAntigravitySignature(signature)) {
      next ??= content.slice(0, i);
      if (tally) tally.droppedBlocks++;
      continue;
    }
    if (block.thinkingSignature === signature) {
      next?.push(block);
      continue;
    }
    next ??= content.slice(0, i);
    next.push({ ...block, thinkingSignature: signature });
    if (tally) tally.normalizedSignatures++;
  }
  if (next === undefined) return message;
  if (next.length === 0) return null;
  return { ...message, content: next as ContentBlock[] };
}

/**
 * The rule for one message: the same object when untouched, a new one when blocks were dropped
 * or signatures moved, null when it dropped every block.
 */
export function normalizeAntigravityClaudeThinking(message: Message): Message | null {
  return normalize(message, undefined);
}

/** The whole-array form. */
export function normalizeAntigravityClaudeThinkingInMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const next = normalize(message, undefined);
    if (next !== null) out.push(next);
  }
  return out;
}

/** The pipeline gate. */
export function normalizeAntigravityClaudeThinkingEnabled(policy: TranscriptPolicy, _options?: ResolvedHygieneOptions): boolean {
  return policy.normalizeAntigravityClaudeThinking;
}

const scratch: Tally = { droppedBlocks: 0, normalizedSignatures: 0 };

export const normalizeAntigravityClaudeThinkingRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'normalize-antigravity-claude-thinking',
    summary: 'Antigravity Claude: moves a valid thinking signature into thinkingSignature and drops thinking blocks without one (and turns left empty).',
    counters: ['droppedBlocks', 'normalizedSignatures', 'droppedTurns'],
  },
  apply(message, ctx) {
    scratch.droppedBlocks = 0;
    scratch.normalizedSignatures = 0;
    const out = normalize(message, scratch);
    if (out === message) return out;
    if (scratch.droppedBlocks > 0) ctx.count('droppedBlocks', scratch.droppedBlocks);
    if (scratch.normalizedSignatures > 0) ctx.count('normalizedSignatures', scratch.normalizedSignatures);
    if (out === null) ctx.count('droppedTurns');
    return out;
  },
};
