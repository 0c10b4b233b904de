/**
 * bridge-bedrock-user-turns: our provider rule, not the reference's (spec README "Provider rules
 * come before the reference": "Bedrock histories that ... do not alternate"). On
 * `bedrock-converse-stream` routes, where two messages would go out as two user messages in a
 * row, a short assistant turn, `(no assistant reply)`, is put between them.
 *
 * Why: the runtime's Converse transport sends a run of tool results as one user message with
 * `toolResult` blocks and every `user` message, and every harness message replayed as one
 * (compaction and branch summaries, bash executions, custom messages), as a user message of its
 * own; it merges nothing. So a user turn right after tool results, which an interrupted run
 * leaves ("tool ran, the user typed before the model answered"), fails with "A conversation must
 * alternate between user and assistant roles". The Anthropic Messages API combines consecutive
 * user turns itself; Converse does not. The reference sends such a history unchanged.
 *
 * Why a turn and not a merge: the user's words cannot join a tool result message without being
 * read as tool output, and a result run cannot join a user message in this message format. The
 * placeholder is marked like the reference's own (`(session bootstrap)`, `[tool calls omitted]`).
 *
 * It runs last among the replay rules, after pairing has placed every result. A later pass over
 * this output sees the placeholder as the latest assistant turn, which the thinking rules treat
 * as such (test/properties/harness.ts lists that as a known non-idempotence).
 *
 * Unit: message, with the provider role of the previous message as state; nothing is held.
 * Counter: `inserted`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isReplayedHarnessMessage } from '../lib/types.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';

export const BRIDGE_TEXT = '(no assistant reply)';

type SentAs = 'user' | 'tool-results' | 'assistant' | undefined;

/** How the runtime sends the message: undefined for what it does not send (role-less, unknown roles). */
function sentAs(message: Message): SentAs {
  const role = message.role;
  if (role === 'toolResult') return 'tool-results';
  if (role === 'user' || role === 'assistant') return role;
  if (isReplayedHarnessMessage(message)) return 'user';
  return undefined;
}

export function bridgeTurn(timestamp: unknown): Message {
  const turn: Message = { role: 'assistant', content: [{ type: 'text', text: BRIDGE_TEXT }], stopReason: 'stop' };
  if (typeof timestamp === 'number') turn.timestamp = timestamp;
  return turn;
}

export class UserTurnBridge implements RuleProcessor {
  private previous: SentAs;
  private previousTimestamp: unknown;

  constructor(private readonly count: (counter: string) => void) {}

  push(message: Message, emit: Emit): void {
    const kind = sentAs(message);
    if (kind === undefined) {
      emit(message);
      return;
    }
    const continuesResultRun = kind === 'tool-results' && this.previous === 'tool-results';
    if (kind !== 'assistant' && this.previous !== undefined && this.previous !== 'assistant' && !continuesResultRun) {
      this.count('inserted');
      emit(bridgeTurn(this.previousTimestamp));
    }
    this.previous = kind;
    this.previousTimestamp = message.timestamp;
    emit(message);
  }

  end(): void {}
}

/** The whole-array form, for tests and the differential suites. */
export function bridgeBedrockUserTurns(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  const bridge = new UserTurnBridge(() => {});
  for (const message of messages) bridge.push(message, (m) => out.push(m));
  return out;
}

export function bridgeBedrockUserTurnsEnabled(policy: TranscriptPolicy): boolean {
  return policy.bridgeBedrockUserTurns;
}

export const bridgeBedrockUserTurnsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'bridge-bedrock-user-turns',
    summary: `Bedrock Converse only (our provider rule): puts a "${BRIDGE_TEXT}" assistant turn between two messages that would go out as consecutive user messages (a user turn right after tool results, a summary after a user turn).`,
    counters: ['inserted'],
  },
  create: (ctx: RuleContext) => new UserTurnBridge(ctx.count),
};
