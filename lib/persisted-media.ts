/**
 * "Persisted media facts" (turns-images-policy.md §4.1): a user turn that has them may be kept
 * with blank content, because the runtime captions it at the model boundary
 * (`[User sent media without caption]`). Shared by the blank-user rule and the provider checks,
 * so neither imports the other.
 */
import type { Message } from './types.ts';

const isNonBlankString = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * True when `message.__openclaw.media` is an array with at least one object entry that has a
 * non-blank string `path` or `url`, a non-blank string `contentType`, or a truthy `kind` other
 * than `"unknown"`.
 */
export function hasPersistedMediaFacts(message: Message): boolean {
  const meta = message.__openclaw;
  if (typeof meta !== 'object' || meta === null) return false;
  const media = (meta as { media?: unknown }).media;
  if (!Array.isArray(media)) return false;
  for (const entry of media as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const fact = entry as Record<string, unknown>;
    if (isNonBlankString(fact.path) || isNonBlankString(fact.url) || isNonBlankString(fact.contentType)) return true;
    if (fact.kind && fact.kind !== 'unknown') return true;
  }
  return false;
}
