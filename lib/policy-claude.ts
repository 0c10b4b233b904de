/**
 * Claude model-id helpers shared by the transport fallback and the anthropic owner
 * (spec/turns-images-policy.md §2.3). Pure string tests on the model id; a route carries
 * no `model.params.canonicalModelId`, so the identity always comes from the model id.
 */

const OPUS_5_ALIASES: ReadonlySet<string> = new Set(['opus', 'opus-5', 'opus-5-5']);
const OPUS_5 = /(?:^|-)claude-opus-5(?=$|[^a-z0-9])/;
/** Models whose thinking blocks must be replayed (Opus 5 counts too, see `preservesThinking`). */
const PRESERVES_THINKING = /(?:^|-)claude-(?:fable-5|mythos-(?:5|preview)|opus-4-(?:5|6|7|8)|sonnet-(?:5|4-6))(?=$|[^a-z0-9])/;
const OPUS_5_5 = /^claude-opus-5-5(?=$|[^a-z0-9])/;
const FABLE_5_1 = /^claude-fable-5-1(?=$|[^a-z0-9])/;
/** `claude` as a whole segment of the id: `anthropic/claude-x`, `my.claude`, `foo_claude:1`, not `claudette`. */
const CLAUDE_FAMILY = /(?:^|[./:_-])claude(?:$|[./:_-])/;

/**
 * The canonical Claude name inside a model id: trimmed, lower-cased, without a leading
 * `anthropic/`, runs of `.`, `_` and whitespace turned into `-`, and cut down to the
 * trailing `claude-…` part when there is one
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929-v1:0`).
 */
export function claudeIdentity(modelId: string): string {
  let id = modelId.trim().toLowerCase();
  if (id.startsWith('anthropic/')) id = id.slice('anthropic/'.length);
  id = id.replace(/[._\s]+/g, '-');
  const match = /(?:^|[-/])(claude-[^/]+)$/.exec(id);
  return match?.[1] ?? id;
}

function isOpus5(identity: string): boolean {
  return OPUS_5_ALIASES.has(identity) || OPUS_5.test(identity);
}

/**
 * Older Claude models reject replayed thinking blocks, so they are dropped; newer ones
 * (and every Opus 5) need them kept. Non-Claude ids never drop.
 */
export function shouldDropClaudeThinkingBlocks(modelId: string): boolean {
  const identity = claudeIdentity(modelId);
  if (!identity.startsWith('claude-') && !isOpus5(identity)) return false;
  const preservesThinking = isOpus5(identity) || PRESERVES_THINKING.test(identity);
  return !preservesThinking;
}

/**
 * Claude models whose thinking is bound to the exact prompt prefix (Opus 5.5, Fable 5.1):
 * runtime context must be appended, never merged into earlier turns (`appendOnlyRuntimeContext`).
 */
export function bindsClaudeThinkingPrefix(modelId: string): boolean {
  const identity = claudeIdentity(modelId);
  return identity === 'opus-5-5' || OPUS_5_5.test(identity) || FABLE_5_1.test(identity);
}

/** A Claude model by id, wherever it is hosted (trimmed and lower-cased first, as the reference does). */
export function isClaudeFamilyModelId(modelId: string): boolean {
  return CLAUDE_FAMILY.test(modelId.trim().toLowerCase());
}
