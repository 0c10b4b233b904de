/**
 * enforce-tool-use-id-pattern: our provider rule, not the reference's. Near the end of the
 * replay steps, every call id matches the id rule of the model the request reaches
 * (`policy.enforceToolUseIdPattern`): `^[a-zA-Z0-9_-]+$` where the ids reach Claude (Anthropic
 * Messages for Claude, OpenRouter's Anthropic models, Claude behind Antigravity), Converse's
 * `^[a-zA-Z0-9_.:-]{1,64}$` on Bedrock (relaxed on 2026-04-02 to allow dots and colons, so a
 * Kimi id `functions.read:0` is kept there), and at most 40 characters for OpenAI and GitHub
 * Copilot chat completions. Gateways that issue and check their own ids (MiniMax on
 * `anthropic-messages`: error 2013 for a result id it did not issue) get no rule. A call whose id
 * does not match gets a new one, and the results that answer it follow.
 *
 * Why: the id sanitizer keeps some ids verbatim by design (tool-calls.md §5.4: first-use
 * Kimi-native `functions.read:0`; §5.5: the ids of replay-safe signed-thinking turns), and routes
 * without the sanitizer keep every id. A session that switched models carries such ids into a
 * Claude request, which fails: `tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`
 * (Bedrock: `|`, spaces, more than 64 characters; OpenAI chat: a 46-character id, litellm#17343).
 * A tool call id is not covered by a thinking signature, so a signed turn stays replayable.
 *
 * The new id is the old one's letters and digits (at most 28) and 12 hex digits of a hash of the
 * old id and its occurrence: stable from run to run, and, being at most 40 alphanumerics, one the
 * strict id sanitizer keeps as it is, so a second run changes nothing. It is unique: ids seen so
 * far that could equal such a candidate (alphanumerics ending in 12 lowercase hex digits, at most
 * 40 in all) are kept (hashed, lib/hashed-ids.ts), and a taken one moves to the next attempt. An
 * id of any other shape can never equal a candidate, so leaving it out changes no answer; it
 * keeps the table near empty on real sessions (`toolu_…`, `call_…|fc_…`: 8 MiB at 1M messages).
 *
 * Unit: message. State: the ids seen, and for each rewritten call id the queue of new ids its
 * results still have to take (a result after its call, as pairing repair left them). A result
 * whose id breaks the pattern and answers no rewritten call is left to
 * drop-orphaned-tool-results, which runs after this rule. Counters: `idsRewritten`,
 * `resultsRewritten`.
 */
