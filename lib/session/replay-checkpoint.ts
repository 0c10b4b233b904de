/**
 * OpenClaw 2026.9 drops a provider's compaction checkpoint (`providerReplay` of type
 * `anthropic-compaction`, `openai-responses-compaction` or `openai-responses-retained-compaction`)
 * from an assistant message that comes from before the session's boundary (a compaction's or a
 * reset's kept turns): the checkpoint stands for the history up to it, which the context no longer
 * holds as it was. Current assistants keep theirs.
 */
import { isRecord } from '../types.ts';

const CHECKPOINT_TYPES = new Set(['anthropic-compaction', 'openai-responses-compaction', 'openai-responses-retained-compaction']);

/** The assistant message without its compaction checkpoint (the same object when it has none). */
export function withoutReplayCheckpoint(message: unknown): unknown {
  if (!isRecord(message) || message.role !== 'assistant') return message;
  const replay = message.providerReplay;
  if (!isRecord(replay) || typeof replay.type !== 'string' || !CHECKPOINT_TYPES.has(replay.type)) return message;
  const { providerReplay: _dropped, ...rest } = message;
  return rest;
}
