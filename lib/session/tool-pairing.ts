/**
 * Which tool results of a list of messages are paired with a call, as OpenClaw 2026.9's
 * `classifyToolUseResultPairing` decides it; a reset keeps only those (with the user and
 * assistant turns) of the window before it (reset-window.ts).
 *
 * A frame is an assistant with at least one tool call (a `toolCall`, `toolUse` or
 * `functionCall` block with a non-empty string id) and the messages up to the next such
 * assistant. In its frame, a result claims the first unclaimed call with its id (a result with
 * no id takes the frame's only call when their names do not disagree); a second result for an
 * id the frame has already answered is a duplicate, unless the answer it finds is OpenClaw's
 * synthetic "missing tool result", which it replaces. A result whose id no call of its frame
 * has is matched afterwards, frame by frame, with the one still unanswered call of that id in
 * its frame or an earlier one; with none or several it is an orphan. Results before the first
 * frame pair with nothing.
 */

const TOOL_CALL_TYPES = new Set(['toolCall', 'toolUse', 'functionCall']);
const RESULT_ID_FIELDS = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'] as const;
const SYNTHETIC_FLAG = 'openclawSyntheticMissingToolResult';
const SYNTHETIC_TEXT = '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.';

/** What pairing reads of one message (OpenClaw reads the same facts from its navigation projection). */
export interface PairingFacts {
  readonly role: unknown;
  /** An assistant's tool calls, in content order. */
  readonly calls: readonly { readonly id: string; readonly name: string | undefined }[];
  /** A tool result's first id (trimmed, non-blank), or undefined. */
  readonly resultId: string | undefined;
  readonly toolName: string | undefined;
  /** A tool result marked as OpenClaw's synthetic stand-in for a missing one (it counts as one only with isError set). */
  readonly marked: boolean;
  readonly isError: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const trimmed = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The pairing facts of a message entry's message. */
export function pairingFacts(message: unknown): PairingFacts {
  if (!isRecord(message)) return { role: undefined, calls: [], resultId: undefined, toolName: undefined, marked: false, isError: false };
  const calls: { id: string; name: string | undefined }[] = [];
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (!isRecord(block) || typeof block.type !== 'string' || !TOOL_CALL_TYPES.has(block.type)) continue;
      if (typeof block.id === 'string' && block.id !== '') calls.push({ id: block.id, name: typeof block.name === 'string' ? block.name : undefined });
    }
  }
  let resultId: string | undefined;
  for (const field of RESULT_ID_FIELDS) if ((resultId = trimmed(message[field])) !== undefined) break;
  const details = message.details;
  const flagged = isRecord(details) && (details[SYNTHETIC_FLAG] === true || details[SYNTHETIC_FLAG] === 1);
  const standIn = Array.isArray(message.content) && message.content.some((block) => isRecord(block) && block.type === 'text' && block.text === SYNTHETIC_TEXT);
  return {
    role: message.role,
    calls,
    resultId,
    toolName: typeof message.toolName === 'string' ? message.toolName : undefined,
    marked: flagged || standIn,
    isError: Boolean(message.isError),
  };
}

interface Call {
  readonly id: string;
  /** The index of the result answering it, or -1; and whether that answer is a synthetic stand-in. */
  result: number;
  syntheticAnswer: boolean;
}

/** The indexes of `messages` that are tool results paired with a call. */
export function pairedToolResults(messages: readonly PairingFacts[]): Set<number> {
  const starts: number[] = [];
  for (let i = 0; i < messages.length; i++) if (messages[i]!.role === 'assistant' && messages[i]!.calls.length > 0) starts.push(i);
  const frames = starts.map((start, f) => {
    const callFacts = messages[start]!.calls;
    const calls: Call[] = callFacts.map((call) => ({ id: call.id, result: -1, syntheticAnswer: false }));
    const unclaimed: { index: number; id: string | undefined; synthetic: boolean }[] = [];
    const end = starts[f + 1] ?? messages.length;
    for (let i = start + 1; i < end; i++) {
      const message = messages[i]!;
      if (message.role !== 'toolResult') continue;
      let id = message.resultId;
      let isError = message.isError;
      if (id === undefined && callFacts.length === 1) {
        // An id-less result takes the only call (and becomes an error), unless both name a tool and the names differ.
        const resultName = trimmed(message.toolName);
        const callName = trimmed(callFacts[0]!.name);
        if (resultName === undefined || callName === undefined || resultName === callName) {
          id = callFacts[0]!.id;
          isError = true;
        }
      }
      const synthetic = isError && message.marked;
      const open = id === undefined ? undefined : calls.find((call) => call.id === id && call.result < 0);
      if (open !== undefined) {
        open.result = i;
        open.syntheticAnswer = synthetic;
        continue;
      }
      if (id === undefined || !calls.some((call) => call.id === id)) {
        unclaimed.push({ index: i, id, synthetic });
        continue;
      }
      // A duplicate: it only counts when it replaces a synthetic stand-in.
      const standIn = synthetic ? undefined : calls.find((call) => call.id === id && call.syntheticAnswer);
      if (standIn !== undefined) {
        standIn.result = i;
        standIn.syntheticAnswer = false;
      }
    }
    return { calls, unclaimed };
  });
  const unresolved = new Map<string, Call[]>();
  for (const frame of frames) {
    for (const call of frame.calls) {
      if (call.result >= 0 && !call.syntheticAnswer) continue;
      const list = unresolved.get(call.id);
      if (list === undefined) unresolved.set(call.id, [call]);
      else list.push(call);
    }
    for (const record of frame.unclaimed) {
      const candidates = record.id === undefined ? [] : (unresolved.get(record.id) ?? []).filter((call) => call.result < 0 || (call.syntheticAnswer && !record.synthetic));
      if (candidates.length !== 1) continue;
      candidates[0]!.result = record.index;
      candidates[0]!.syntheticAnswer = record.synthetic;
    }
  }
  const paired = new Set<number>();
  for (const frame of frames) for (const call of frame.calls) if (call.result >= 0) paired.add(call.result);
  return paired;
}
