/**
 * The consecutive-merge core shared by the turn validators (spec turns-images-policy.md §3.1–§3.3):
 * the walk that folds a run of same-role turns into one, the two ways of folding (assistants keep
 * the first turn's fields, users the last one's), and a streaming processor that holds only the
 * one output element a later message could still merge into.
 *
 * Not a rule: `merge-consecutive-assistants.ts` and `merge-consecutive-users.ts` are.
 *
 * The walk (§3.1), kept exactly, quirk included: `lastRole` is the role of the last pushed entry
 * that had a truthy role; an entry of the target role merges into the last output element when
 * `lastRole` is the target role and that element is an object, even when that element is a
 * role-less object pushed after the last target-role turn (oracle: an assistant after
 * `{content:"x"}` after an assistant is folded into the role-less object, which stays role-less).
 */
import type { Emit, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';

export type MergeRole = 'assistant' | 'user';

/** The fields a later assistant overrides when it is truthy there (§3.2). */
const ASSISTANT_OVERRIDES = ['usage', 'stopReason', 'errorMessage'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `arr(x)` of §3.2: an array stays, anything else (a string included) contributes nothing. */
function assistantParts(content: unknown): readonly unknown[] {
  return Array.isArray(content) ? content : [];
}

/** `norm(x)` of §3.3: a string becomes one text block, an array stays, anything else contributes nothing. */
function userParts(content: unknown): readonly unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/**
 * §3.2: `{...prev, content: arr(prev) ++ arr(cur), usage/stopReason/errorMessage from cur where
 * truthy}`. Every other field comes from the first turn; string content of either side is lost.
 */
export function mergeAssistantTurns(prev: Message, cur: Message): Message {
  const merged: Record<string, unknown> = { ...prev, content: [...assistantParts(prev.content), ...assistantParts(cur.content)] };
  for (const key of ASSISTANT_OVERRIDES) if (cur[key]) merged[key] = cur[key];
  return merged as Message;
}

/**
 * §3.3: `{...cur, content: norm(prev) ++ norm(cur), timestamp: cur.timestamp ?? prev.timestamp}`.
 * Every other field comes from the last turn (the earlier turn's `provenance`, `idempotencyKey`...
 * are lost, as in the reference). A timestamp that ends up undefined is left out rather than
 * stored as `undefined` (the reference's key would not survive JSON either).
 */
export function mergeUserTurns(prev: Message, cur: Message): Message {
  const merged: Record<string, unknown> = { ...cur, content: [...userParts(prev.content), ...userParts(cur.content)] };
  const timestamp = cur.timestamp ?? prev.timestamp;
  if (timestamp === undefined) delete merged.timestamp;
  else merged.timestamp = timestamp;
  return merged as Message;
}

export function mergeTurnsFor(role: MergeRole): (prev: Message, cur: Message) => Message {
  return role === 'assistant' ? mergeAssistantTurns : mergeUserTurns;
}

/**
 * The §3.1 walk over a whole array, merging runs of `role` pairwise as the reference does. Entries
 * that are not merged come out as the same objects. This is the specification the streaming
 * `ConsecutiveTurnMerger` is tested against.
 */
export function mergeConsecutiveTurns(messages: readonly Message[], role: MergeRole): Message[] {
  const merge = mergeTurnsFor(role);
  const out: Message[] = [];
  let lastRole: unknown;
  for (const message of messages) {
    if (!isObject(message) || !message.role) {
      out.push(message);
      continue;
    }
    const last = out[out.length - 1];
    if (message.role === role && lastRole === role && isObject(last)) {
      out[out.length - 1] = merge(last, message);
      continue;
    }
    out.push(message);
    lastRole = message.role;
  }
  return out;
}

/**
 * Folds a run into one message without re-copying the growing content array at every step (a
 * pairwise merge is quadratic in the run's length). The result equals the pairwise merges, key
 * order included: overridden assistant fields keep the position they first took.
 */
class Fold {
  private readonly parts: unknown[];
  /** Assistants: overridden fields in first-set order. */
  private overrides: Record<string, unknown> | undefined;
  /** Users: the last turn folded in, whose fields the result takes. */
  private last: Message;
  private timestamp: unknown;

  /** Starts the fold with its first merge: `cur` into `base`. */
  constructor(
    private readonly role: MergeRole,
    private readonly base: Message,
    cur: Message,
  ) {
    this.parts = [...(role === 'assistant' ? assistantParts : userParts)(base.content)];
    this.last = base;
    this.timestamp = base.timestamp;
    this.add(cur);
  }

  add(cur: Message): void {
    if (this.role === 'assistant') {
      for (const part of assistantParts(cur.content)) this.parts.push(part);
      for (const key of ASSISTANT_OVERRIDES) {
        if (cur[key]) (this.overrides ??= {})[key] = cur[key];
      }
      return;
    }
    for (const part of userParts(cur.content)) this.parts.push(part);
    this.timestamp = cur.timestamp ?? this.timestamp;
    this.last = cur;
  }

  result(): Message {
    if (this.role === 'assistant') return { ...this.base, content: this.parts as ContentBlock[], ...this.overrides } as Message;
    const merged: Record<string, unknown> = { ...this.last, content: this.parts };
    if (this.timestamp === undefined) delete merged.timestamp;
    else merged.timestamp = this.timestamp;
    return merged as Message;
  }
}

/**
 * The streaming form of `mergeConsecutiveTurns`. Holds at most one output element: the latest
 * target-role turn (with the turns folded into it so far), or a role-less object that came after
 * one (the §3.1 quirk makes it a merge target), until an entry arrives that cannot merge into it
 * (a truthy role other than the target, a role-less object, a non-object) or the input ends.
 * Everything else passes straight through.
 */
export class ConsecutiveTurnMerger implements RuleProcessor {
  private lastRole: unknown;
  /** The output element a later turn may still merge into. */
  private held: Message | undefined;
  /** Created on the first merge into `held` (most held turns are never merged into). */
  private fold: Fold | undefined;

  constructor(
    private readonly role: MergeRole,
    /** Counts `merged` once per turn folded into an earlier one (the rule context's `count`). */
    private readonly count: (counter: string) => void,
  ) {}

  push(message: Message, emit: Emit): void {
    if (!isObject(message) || !message.role) {
      this.flush(emit);
      // A role-less object may still receive a merge; a non-object may not (§3.1).
      if (isObject(message) && this.lastRole === this.role) this.held = message;
      else emit(message);
      return;
    }
    if (message.role === this.role && this.lastRole === this.role && this.held !== undefined) {
      if (this.fold === undefined) this.fold = new Fold(this.role, this.held, message);
      else this.fold.add(message);
      this.count('merged');
      return;
    }
    this.flush(emit);
    this.lastRole = message.role;
    if (message.role === this.role) this.held = message;
    else emit(message);
  }

  end(emit: Emit): void {
    this.flush(emit);
  }

  private flush(emit: Emit): void {
    const held = this.held;
    if (held === undefined) return;
    const fold = this.fold;
    this.held = undefined;
    this.fold = undefined;
    emit(fold === undefined ? held : fold.result());
  }
}
