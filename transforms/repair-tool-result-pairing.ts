/**
 * repair-tool-result-pairing: every tool call gets exactly one result, right after its
 * assistant turn, in call order (spec tool-calls.md §4).
 *
 * Prevents: Anthropic "tool_use ids were found without tool_result blocks immediately
 * after" and "unexpected tool_use_id found in tool_result blocks", OpenAI "No tool call
 * found for function call output", Gemini function-response mismatches.
 *
 * Unit: frame (an assistant with paired calls and everything up to the next one). A
 * result may answer a call any number of frames back, so a frame whose call is still
 * unanswered is held, with everything after it, until the answer arrives or the input
 * ends; the held messages live in a SpillQueue that spills to disk past the memory budget.
 * Frames whose calls all hold real results stream out at once.
 *
 * Counters: orphansDropped, duplicatesDropped, synthesized, moved, legacyAdopted,
 * failedFramesDropped, spilledEntries.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message, ToolResultMessage } from '../lib/types.ts';
import { isPairedCallBlock, isSyntheticToolResult, resultIdOf, SYNTHETIC_TOOL_RESULT_TEXT } from './tool-call-shapes.ts';
import { SpillQueue, SpillStore, messageSize, type SpillCodec, type StoredMessage } from '../lib/frames.ts';
import { lineKeepingCodec } from '../lib/spill-lines.ts';
import { inputLineOf } from '../lib/input-lines.ts';
import type { ResultIdIndex } from '../lib/result-index.ts';
import { deleteKey } from '../lib/young-maps.ts';

export { SYNTHETIC_TOOL_RESULT_TEXT as MISSING_TOOL_RESULT_TEXT, resultIdOf, isSyntheticToolResult as isSyntheticResult } from './tool-call-shapes.ts';
/** Codex-style output for OpenAI Responses routes. */
export const RESPONSES_MISSING_TOOL_RESULT_TEXT = 'aborted';

export interface PairedCall {
  readonly id: string;
  readonly name: unknown;
}

/** Paired calls of an assistant (§2.1): toolCall/toolUse/functionCall blocks with a non-empty string id, not trimmed. */
export function pairedCallsOf(message: Message): PairedCall[] | undefined {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return undefined;
  let calls: PairedCall[] | undefined;
  for (const block of message.content as unknown[]) {
    if (isPairedCallBlock(block)) (calls ??= []).push({ id: block.id, name: block.name });
  }
  return calls;
}

export function makeSyntheticResult(call: PairedCall, text: string, timestamp: number): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: typeof call.name === 'string' ? call.name : 'unknown',
    content: [{ type: 'text', text }],
    details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' },
    isError: true,
    timestamp,
  };
}

/** §4.4: the claimed result's toolName, trimmed, or taken from the call. */
export function normalizeResultToolName(result: Message, callName: unknown): Message {
  const toolName = result.toolName;
  if (typeof toolName === 'string') {
    const trimmed = toolName.trim();
    if (trimmed !== '') return trimmed === toolName ? result : { ...result, toolName: trimmed };
  }
  const fromCall = typeof callName === 'string' ? callName.trim() : '';
  if (fromCall !== '') return { ...result, toolName: fromCall };
  if (typeof toolName === 'string') return { ...result, toolName: 'unknown' };
  return result;
}

function isFailed(message: Message): boolean {
  return message.stopReason === 'error' || message.stopReason === 'aborted';
}

/** One call occurrence: an entry in an assistant's content with a paired-call id. */
interface Occurrence {
  readonly call: PairedCall;
  readonly frame: Frame;
  readonly failed: boolean;
  /** The result this occurrence holds: a message, or a handle when it was moved out of memory. */
  result: Message | StoredMessage | undefined;
  stored: boolean;
  /** Bytes of an in-memory result, counted in the held queue's budget. */
  resultBytes: number;
  /** The held result is a synthetic one from the input: a real result may still replace it. */
  synthetic: boolean;
  /** The output slot of this occurrence was spilled to disk. */
  slotSpilled: boolean;
  readonly seq: number;
}

/** What an answered occurrence holds once its result need not be kept: dropped with a failed frame, or already written to disk with its slot. */
const RESULT_NOT_KEPT: Message = Object.freeze({ role: 'toolResult' });

class Slot {
  constructor(readonly occurrence: Occurrence) {}
}

type Entry = Message | Slot;

interface Frame {
  readonly occurrences: Occurrence[];
  readonly failed: boolean;
  /** A later frame has started: only displaced results can still reach this one. */
  closed: boolean;
}

export interface PairingOptions {
  /** Text of synthetic results (default: MISSING_TOOL_RESULT_TEXT). */
  missingResultText: string;
  memoryBudgetBytes: number;
  now: () => number;
  count: (counter: string, n?: number) => void;
  /** Where results appear in the input; with it, a closed frame whose ids have no later result is final. */
  resultIndex?: ResultIdIndex;
}