import type { BufferedRule, Emit, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import type { ToolUseIdFamily, TranscriptPolicy } from '../lib/policy.ts';
import { recordEdits } from '../lib/message-edits.ts';
import { HashedIdCounter, HashedIdSet } from '../lib/hashed-ids.ts';
import { isPairedCallBlock, mapCallBlockIds, rewriteRawIdOf, rewriteResultIds, sha256Hex } from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

/** A call id as each provider accepts it (lib/invariants/anthropic.ts, bedrock.ts, chat-completions.ts). */
export const TOOL_USE_ID_PATTERNS: Readonly<Record<ToolUseIdFamily, RegExp>> = Object.freeze({
  anthropic: /^[a-zA-Z0-9_-]+$/,
  bedrock: /^[a-zA-Z0-9_.:-]{1,64}$/,
  'openai-chat': /^[\s\S]{1,40}$/,
});
const NOT_ALPHANUMERIC = /[^a-zA-Z0-9]/g;
const KEPT_CHARACTERS = 28;
const HASH_DIGITS = 12;

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Whether `id` has the shape of an allocated id (`allocate`): 0-28 alphanumerics, then 12 lowercase hex digits. */
export function couldBeAllocatedId(id: string): boolean {
  const length = id.length;
  if (length < HASH_DIGITS || length > KEPT_CHARACTERS + HASH_DIGITS) return false;
  for (let i = length - 1; i >= 0; i--) {
    const code = id.charCodeAt(i);
    if (i >= length - HASH_DIGITS ? !((code >= 48 && code <= 57) || (code >= 97 && code <= 102)) : !isAlphanumeric(code)) return false;
  }
  return true;
}

export class ToolUseIdEnforcer implements RuleProcessor {
  /** The ids seen that could equal an allocated one (couldBeAllocatedId): the others never collide. */
  private readonly seen = new HashedIdSet();
  private readonly occurrences = new HashedIdCounter();
  /** Not readonly: replaced by a new map when it empties (lib/young-maps.ts). */
  private pending = new Map<string, string[]>();

  private readonly pattern: RegExp;

  constructor(family: ToolUseIdFamily, private readonly count: (counter: string, n?: number) => void) {
    this.pattern = TOOL_USE_ID_PATTERNS[family];
  }

  push(message: Message, emit: Emit): void {
    if (message.role === 'assistant') emit(this.assistant(message));
    else if (message.role === 'toolResult') emit(this.result(message));
    else emit(message);
  }

  end(): void {
    this.dispose();
  }

  /** Closes the tables' run files (lib/hashed-ids.ts), if they spilled. */
  dispose(): void {
    this.seen.dispose();
    this.occurrences.dispose();
  }

  /** How many ids the collision check holds (for the memory tests). */
  get heldIds(): number {
    return this.seen.size;
  }

  private assistant(message: Message): Message {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    const { content: out, edits } = mapCallBlockIds(content, isPairedCallBlock, (id) => {
      if (this.pattern.test(id)) {
        if (couldBeAllocatedId(id)) this.seen.add(id);
        return id;
      }
      const next = this.allocate(id);
      const queue = this.pending.get(id);
      if (queue === undefined) this.pending.set(id, [next]);
      else queue.push(next);
      return next;
    });
    if (out === undefined) return message;
    this.count('idsRewritten', edits.length);
    return recordEdits(message, { ...message, content: out }, edits);
  }

  private allocate(id: string): string {
    const occurrence = this.occurrences.increment(id);
    const kept = id.replace(NOT_ALPHANUMERIC, '').slice(0, KEPT_CHARACTERS);
    for (let attempt = 0; ; attempt++) {
      const candidate = `${kept}${sha256Hex(`${id}:${occurrence}:${attempt}`).slice(0, 12)}`;
      if (this.seen.claim(candidate)) return candidate;
    }
  }

  private result(message: Message): Message {
    const raw = rewriteRawIdOf(message);
    if (raw === undefined) return message;
    const queue = this.pending.get(raw);
    if (queue === undefined) return message;
    const next = queue.shift()!;
    if (queue.length === 0) this.pending = deleteKey(this.pending, raw);
    const out = rewriteResultIds(message, next);
    if (out !== message) this.count('resultsRewritten');
    return out;
  }
}

/** The whole-array form, for tests and the differential suites. */
export function enforceToolUseIdPattern(messages: readonly Message[], family: ToolUseIdFamily): Message[] {
  const out: Message[] = [];
  const enforcer = new ToolUseIdEnforcer(family, () => {});
  for (const message of messages) enforcer.push(message, (m) => out.push(m));
  enforcer.end();
  return out;
}

export function enforceToolUseIdPatternEnabled(policy: TranscriptPolicy): boolean {
  return policy.enforceToolUseIdPattern !== false;
}

export const enforceToolUseIdPatternRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'enforce-tool-use-id-pattern',
    summary: 'Ours: gives a call whose id breaks the id rule of the model the request reaches (Claude ^[a-zA-Z0-9_-]+$, Bedrock [a-zA-Z0-9_.:-] up to 64, OpenAI/Copilot chat up to 40; none for MiniMax) a new id, and its results with it.',
    counters: ['idsRewritten', 'resultsRewritten'],
  },
  create: (ctx) => new ToolUseIdEnforcer(ctx.policy.enforceToolUseIdPattern || 'anthropic', ctx.count),
};
