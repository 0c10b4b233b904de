/**
 * Small typed builders for test messages, a default policy and a fake rule context.
 * Keep them dumb: tests should read like the spec's JSON examples.
 */
import type { RuleContext } from '../../lib/rule.ts';
import type { TranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../../lib/options.ts';
import type {
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultMessage,
  UserMessage,
} from '../../lib/types.ts';

/** The fixed clock of test contexts (2027-01-01T00:00:00Z, the oracle's frozen time). */
export const TEST_NOW = 1798761600000;

export function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

export function thinking(value: string, thinkingSignature?: string): ThinkingBlock {
  return thinkingSignature === undefined ? { type: 'thinking', thinking: value } : { type: 'thinking', thinking: value, thinkingSignature };
}

export function image(data = 'iVBORw0KGgo=', mimeType = 'image/png'): ImageBlock {
  return { type: 'image', data, mimeType };
}

export function toolCall(id: string, name = 'read', args: unknown = {}): ToolCallBlock {
  return { type: 'toolCall', id, name, arguments: args };
}

export function user(content: string | ContentBlock[], extra: Partial<UserMessage> = {}): UserMessage {
  return { role: 'user', content, ...extra };
}

export function assistant(content: ContentBlock[] | string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: 'assistant', content, stopReason: 'stop', ...extra };
}

export function toolResult(toolCallId: string, content: ContentBlock[] | string, extra: Partial<ToolResultMessage> = {}): ToolResultMessage {
  return { role: 'toolResult', toolCallId, toolName: 'read', content, ...extra };
}

/**
 * The §2.1 defaults of spec turns-images-policy.md, plus the project fields as a route with no
 * provider, api or model would resolve them.
 */
export const DEFAULT_TEST_POLICY: TranscriptPolicy = Object.freeze({
  sanitizeMode: 'images-only',
  sanitizeToolCallIds: false,
  toolCallIdMode: undefined,
  duplicateToolCallIdStyle: undefined,
  preserveNativeAnthropicToolUseIds: false,
  repairToolUseResultPairing: true,
  preserveSignatures: false,
  appendOnlyRuntimeContext: false,
  sanitizeThoughtSignatures: undefined,
  dropThinkingBlocks: false,
  dropReasoningFromHistory: false,
  applyGoogleTurnOrdering: false,
  validateGeminiTurns: false,
  validateAnthropicTurns: false,
  allowSyntheticToolResults: false,
  responsesFamily: false,
  repairBedrockEmptyErrorTurns: false,
  normalizeAntigravityClaudeThinking: false,
  stripTrailingPrefillWhenThinking: false,
  mergeConsecutiveUserTurns: true,
  insertBedrockBootstrapTurn: false,
  stripAllThinkingBlocks: false,
  enforceToolUseIdPattern: false,
  bridgeBedrockUserTurns: false,
  repairPartlessGeminiTurns: false,
  toolNameRule: 'strict',
  fillMissingReasoningContent: false,
  signGemini3CurrentTurn: false,
  requestImageLimits: undefined,
});

/** A full policy: the defaults above, overridden field by field. */
export function testPolicy(overrides: Partial<TranscriptPolicy> = {}): TranscriptPolicy {
  return Object.freeze({ ...DEFAULT_TEST_POLICY, ...overrides }) as TranscriptPolicy;
}

export interface FakeContext extends RuleContext {
  /** Every counter reported so far, by name. */
  readonly counts: Record<string, number>;
}

/** A rule context that records counts instead of feeding the stats. */
export function fakeContext(init: { policy?: Partial<TranscriptPolicy>; options?: HygieneOptions } = {}): FakeContext {
  const counts: Record<string, number> = {};
  return {
    policy: testPolicy(init.policy),
    options: resolveHygieneOptions({ now: () => TEST_NOW, ...init.options }),
    counts,
    count(counter: string, n = 1) {
      counts[counter] = (counts[counter] ?? 0) + n;
    },
    now: () => TEST_NOW,
  };
}

/** Freezes a value and everything reachable from it, so a test fails if a rule mutates its input. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
