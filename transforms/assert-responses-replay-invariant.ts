/**
 * assert-responses-replay-invariant (spec tool-calls.md §8, Rule F; tool-calls.md §1.1 step 9,
 * turns-images-policy.md §1 step 14, after the second Responses pairing repair; OpenAI Responses
 * routes only).
 *
 * Invariant: every tool call of a Responses replay is answered by the results directly after its
 * assistant turn (in any order), and every result answers a call of the turn just before it.
 * A transcript that breaks it is not replayed: the rule throws
 * `HygieneError('invalid_replay_transcript', 'invalid_replay_transcript: OpenAI Responses replay
 * contains <reason>[ toolCallId=<id>] at message index <n>')`, `<n>` counting this rule's input.
 *
 * Error prevented: sending OpenAI Responses a `function_call` without its output or an output
 * without its call ("No tool call found for function call output"), which fails the whole request.
 *
 * Unit: buffered, never holding a message: the state is the map of pending call ids; the check for
 * calls left pending at the end runs in `end()`. Counter: `resultsVerified`. Messages pass through
 * as the same objects.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { HygieneError } from '../lib/errors.ts';
import { isPairedCallBlock, resultIdOf } from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

export type ReplayInvariantReason = 'dangling_tool_call' | 'orphan_tool_result';

/** The error of §8, with the reference's message text. */
export function replayInvariantError(reason: ReplayInvariantReason, toolCallId: string | undefined, index: number): HygieneError {
  const id = toolCallId === undefined ? '' : ` toolCallId=${toolCallId}`;
  return new HygieneError(
    'invalid_replay_transcript',
    `invalid_replay_transcript: OpenAI Responses replay contains ${reason}${id} at message index ${index}`,
  );
}

/** The §8 check, fed one message at a time; throws at the first violation. */
export class ResponsesReplayInvariant {
  /** Call id → index of the assistant that made it, in insertion order; a new map when it empties (lib/young-maps.ts). */
  private pending = new Map<string, number>();
  private index = 0;
  /** Results matched to a pending call so far. */
  verified = 0;

  check(message: unknown): void {
    const index = this.index++;
    const pending = this.pending;
    const role = isRecord(message) ? message.role : undefined;
    if (pending.size > 0 && role !== 'toolResult') this.throwDangling();
    if (!isRecord(message)) return;
    if (role === 'toolResult') {
      const id = resultIdOf(message as Message);
      if (id === undefined || !pending.has(id)) throw replayInvariantError('orphan_tool_result', id, index);
      this.pending = deleteKey(pending, id);
      this.verified++;
      return;
    }
    if (role !== 'assistant') return;
    const content = message.content;
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (isPairedCallBlock(block)) pending.set(block.id, index);
    }
  }

  /** End of input: a call still pending is dangling. */
  finish(): void {
    if (this.pending.size > 0) this.throwDangling();
  }

  private throwDangling(): never {
    const [id, index] = this.pending.entries().next().value as [string, number];
    throw replayInvariantError('dangling_tool_call', id, index);
  }
}

/** `assertOpenAIResponsesToolUseResultInvariant(messages)`: returns its input, or throws. */
export function assertResponsesReplayInvariant<T extends readonly unknown[]>(messages: T): T {
  const invariant = new ResponsesReplayInvariant();
  for (const message of messages) invariant.check(message);
  invariant.finish();
  return messages;
}

/** The rule's processor: a class, so a forked copy of its state (lib/fork-state.ts) is its own. */
class InvariantProcessor implements RuleProcessor {
  private readonly invariant = new ResponsesReplayInvariant();

  constructor(private readonly ctx: RuleContext) {}

  push(message: Message, emit: Emit): void {
    this.invariant.check(message);
    emit(message);
  }

  end(): void {
    this.invariant.finish();
    if (this.invariant.verified > 0) this.ctx.count('resultsVerified', this.invariant.verified);
  }
}

export const assertResponsesReplayInvariantRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'assert-responses-replay-invariant',
    summary: 'Fails the replay (invalid_replay_transcript) when an OpenAI Responses tool call is not answered right after its turn or a result answers no such call.',
    counters: ['resultsVerified'],
  },
  create(ctx) {
    return new InvariantProcessor(ctx);
  },
};