/**
 * The spill codec of the held entries. A class, not a literal of closures over the pairing, so a
 * forked copy of the pairing (lib/fork-state.ts) gets a codec that points at the copy.
 */
class PairingCodec implements SpillCodec<Entry> {
  constructor(private readonly owner: ToolResultPairing) {}

  sizeOf(entry: Entry): number {
    return entry instanceof Slot ? 64 : messageSize(entry);
  }

  serialize(entry: Entry): string {
    return this.owner.serialize(entry);
  }

  deserialize(line: string): Entry {
    return this.owner.deserialize(line);
  }
}

/** The streaming core: push messages in order, receive the repaired stream through `emit`. */
export class ToolResultPairing implements RuleProcessor {
  private readonly held: SpillQueue<Entry>;
  private readonly store = new SpillStore();
  // Not readonly: each is replaced by a new map when it empties (lib/young-maps.ts).
  private spilledSlots = new Map<number, Occurrence>();
  /** Calls still waiting for a real result, except those of closed failed frames: fills and empties with the turns. */
  private unresolvedById = new Map<string, Occurrence[]>();
  /**
   * Unanswered calls of closed failed frames. Nothing emits them, so nothing ever finalizes them:
   * kept apart, they no longer stop the map above from emptying, and this one only grows (its
   * tables are garbage once per doubling, not once per turn).
   */
  private failedUnresolvedById = new Map<string, Occurrence[]>();
  private frame: Frame | undefined;
  private nextSeq = 0;
  private ended = false;
  /** The furthest input line seen (with a result index only). */
  private inputLine = 0;

  constructor(private readonly options: PairingOptions) {
    this.held = new SpillQueue<Entry>(new PairingCodec(this), { budgetBytes: options.memoryBudgetBytes });
  }

  push(message: Message, emit: Emit): void {
    if (this.options.resultIndex !== undefined) {
      const line = inputLineOf(message);
      if (line !== undefined && line > this.inputLine) this.inputLine = line;
    }
    const calls = pairedCallsOf(message);
    if (calls !== undefined) this.openFrame(message, calls);
    else if (message.role === 'toolResult') this.placeResult(message);
    else if (this.frame === undefined && this.held.length === 0) emit(message);
    else this.held.push(message);
    this.release(emit);
  }

  end(emit: Emit): void {
    this.ended = true;
    this.release(emit);
    if (this.held.spilledEntries > 0) this.options.count('spilledEntries', this.held.spilledEntries);
  }

  dispose(): void {
    this.held.dispose();
    this.store.dispose();
  }

  private openFrame(assistant: Message, calls: PairedCall[]): void {
    const failed = isFailed(assistant);
    if (this.frame !== undefined) this.closeFrame(this.frame);
    const frame: Frame = { occurrences: [], failed, closed: false };
    const occurrences = calls.map(
      (call): Occurrence => ({ call, frame, failed, result: undefined, stored: false, resultBytes: 0, synthetic: false, slotSpilled: false, seq: this.nextSeq++ }),
    );
    for (const occurrence of occurrences) {
      const list = this.unresolvedById.get(occurrence.call.id);
      if (list === undefined) this.unresolvedById.set(occurrence.call.id, [occurrence]);
      else list.push(occurrence);
    }
    frame.occurrences.push(...occurrences);
    this.frame = frame;
    if (failed) {
      // The drop policy: a failed frame's assistant and all its results leave the replay copy.
      this.options.count('failedFramesDropped');
      return;
    }
    this.held.push(assistant);
    for (const occurrence of occurrences) this.held.push(new Slot(occurrence));
  }

  private closeFrame(frame: Frame): void {
    frame.closed = true;
    if (!frame.failed) return;
    for (const occurrence of frame.occurrences) {
      if (!this.removeUnresolved(this.unresolvedById, occurrence)) continue;
      // With an index, a call no later line answers can never be claimed: forget it.
      const index = this.options.resultIndex;
      if (index !== undefined && index.lastLineOf(occurrence.call.id) <= this.inputLine) continue;
      const list = this.failedUnresolvedById.get(occurrence.call.id);
      if (list === undefined) this.failedUnresolvedById.set(occurrence.call.id, [occurrence]);
      else list.push(occurrence);
    }
  }

  private placeResult(source: Message): void {
    const frame = this.frame;
    if (frame === undefined) {
      this.options.count('orphansDropped');
      return;
    }
    let result = source;
    let id = resultIdOf(result);
    if (id === undefined) {
      result = this.adoptLegacyResult(result, frame);
      id = resultIdOf(result);
    }
    const sameId = id === undefined ? undefined : frame.occurrences.filter((occurrence) => occurrence.call.id === id);
    if (sameId !== undefined && sameId.length > 0) {
      this.claimInFrame(result, sameId);
      return;
    }
    this.claimDisplaced(result, id);
  }

