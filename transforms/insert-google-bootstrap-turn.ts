/**
 * insert-google-bootstrap-turn (spec turns-images-policy.md §3.5, pipeline step 16, when the
 * policy has `applyGoogleTurnOrdering`).
 *
 * Invariant: the replay copy does not start with an assistant turn. When the first message that
 * reaches this step (after every earlier step dropped what it drops: blank turns, orphan results,
 * failed frames) is an assistant, the user turn
 * `{role: "user", content: "(session bootstrap)", timestamp: <now>}` is inserted before it. A
 * user first message (a bootstrap left by an earlier run included), any other role and an empty
 * input are left alone, so the rule is idempotent.
 *
 * Error prevented: Gemini rejects a conversation whose first turn is a model turn ("Please ensure
 * that multiturn requests alternate between user and model" / the first content must be a user turn).
 *
 * Unit: message, with one bit of state (has the first message gone by); nothing is held.
 * Counter: `inserted`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message, UserMessage } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

/** The exact text of the inserted user turn. */
export const SESSION_BOOTSTRAP_TEXT = '(session bootstrap)';

/** A fresh bootstrap turn: string content, a timestamp, no other fields. */
export function sessionBootstrapTurn(timestamp: number): UserMessage {
  return { role: 'user', content: SESSION_BOOTSTRAP_TEXT, timestamp };
}

/** Whether a history whose first message is `first` needs the bootstrap turn in front. */
export function needsBootstrapTurn(first: unknown): boolean {
  return isRecord(first) && first.role === 'assistant';
}

/** The whole-array form: the specification the streaming rule is tested against. */
export function insertBootstrapTurn(messages: readonly Message[], now: () => number): Message[] {
  return needsBootstrapTurn(messages[0]) ? [sessionBootstrapTurn(now()), ...messages] : [...messages];
}

/** The processor both bootstrap rules share: looks at the first message only. */
export class BootstrapTurnInserter implements RuleProcessor {
  private seenFirst = false;

  constructor(private readonly ctx: Pick<RuleContext, 'count' | 'now'>) {}

  push(message: Message, emit: Emit): void {
    if (!this.seenFirst) {
      this.seenFirst = true;
      if (needsBootstrapTurn(message)) {
        this.ctx.count('inserted');
        emit(sessionBootstrapTurn(this.ctx.now()));
      }
    }
    emit(message);
  }

  end(): void {}
}

export const insertGoogleBootstrapTurnRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'insert-google-bootstrap-turn',
    summary: 'Puts a "(session bootstrap)" user turn in front of a history that starts with an assistant turn.',
    counters: ['inserted'],
  },
  create(ctx) {
    return new BootstrapTurnInserter(ctx);
  },
};
