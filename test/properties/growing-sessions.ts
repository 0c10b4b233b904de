/**
 * fast-check arbitraries for a runner's session seen call by call: a starting transcript, then
 * steps between model calls. Most steps append a turn; the others are what makes a runner's next
 * context not extend its last one: an edit of an earlier message, a compaction (a prefix replaced
 * by a summary), a branch switch (the history cut and a new tail), a model switch (another route),
 * thinking turned on or off, tools turned off or on, a tool result limit set or cleared, and the
 * same context sent again.
 */
import fc from 'fast-check';
import type { Message } from '../../lib/types.ts';
import { transcriptArbitrary } from './arbitraries.ts';

export type SessionStep =
  | { readonly kind: 'append'; readonly turn: Message[] }
  | { readonly kind: 'edit'; readonly at: number; readonly replacement: Message }
  | { readonly kind: 'compact'; readonly at: number }
  | { readonly kind: 'branch'; readonly at: number; readonly tail: Message[] }
  | { readonly kind: 'route'; readonly policy: number }
  | { readonly kind: 'thinking' }
  | { readonly kind: 'tools' }
  | { readonly kind: 'limit' }
  | { readonly kind: 'again' };

/**
 * A turn or two of messages, broken shapes included. Without compaction summaries: a runner's
 * summary replaces a prefix (the compact step), it does not arrive as a new turn.
 */
const turn = transcriptArbitrary({ maxEpisodes: 2 }).map((messages) => messages.filter((message) => (message as { role?: unknown }).role !== 'compactionSummary'));

export const sessionStep: fc.Arbitrary<SessionStep> = fc.oneof(
  { weight: 12, arbitrary: turn.map((messages): SessionStep => ({ kind: 'append', turn: messages })) },
  {
    weight: 2,
    arbitrary: fc.record({ at: fc.nat(), replacement: turn.filter((messages) => messages.length > 0) }).map(({ at, replacement }): SessionStep => ({ kind: 'edit', at, replacement: replacement[0]! })),
  },
  { weight: 1, arbitrary: fc.nat().map((at): SessionStep => ({ kind: 'compact', at })) },
  { weight: 1, arbitrary: fc.record({ at: fc.nat(), tail: turn }).map(({ at, tail }): SessionStep => ({ kind: 'branch', at, tail })) },
  { weight: 1, arbitrary: fc.nat().map((policy): SessionStep => ({ kind: 'route', policy })) },
  { weight: 1, arbitrary: fc.constant<SessionStep>({ kind: 'thinking' }) },
  { weight: 1, arbitrary: fc.constant<SessionStep>({ kind: 'tools' }) },
  { weight: 1, arbitrary: fc.constant<SessionStep>({ kind: 'limit' }) },
  { weight: 1, arbitrary: fc.constant<SessionStep>({ kind: 'again' }) },
);

export interface GrowingSession {
  readonly start: Message[];
  readonly policy: number;
  readonly steps: SessionStep[];
}

export function growingSessionArbitrary(maxSteps: number): fc.Arbitrary<GrowingSession> {
  return fc.record({ start: transcriptArbitrary({ maxEpisodes: 3 }), policy: fc.nat(), steps: fc.array(sessionStep, { minLength: 1, maxLength: maxSteps }) });
}

/** The call's settings a step can switch. */
export interface CallSettings {
  policy: number;
  thinking: boolean;
  tools: boolean;
  limit: boolean;
}

/**
 * Applies a step to the history (in place) and the settings. Timestamps keep growing, as a runner's
 * do; a compaction summary is stamped after everything it replaces.
 */
export function applyStep(history: Message[], settings: CallSettings, step: SessionStep, clock: { now: number }): void {
  const stamp = (message: Message): Message => ({ ...structuredClone(message), timestamp: ++clock.now }) as Message;
  switch (step.kind) {
    case 'append':
      for (const message of step.turn) history.push(stamp(message));
      return;
    case 'edit':
      if (history.length > 0) history[step.at % history.length] = { ...structuredClone(step.replacement), timestamp: history[step.at % history.length]!.timestamp } as Message;
      return;
    case 'compact': {
      const cut = history.length === 0 ? 0 : step.at % (history.length + 1);
      history.splice(0, cut, { role: 'compactionSummary', summary: 'earlier work', tokensBefore: 1000, timestamp: ++clock.now } as unknown as Message);
      return;
    }
    case 'branch':
      history.length = history.length === 0 ? 0 : step.at % (history.length + 1);
      for (const message of step.tail) history.push(stamp(message));
      return;
    case 'route':
      settings.policy = step.policy;
      return;
    case 'thinking':
      settings.thinking = !settings.thinking;
      return;
    case 'tools':
      settings.tools = !settings.tools;
      return;
    case 'limit':
      settings.limit = !settings.limit;
      return;
    case 'again':
      return;
  }
}