  /** §4.3: an id-less result in a frame with a single call adopts that call's id and is marked an error. */
  private adoptLegacyResult(result: Message, frame: Frame): Message {
    if (frame.occurrences.length !== 1) return result;
    const call = frame.occurrences[0]!.call;
    const resultName = typeof result.toolName === 'string' ? result.toolName.trim() : '';
    const callName = typeof call.name === 'string' ? call.name.trim() : '';
    if (resultName !== '' && callName !== '' && resultName !== callName) return result;
    this.options.count('legacyAdopted');
    return { ...result, toolCallId: call.id, isError: true };
  }

  private claimInFrame(result: Message, sameId: Occurrence[]): void {
    const pending = sameId.find((occurrence) => occurrence.result === undefined);
    if (pending !== undefined) {
      this.attach(pending, result);
      return;
    }
    this.options.count('duplicatesDropped');
    if (isSyntheticToolResult(result)) return;
    const replaceable = sameId.find((occurrence) => occurrence.synthetic);
    if (replaceable !== undefined) this.attach(replaceable, result);
  }

  /** §4.2: a result whose id no call of its own frame has: move it back to its one unresolved owner, or drop it. */
  private claimDisplaced(result: Message, id: string | undefined): void {
    const real = !isSyntheticToolResult(result);
    let candidate: Occurrence | undefined;
    let candidates = 0;
    for (const map of [this.failedUnresolvedById, this.unresolvedById]) {
      const list = id === undefined ? undefined : map.get(id);
      if (list === undefined) continue;
      for (const occurrence of list) {
        if (occurrence.result === undefined || (real && occurrence.synthetic)) {
          candidate = occurrence;
          candidates++;
        }
      }
    }
    if (candidates !== 1 || candidate === undefined) {
      this.options.count('orphansDropped');
      return;
    }
    if (candidate.result !== undefined) this.options.count('duplicatesDropped');
    this.options.count('moved');
    this.attach(candidate, result);
  }

  private attach(occurrence: Occurrence, result: Message): void {
    const normalized = normalizeResultToolName(result, occurrence.call.name);
    occurrence.synthetic = isSyntheticToolResult(normalized);
    if (occurrence.failed) {
      // Dropped with its frame: only whether it was answered matters.
      occurrence.result = RESULT_NOT_KEPT;
    } else if (occurrence.slotSpilled) {
      occurrence.result = this.store.put(normalized);
      occurrence.stored = true;
    } else {
      this.held.adjust(-occurrence.resultBytes);
      occurrence.result = normalized;
      occurrence.stored = false;
      occurrence.resultBytes = messageSize(normalized);
      this.held.adjust(occurrence.resultBytes);
    }
    if (!occurrence.synthetic) this.resolve(occurrence);
  }

  private resolve(occurrence: Occurrence): void {
    if (occurrence.failed && occurrence.frame.closed) this.removeUnresolved(this.failedUnresolvedById, occurrence);
    else this.removeUnresolved(this.unresolvedById, occurrence);
  }

  /** Takes `occurrence` out of `map` (one of the two unresolved maps); false when it was not there. */
  private removeUnresolved(map: Map<string, Occurrence[]>, occurrence: Occurrence): boolean {
    const list = map.get(occurrence.call.id);
    if (list === undefined) return false;
    const index = list.indexOf(occurrence);
    if (index < 0) return false;
    list.splice(index, 1);
    if (list.length > 0) return true;
    const rest = deleteKey(map, occurrence.call.id);
    if (map === this.unresolvedById) this.unresolvedById = rest;
    else this.failedUnresolvedById = rest;
    return true;
  }

  /** Emits every held entry whose content can no longer change. */
  private release(emit: Emit): void {
    for (;;) {
      const entry = this.held.peek();
      if (entry === undefined) return;
      if (entry instanceof Slot) {
        const occurrence = entry.occurrence;
        const final = this.ended || (occurrence.result !== undefined && !occurrence.synthetic) || this.noLaterResult(occurrence);
        if (!final) return;
        this.held.shift();
        const result = this.resultFor(occurrence);
        this.held.adjust(-occurrence.resultBytes);
        occurrence.resultBytes = 0;
        emit(result);
      } else {
        this.held.shift();
        emit(entry);
      }
    }
  }

  /** The index shortcut (§4.6): a closed frame's call whose id no later input line can answer is final. */
  private noLaterResult(occurrence: Occurrence): boolean {
    const index = this.options.resultIndex;
    if (index === undefined || !occurrence.frame.closed) return false;
    if (index.lastLineOf(occurrence.call.id) > this.inputLine) return false;
    this.resolve(occurrence);
    this.options.count('finalizedEarly');
    return true;
  }

