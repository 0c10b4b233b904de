/**
 * Provider invariants: the structural rules a provider's API enforces on a replayed conversation,
 * written as checks over a message list. A check never changes anything; it reports violations.
 *
 * Each rule has an id `family/name`, a one-line summary, and the source it was written from (the
 * provider's documentation or the exact text of the 400 the provider returns when the rule is
 * broken). The checks read the messages the way the runtime (pi-ai / `@openclaw/ai`) converts them
 * for the provider; every assumption about that conversion is stated in `turns.ts` and next to the
 * check that relies on it.
 */
import type { TranscriptPolicy, TranscriptRoute } from '../policy.ts';
import type { ReplayView } from './turns.ts';

/** The provider families whose rules are known, in reporting order. */
export const INVARIANT_FAMILIES = Object.freeze(['anthropic', 'bedrock', 'gemini', 'openai-responses', 'chat-completions', 'mistral'] as const);

export type InvariantFamily = (typeof INVARIANT_FAMILIES)[number];

/** One broken rule at one place of the checked list. */
export interface Violation {
  /** The rule's id, `family/name` (for example `anthropic/tool-result-missing`). */
  readonly rule: string;
  readonly family: InvariantFamily;
  /** 0-based index of the offending message in the checked list (non-objects count). */
  readonly index: number;
  /** The offending tool-call id, when the rule is about one (`""` for a call or result without one). */
  readonly id?: string;
  /** 0-based index of the offending content block inside that message, when the rule is about one. */
  readonly block?: number;
  /** One line: what is wrong, in the provider's words where it has them. */
  readonly message: string;
}

/** A route to check for, as the pipeline takes it, plus the request-time thinking switch. */
export interface CheckRoute extends TranscriptRoute {
  /** Thinking is on for the request (enables the rules that only apply then: trailing prefill). */
  thinking?: boolean;
  /** `false` when the request defines no tools (the `tools` option). Default true. */
  tools?: boolean;
  /** The largest tool result text the runner keeps, in UTF-8 bytes (the `maxToolResultBytes` option). */
  maxToolResultBytes?: number;
}

export interface CheckContext {
  readonly policy: TranscriptPolicy;
  readonly provider: string;
  readonly modelApi: string;
  readonly modelId: string;
  readonly thinking: boolean;
  readonly tools: boolean;
  readonly maxToolResultBytes: number | undefined;
}

export interface InvariantRule {
  /** `family/name`. */
  readonly id: string;
  readonly family: InvariantFamily;
  /** What the provider requires, one line. */
  readonly summary: string;
  /** Where the rule comes from: a provider documentation phrase or the provider's error text. */
  readonly source: string;
  /** Appends the rule's violations in `view` to `out`. */
  readonly check: (view: ReplayView, context: CheckContext, out: Violation[]) => void;
}

/** The rules of one route: the families that apply and their rules, in reporting order. */
export interface RouteInvariants {
  readonly families: readonly InvariantFamily[];
  readonly rules: readonly InvariantRule[];
  readonly context: CheckContext;
}