  private resultFor(occurrence: Occurrence): Message {
    const result = occurrence.result;
    if (result === undefined) {
      this.options.count('synthesized');
      return makeSyntheticResult(occurrence.call, this.options.missingResultText, this.options.now());
    }
    return occurrence.stored ? this.store.get(result as StoredMessage) : (result as Message);
  }

  /** The spill codec's (PairingCodec). */
  serialize(entry: Entry): string {
    // Messages go to disk as the line the writer would write, and come back with it (lib/spill-lines.ts).
    if (!(entry instanceof Slot)) return 'm' + lineKeepingCodec.serialize(entry);
    const occurrence = entry.occurrence;
    if (occurrence.result !== undefined && !occurrence.synthetic && !occurrence.stored) {
      // A slot holding a real result is final: it goes to disk as that message, and nothing of it stays in memory.
      this.held.adjust(-occurrence.resultBytes);
      occurrence.resultBytes = 0;
      const line = 'm' + lineKeepingCodec.serialize(occurrence.result as Message);
      occurrence.result = RESULT_NOT_KEPT;
      return line;
    }
    occurrence.slotSpilled = true;
    // A result already attached moves out of memory with its slot.
    if (occurrence.result !== undefined && !occurrence.stored) {
      occurrence.result = this.store.put(occurrence.result as Message);
      occurrence.stored = true;
      this.held.adjust(-occurrence.resultBytes);
      occurrence.resultBytes = 0;
    }
    this.spilledSlots.set(occurrence.seq, occurrence);
    return 's' + occurrence.seq;
  }

  /** The spill codec's (PairingCodec). */
  deserialize(line: string): Entry {
    if (line.charCodeAt(0) === 109 /* m */) return lineKeepingCodec.deserialize(line.slice(1));
    const seq = Number(line.slice(1));
    const occurrence = this.spilledSlots.get(seq);
    if (occurrence === undefined) throw new Error(`spilled slot ${seq} is unknown`);
    this.spilledSlots = deleteKey(this.spilledSlots, seq);
    return new Slot(occurrence);
  }
}

export interface RepairToolResultPairingOptions {
  missingResultText?: string;
  memoryBudgetBytes?: number;
  now?: () => number;
}

/** The whole-array form of the rule, for tests and direct callers. */
export function repairToolResultPairing(messages: readonly Message[], options: RepairToolResultPairingOptions = {}): { messages: Message[]; counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  const out: Message[] = [];
  const pairing = new ToolResultPairing({
    missingResultText: options.missingResultText ?? SYNTHETIC_TOOL_RESULT_TEXT,
    memoryBudgetBytes: options.memoryBudgetBytes ?? 64 * 1024 * 1024,
    now: options.now ?? Date.now,
    count: (counter, n = 1) => {
      counts[counter] = (counts[counter] ?? 0) + n;
    },
  });
  const emit = (message: Message): void => {
    out.push(message);
  };
  try {
    for (const message of messages) pairing.push(message, emit);
    pairing.end(emit);
  } finally {
    pairing.dispose();
  }
  return { messages: out, counts };
}

function createPairingRule(name: string, summary: string, responses: boolean): BufferedRule {
  return {
    unit: 'buffered',
    meta: {
      name,
      summary,
      counters: ['orphansDropped', 'duplicatesDropped', 'synthesized', 'moved', 'legacyAdopted', 'failedFramesDropped', 'spilledEntries'],
    },
    create(ctx: RuleContext) {
      return new ToolResultPairing({
        missingResultText: responses ? RESPONSES_MISSING_TOOL_RESULT_TEXT : SYNTHETIC_TOOL_RESULT_TEXT,
        memoryBudgetBytes: ctx.options.memoryBudgetBytes,
        now: ctx.now,
        count: ctx.count,
        resultIndex: ctx.options.resultIndex,
      });
    },
  };
}

export const repairToolResultPairingRule = createPairingRule(
  'repair-tool-result-pairing',
  'Moves each tool result right after its call, drops orphan and duplicate results and failed turns, and inserts a synthetic error result for calls left unanswered.',
  false,
);

export const repairResponsesToolResultPairingRule = createPairingRule(
  'repair-responses-tool-result-pairing',
  'The same pairing repair for OpenAI Responses routes, with Codex-style "aborted" outputs for unanswered calls.',
  true,
);

export const repairResponsesToolResultPairingAgainRule = createPairingRule(
  'repair-responses-tool-result-pairing-again',
  'Repeats the Responses pairing repair after ids were normalized, before the replay invariant is checked.',
  true,
);
