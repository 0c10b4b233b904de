/**
 * validate-tool-call-inputs (spec tool-calls.md §3, Rule A `sanitizeToolCallInputs`; pipeline
 * step 8 of turns-images-policy.md §1).
 *
 * Invariant: every call block (`toolCall`, `toolUse`, `functionCall`, `tool_call`, `tool_use`,
 * `function_call`) that is replayed has input, an id, a valid name (syntax, 64 characters, and the
 * caller's `allowedToolNames` unless the call already completed) with no surrounding spaces, and no
 * stray `partialJson` (a finalized OpenAI Responses call keeps its block without it). An assistant
 * emptied by the drops is removed. On routes that replay provider-owned thinking (§1.1), an
 * assistant with signed thinking and calls is never edited: it is kept byte for byte or removed.
 *
 * Ours (issue 20, item 10; the reference drops them): a paired call whose name fails §2.3 but that a
 * tool answered (a real result, §2.4's test) is kept with its output; enforce-tool-name-pattern
 * later gives it a name the route's provider takes. See `keepsAnsweredMisnamedCall`.
 *
 * Error prevented: providers reject calls with missing input or ids ("tool_use.input: Field
 * required", "tool_use.id: ..."), names outside `^[a-zA-Z0-9_-]{1,64}$`-like patterns or not in the
 * request's tool list, and edited signed thinking turns ("thinking blocks ... cannot be modified").
 *
 * Unit: buffered. Messages stream through untouched while nothing is held. Two facts need lookahead:
 * - whether a call with a malformed name, or (with an allowlist) a disallowed well-formed one, is *completed*
 *   (§2.4): it depends on the pairing classification (§4.1–§4.3) of everything after it, so such an
 *   assistant is held, with everything after it, until a real result is classified to the call,
 *   until the call can no longer get one (its id is ambiguous, or the session file's result index
 *   shows no later result), or until the end of input;
 * - on the thinking path (§3.2), the sessions_spawn attachment check and the displaced-results check
 *   read the assistant's frame window (up to the next assistant with paired calls); a turn that
 *   needs either is held until the window answers or closes.
 * Held messages go to a SpillQueue (budget `memoryBudgetBytes`); in memory stay only ids: the
 * id-only classification, the ids kept by thinking turns and the ids of kept assistants (§3.4).
 *
 * Counters: `droppedToolCalls` (call blocks removed from assistants on the normal path),
 * `droppedAssistantMessages` (assistants removed because no block remained), `trimmedNames` (call
 * names trimmed), `droppedThinkingTurns` (signed thinking turns removed whole),
 * `keptAnsweredMisnamedCalls` (ours: calls kept despite a malformed name because a tool answered them),
 * `namedUnnamedCalls` (ours: of those, the ones without a usable name, given `unnamed_tool`).
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { SpillQueue } from '../lib/frames.ts';
import { lineKeepingCodec } from '../lib/spill-lines.ts';
import { inputLineOf } from '../lib/input-lines.ts';
import type { ResultIdIndex } from '../lib/result-index.ts';
import { UNNAMED_TOOL } from '../lib/tool-names.ts';
import {
  allowProviderOwnedThinkingReplay,
  hasToolCallInput,
  isContractCallBlock,
  isPairedCallBlock,
  isSyntheticToolResult,
  isThinkingLikeBlock,
  isValidToolNameSyntax,
  normalizeAllowedToolNames,
  resultIdList,
} from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

export interface ValidateToolCallInputsOptions {
  /** Tool names the runtime still offers (§2.3); calls to others are dropped unless completed. */
  allowedToolNames?: readonly string[];
  /** §1.1: signed thinking turns with calls are kept whole or dropped whole (§3.2). */
  allowProviderOwnedThinkingReplay?: boolean;
}

const COUNTERS = ['droppedToolCalls', 'droppedAssistantMessages', 'trimmedNames', 'droppedThinkingTurns', 'keptAnsweredMisnamedCalls', 'namedUnnamedCalls'] as const;
type Counter = (typeof COUNTERS)[number];
type Count = (counter: Counter, n: number) => void;

/** "Cannot decide yet": a later message (or the end of input) settles it. */
const WAIT = Symbol('wait');
type Wait = typeof WAIT;

// ---------------------------------------------------------------------------------------------
// Per-block checks (§3 step 4)

/** Fields any of which gives a call block its id on the normal path (a blank `id` with an alias is fine). */
const CALL_ID_FIELDS = ['call_id', 'tool_call_id', 'toolCallId', 'tool_use_id', 'toolUseId', 'id'] as const;

function hasCallId(block: Record<string, unknown>): boolean {
  for (const field of CALL_ID_FIELDS) {
    const value = block[field];
    if (typeof value === 'string' && value.trim() !== '') return true;
  }
  return false;
}

const LEADING_OBJECT = /^[\t\n\r ]*\{/;

function parsesAsJsonObject(text: string): boolean {
  if (!LEADING_OBJECT.test(text)) return false;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value);
  } catch {
    return false;
  }
}

/**
 * A finalized OpenAI Responses call (§3 step 4, partialJson): the turn stopped for tool use, the id
 * is a `call|item` pair, the arguments are an object (and there is no `input` key), and the
 * partial JSON is a complete object (or blank, with empty arguments).
 */
function isFinalizedResponsesCall(block: Record<string, unknown>, partialJson: string, message: Message): boolean {
  if (message.stopReason !== 'toolUse') return false;
  const id = block.id;
  if (typeof id !== 'string') return false;
  const bar = id.indexOf('|');
  if (bar <= 0 || bar >= id.length - 1) return false;
  if (Object.hasOwn(block, 'input')) return false;
  const args = block.arguments;
  if (!isRecord(args)) return false;
  if (parsesAsJsonObject(partialJson)) return true;
  return partialJson.trim() === '' && Object.keys(args).length === 0;
}

/** Paired-call ids (§2.1: `toolCall`/`toolUse`/`functionCall` with a non-empty string id, untrimmed), in content order. */
function pairedIdsOf(content: readonly unknown[]): string[] {
  const ids: string[] = [];
  for (const block of content) if (isPairedCallBlock(block)) ids.push(block.id);
  return ids;
}

function hasSpawnAttachments(block: Record<string, unknown>): boolean {
  if (block.name !== 'sessions_spawn') return false;
  const input = block.input;
  if (!isRecord(input)) return false;
  const attachments = input.attachments;
  return Array.isArray(attachments) && attachments.length > 0;
}

/** §4.3's name test: trimmed names equal, or either missing or blank. */
function legacyNamesMatch(resultName: unknown, callName: unknown): boolean {
  const result = typeof resultName === 'string' ? resultName.trim() : '';
  const call = typeof callName === 'string' ? callName.trim() : '';
  return result === '' || call === '' || result === call;
}

/** The single paired call of an assistant, for §4.3's legacy rule; undefined unless there is exactly one. */
function singlePairedCall(content: readonly unknown[]): { id: string; name: unknown } | undefined {
  let single: { id: string; name: unknown } | undefined;
  for (const block of content) {
    if (!isPairedCallBlock(block)) continue;
    if (single !== undefined) return undefined;
    single = { id: block.id, name: block.name };
  }
  return single;
}

function isThinkingCandidate(content: readonly unknown[]): boolean {
  let thinking = false;
  let call = false;
  for (const block of content) {
    if (!thinking && isThinkingLikeBlock(block)) thinking = true;
    else if (!call && isContractCallBlock(block)) call = true;
    if (thinking && call) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Completion (§2.4): the pairing classification (§4.1–§4.3) on ids only

const NO_RESULT = 0;
const SYNTHETIC = 1;
const REAL = 2;

interface Occurrence {
  readonly id: string;
  result: typeof NO_RESULT | typeof SYNTHETIC | typeof REAL;
  /** A later frame started: only a displaced result (§4.2) can still reach it. */
  closed: boolean;
}

interface Frame {
  readonly occurrences: Occurrence[];
  readonly byId: Map<string, Occurrence[]>;
  readonly single: { occurrence: Occurrence; name: unknown } | undefined;
  /** Results naming an id no occurrence of this frame has, in order (§4.1 "unclaimed"). */
  readonly unclaimed: { id: string; real: boolean }[];
}

/**
 * Classifies results to call occurrences exactly as pairing does (§4.1–§4.3), keeping only ids and
 * result kinds: an occurrence is *completed* once it holds a real result, which never changes.
 * It can no longer become completed when its frame is closed and another occurrence of its id is
 * still open to a real result (any later result with that id is then ambiguous, §4.2), when a
 * session file's result index shows no later result with its id (§4.6's shortcut), or at the end.
 */
class CompletionClassifier {
  private frame: Frame | undefined;
  /** Not readonly: replaced by a new map when it empties (lib/young-maps.ts). */
  private unresolvedById = new Map<string, Occurrence[]>();
  private ended = false;
  /** The furthest input line seen (only with a result index). */
  private inputLine = 0;

  constructor(private readonly index?: ResultIdIndex) {}

  /** Feeds one input message; for an assistant that opens a frame, returns its occurrences by content index. */
  push(message: Message): Map<number, Occurrence> | undefined {
    if (this.index !== undefined) {
      const line = inputLineOf(message);
      if (line !== undefined && line > this.inputLine) this.inputLine = line;
    }
    const content = message.content;
    if (message.role === 'assistant' && Array.isArray(content)) return this.openFrame(content);
    if (message.role === 'toolResult') this.placeResult(message);
    return undefined;
  }

  end(): void {
    this.closeFrame();
    this.ended = true;
  }

  /** true: completed; false: never will be; undefined: not known yet. */
  completed(occurrence: Occurrence): boolean | undefined {
    if (occurrence.result === REAL) return true;
    if (this.ended) return false;
    if (!occurrence.closed) return undefined;
    if (this.index !== undefined && this.index.lastLineOf(occurrence.id) <= this.inputLine) return false;
    let open = 0;
    for (const other of this.unresolvedById.get(occurrence.id) ?? []) if (other.result !== REAL) open++;
    return open >= 2 ? false : undefined;
  }

  private openFrame(content: readonly unknown[]): Map<number, Occurrence> | undefined {
    let byIndex: Map<number, Occurrence> | undefined;
    for (let i = 0; i < content.length; i++) {
      const block = content[i];
      if (!isPairedCallBlock(block)) continue;
      byIndex ??= new Map();
      byIndex.set(i, { id: block.id, result: NO_RESULT, closed: false });
    }
    if (byIndex === undefined) return undefined;
    this.closeFrame();
    const occurrences = [...byIndex.values()];
    const byId = new Map<string, Occurrence[]>();
    for (const occurrence of occurrences) {
      const list = byId.get(occurrence.id);
      if (list === undefined) byId.set(occurrence.id, [occurrence]);
      else list.push(occurrence);
    }
    const only = singlePairedCall(content);
    this.frame = {
      occurrences,
      byId,
      single: only === undefined ? undefined : { occurrence: occurrences[0]!, name: only.name },
      unclaimed: [],
    };
    return byIndex;
  }

  private placeResult(message: Message): void {
    const frame = this.frame;
    if (frame === undefined) return; // unframed: an orphan
    let id = resultIdList(message)[0];
    let synthetic: boolean;
    if (id === undefined && frame.single !== undefined && legacyNamesMatch(message.toolName, frame.single.name)) {
      // §4.3: adopts the single call's id, with isError forced to true.
      id = frame.single.occurrence.id;
      synthetic = isSyntheticToolResult(message.isError ? message : { ...message, isError: true });
    } else {
      synthetic = isSyntheticToolResult(message);
    }
    if (id === undefined) return; // unclaimed without an id: dropped as an orphan
    const occurrences = frame.byId.get(id);
    if (occurrences === undefined) {
      frame.unclaimed.push({ id, real: !synthetic });
      return;
    }
    const pending = occurrences.find((occurrence) => occurrence.result === NO_RESULT);
    if (pending !== undefined) {
      pending.result = synthetic ? SYNTHETIC : REAL;
      return;
    }
    // A duplicate: a real one replaces the earliest synthetic of its id; otherwise it is discarded.
    if (synthetic) return;
    const replaceable = occurrences.find((occurrence) => occurrence.result === SYNTHETIC);
    if (replaceable !== undefined) replaceable.result = REAL;
  }

  /** §4.2 for the current frame: record its unresolved occurrences, then place its unclaimed results. */
  private closeFrame(): void {
    const frame = this.frame;
    if (frame === undefined) return;
    this.frame = undefined;
    for (const occurrence of frame.occurrences) {
      occurrence.closed = true;
      if (occurrence.result === REAL) continue;
      const list = this.unresolvedById.get(occurrence.id);
      if (list === undefined) this.unresolvedById.set(occurrence.id, [occurrence]);
      else list.push(occurrence);
    }
    for (const result of frame.unclaimed) {
      const list = this.unresolvedById.get(result.id);
      if (list === undefined) continue;
      let candidate: Occurrence | undefined;
      let count = 0;
      for (const occurrence of list) {
        if (occurrence.result === NO_RESULT || (result.real && occurrence.result === SYNTHETIC)) {
          candidate = occurrence;
          count++;
        }
      }
      if (count === 1) candidate!.result = result.real ? REAL : SYNTHETIC;
      // Occurrences that hold a real result can never be candidates again.
      const open = list.filter((occurrence) => occurrence.result !== REAL);
      if (open.length === 0) this.unresolvedById = deleteKey(this.unresolvedById, result.id);
      else if (open.length !== list.length) this.unresolvedById.set(result.id, open);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The thinking path's window (§3.2): the messages after the turn up to the next assistant with paired calls

class ThinkingWindow {
  /** Paired-call ids of the turn that no result in the window has answered yet. */
  private readonly unanswered: Set<string>;
  private readonly single: { id: string; name: unknown } | undefined;
  private sawNonResult = false;
  private displaced = false;
  private closed = false;

  constructor(content: readonly unknown[]) {
    this.unanswered = new Set(pairedIdsOf(content));
    this.single = singlePairedCall(content);
  }

  /** A message of the window (never an assistant with paired calls: that one closes it). */
  observe(message: Message): void {
    if (message.role !== 'toolResult') {
      this.sawNonResult = true;
      return;
    }
    let ids = resultIdList(message);
    // Legacy id-less results count through §4.3 (oracle: also for the displaced check).
    if (ids.length === 0 && this.single !== undefined && legacyNamesMatch(message.toolName, this.single.name)) ids = [this.single.id];
    if (ids.length === 0) return;
    if (this.sawNonResult) this.displaced = true;
    // Any id of the result's list answers (oracle: `toolCallId: "zzz", toolUseId: "a"` answers `a`).
    for (const id of ids) this.unanswered.delete(id);
  }

  close(): void {
    this.closed = true;
  }

  /** Every paired-call id has a result in the window (sessions_spawn check). */
  allAnswered(): boolean | undefined {
    if (this.unanswered.size === 0) return true;
    return this.closed ? false : undefined;
  }

  /** A result with an id follows a non-result message in the window. */
  hasDisplacedResults(): boolean | undefined {
    if (this.displaced) return true;
    return this.closed ? false : undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Decisions

/** Completion of the call block at a content index: true, false, or undefined while unknown. */
type Completion = (contentIndex: number) => boolean | undefined;

interface Decision {
  output: Message | null;
  droppedToolCalls: number;
  trimmedNames: number;
  droppedAssistant: boolean;
  droppedThinkingTurn: boolean;
  keptThinkingTurn: boolean;
  /** Ours: calls kept despite a malformed name because a tool answered them. */
  keptAnsweredMisnamedCalls: number;
  /** Ours: of those, calls with a blank, missing or non-string name, given `unnamed_tool`. */
  namedUnnamedCalls: number;
}

function passThrough(message: Message): Decision {
  return { output: message, droppedToolCalls: 0, trimmedNames: 0, droppedAssistant: false, droppedThinkingTurn: false, keptThinkingTurn: false, keptAnsweredMisnamedCalls: 0, namedUnnamedCalls: 0 };
}

/**
 * §3.3: the assistant with rebuilt content. A compaction checkpoint is re-indexed to the kept
 * original blocks before its old index, or removed when a block was copied or the index is past
 * the end (thinking.md §4.3). `keptOriginal[i]` is the old index of new block i, or -1 for a copy.
 */
function withRebuiltContent(message: Message, oldLength: number, content: ContentBlock[], keptOriginal: number[]): Message {
  const replay = message.providerReplay;
  if (!isRecord(replay) || (replay.type !== 'anthropic-compaction' && replay.type !== 'openai-responses-compaction')) {
    return { ...message, content };
  }
  // JavaScript comparison semantics on purpose: a string index compares as a number, as in the reference (oracle).
  const replayIndex = (replay.replayIndex ?? 0) as number;
  if (replayIndex > oldLength || keptOriginal.includes(-1)) {
    const { providerReplay: _removed, ...rest } = message;
    return { ...rest, content };
  }
  let next = 0;
  for (const old of keptOriginal) if (old < replayIndex) next++;
  if (next === replayIndex) return { ...message, content };
  return { ...message, content, providerReplay: { ...replay, replayIndex: next } };
}

// ---------------------------------------------------------------------------------------------
// Ours (issue 20, item 10): answered calls with a malformed name

/**
 * Whether a call whose name fails §2.3 stays: yes when a tool answered it, that is when the pairing
 * classification gives it a real (non-synthetic) result, the same test as the completed exemption
 * (§2.4); WAIT while that is not known. The reference drops every such call and, through pairing,
 * the result a tool returned for it, so real tool output would leave the history. The name is left
 * for enforce-tool-name-pattern, which keeps it where the route's provider takes it (Claude) and
 * gives it a valid one elsewhere. Unanswered calls with such names still go, as before.
 */
function keepsAnsweredMisnamedCall(completion: Completion, contentIndex: number): boolean | Wait {
  const answered = completion(contentIndex);
  return answered === undefined ? WAIT : answered;
}

function hasNonBlankName(name: unknown): boolean {
  return typeof name === 'string' && name.trim() !== '';
}

/**
 * A kept call with a blank, missing or non-string name gets `unnamed_tool` at once, not only at
 * enforce-tool-name-pattern: the steps between match calls and results by name (pairing's §4.4
 * gives a nameless result its call's name, turn validation's §3.3 omits a thinking turn whose call
 * names none of its results), and a blank name matches nothing there, so the answered call would be
 * omitted after all. A signed turn keeps its blocks otherwise (a call's name is not signed).
 */
function withFallbackNames(message: Message, content: readonly unknown[]): { message: Message; count: number } {
  let out: unknown[] | undefined;
  let count = 0;
  content.forEach((block, index) => {
    if (!isContractCallBlock(block) || hasNonBlankName(block.name)) return;
    out ??= [...content];
    out[index] = { ...block, name: UNNAMED_TOOL };
    count++;
  });
  return out === undefined ? { message, count } : { message: { ...message, content: out as ContentBlock[] }, count };
}

/** §3 step 4 for one assistant: the same object, a rebuilt copy, null (emptied), or WAIT. */
function decideNormal(message: Message, content: readonly unknown[], allow: ReadonlySet<string> | undefined, completion: Completion): Decision | Wait {
  let kept: ContentBlock[] | undefined;
  let keptOriginal: number[] | undefined;
  let droppedToolCalls = 0;
  let trimmedNames = 0;
  let keptMisnamed = 0;
  let unnamedCalls = 0;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    let next: unknown = block;
    let namedOnly = false;
    if (isContractCallBlock(block)) {
      const name = block.name;
      const misnamed = !isValidToolNameSyntax(name);
      let drop = !hasToolCallInput(block) || !hasCallId(block);
      const partialJson = block.partialJson;
      if (!drop && typeof partialJson === 'string' && !isFinalizedResponsesCall(block, partialJson, message)) drop = true;
      if (!drop && misnamed) {
        // Ours: a tool answered it, so it stays (and its output with it); see keepsAnsweredMisnamedCall.
        const answered = keepsAnsweredMisnamedCall(completion, i);
        if (answered === WAIT) return WAIT;
        drop = !answered;
        if (answered) keptMisnamed++;
      } else if (!drop && allow !== undefined && !allow.has((name as string).trim().toLowerCase())) {
        const completed = completion(i);
        if (completed === undefined) return WAIT;
        drop = !completed;
      }
      if (drop) {
        droppedToolCalls++;
        next = undefined;
      } else {
        // A blank, missing or non-string name (kept only when answered) gets a fallback instead.
        const unnamed = !hasNonBlankName(name);
        const trimmed = unnamed ? name : (name as string).trim();
        if (typeof partialJson === 'string' || trimmed !== name || unnamed) {
          const copy: Record<string, unknown> = { ...block };
          if (typeof partialJson === 'string') delete copy.partialJson;
          if (trimmed !== name) {
            copy.name = trimmed;
            trimmedNames++;
          }
          if (unnamed) {
            copy.name = UNNAMED_TOOL;
            unnamedCalls++;
            // As if the call had had a name all along: not a copy for a compaction checkpoint (§3.3).
            namedOnly = typeof partialJson !== 'string';
          }
          next = copy;
        }
      }
    }
    if (next !== block && kept === undefined) {
      kept = content.slice(0, i) as ContentBlock[];
      keptOriginal = kept.map((_, index) => index);
    }
    if (kept !== undefined && next !== undefined) {
      kept.push(next as ContentBlock);
      keptOriginal!.push(next === block || namedOnly ? i : -1);
    }
  }
  const decision = passThrough(message);
  decision.keptAnsweredMisnamedCalls = keptMisnamed;
  decision.namedUnnamedCalls = unnamedCalls;
  if (kept === undefined) return decision;
  decision.droppedToolCalls = droppedToolCalls;
  decision.trimmedNames = trimmedNames;
  if (kept.length === 0) {
    decision.output = null;
    decision.droppedAssistant = true;
    return decision;
  }
  decision.output = withRebuiltContent(message, content.length, kept, keptOriginal!);
  return decision;
}

/** Transcript-wide ids of the thinking path (§3.4). */
interface ReplayIds {
  /** Paired-call ids of kept thinking turns. */
  readonly thinking: Set<string>;
  /** Paired-call ids of every kept assistant (thinking or normal), as emitted. */
  readonly emitted: Set<string>;
}

/** §3.2: keep (true), drop (false) or WAIT. `window` exists when the turn has paired calls. */
function keepThinkingTurn(
  content: readonly unknown[],
  allow: ReadonlySet<string> | undefined,
  completion: Completion,
  window: ThinkingWindow | undefined,
  ids: ReplayIds,
): boolean | Wait {
  let wait = false;
  let spawn = false;
  const seen = new Set<string>();
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isContractCallBlock(block)) continue;
    if (!hasToolCallInput(block) || typeof block.partialJson === 'string') return false;
    // Only `id` counts here (oracle: an alias such as `toolCallId` does not), trimmed and unique.
    const id = block.id;
    if (typeof id !== 'string') return false;
    const trimmedId = id.trim();
    if (trimmedId === '' || seen.has(trimmedId)) return false;
    seen.add(trimmedId);
    const name = block.name;
    // A name that needs trimming would edit the turn, so it still drops it.
    if (typeof name === 'string' && name.trim() !== name) return false;
    if (!isValidToolNameSyntax(name)) {
      const answered = keepsAnsweredMisnamedCall(completion, i);
      if (answered === false) return false;
      if (answered === WAIT) wait = true;
    } else if (allow !== undefined && !allow.has(name.toLowerCase())) {
      const completed = completion(i);
      if (completed === false) return false;
      if (completed === undefined) wait = true;
    }
    if (hasSpawnAttachments(block)) spawn = true;
  }
  const paired = pairedIdsOf(content);
  for (const id of paired) if (ids.thinking.has(id)) return false;
  if (window !== undefined) {
    if (spawn) {
      const answered = window.allAnswered();
      if (answered === false) return false;
      if (answered === undefined) wait = true;
    }
    if (paired.some((id) => ids.emitted.has(id))) {
      const displaced = window.hasDisplacedResults();
      if (displaced === true) return false;
      if (displaced === undefined) wait = true;
    }
  }
  return wait ? WAIT : true;
}

/**
 * The rule's state and decisions, shared by the array function and the streaming processor: the
 * allowlist, the thinking-path switch and the transcript-wide id sets. `decide` has no side
 * effects (it can be asked again after WAIT); `commit` records a decision.
 */
class Validator {
  private readonly ids: ReplayIds = { thinking: new Set(), emitted: new Set() };

  constructor(
    readonly allow: ReadonlySet<string> | undefined,
    readonly thinkingReplay: boolean,
  ) {}

  /** The assistant takes the thinking path (§3 step 3). */
  isThinkingTurn(message: Message): boolean {
    const content = message.content;
    return this.thinkingReplay && message.role === 'assistant' && Array.isArray(content) && isThinkingCandidate(content);
  }

  /**
   * Content indices whose fate can hang on completion: paired calls with a malformed name (ours:
   * kept when answered) and, with an allowlist, paired calls with a well-formed name it does not
   * hold. Non-paired calls are never completed (pairing never sees them).
   */
  completionDependent(message: Message): number[] {
    const content = message.content;
    if (message.role !== 'assistant' || !Array.isArray(content)) return [];
    const indices: number[] = [];
    for (let i = 0; i < content.length; i++) {
      const block = content[i];
      if (!isPairedCallBlock(block)) continue;
      if (!isValidToolNameSyntax(block.name) || (this.allow !== undefined && !this.allow.has(block.name.trim().toLowerCase()))) indices.push(i);
    }
    return indices;
  }

  decide(message: Message, completion: Completion, window: ThinkingWindow | undefined): Decision | Wait {
    const content = message.content;
    if (message.role !== 'assistant' || !Array.isArray(content)) return passThrough(message);
    if (this.thinkingReplay && isThinkingCandidate(content)) {
      const keep = keepThinkingTurn(content, this.allow, completion, window, this.ids);
      if (keep === WAIT) return WAIT;
      const decision = passThrough(message);
      if (keep) {
        decision.keptThinkingTurn = true;
        decision.keptAnsweredMisnamedCalls = content.filter((block) => isContractCallBlock(block) && !isValidToolNameSyntax(block.name)).length;
        const named = withFallbackNames(message, content);
        decision.output = named.message;
        decision.namedUnnamedCalls = named.count;
      } else {
        decision.output = null;
        decision.droppedThinkingTurn = true;
      }
      return decision;
    }
    return decideNormal(message, content, this.allow, completion);
  }

  commit(decision: Decision, count: Count): void {
    if (decision.droppedToolCalls > 0) count('droppedToolCalls', decision.droppedToolCalls);
    if (decision.trimmedNames > 0) count('trimmedNames', decision.trimmedNames);
    if (decision.droppedAssistant) count('droppedAssistantMessages', 1);
    if (decision.droppedThinkingTurn) count('droppedThinkingTurns', 1);
    if (decision.keptAnsweredMisnamedCalls > 0) count('keptAnsweredMisnamedCalls', decision.keptAnsweredMisnamedCalls);
    if (decision.namedUnnamedCalls > 0) count('namedUnnamedCalls', decision.namedUnnamedCalls);
    const output = decision.output;
    if (!this.thinkingReplay || output === null || output.role !== 'assistant' || !Array.isArray(output.content)) return;
    for (const id of pairedIdsOf(output.content)) {
      this.ids.emitted.add(id);
      if (decision.keptThinkingTurn) this.ids.thinking.add(id);
    }
  }
}

function occurrencesAt(occurrences: ReadonlyMap<number, Occurrence> | undefined, indices: readonly number[]): Map<number, Occurrence> | undefined {
  if (occurrences === undefined || indices.length === 0) return undefined;
  const watched = new Map<number, Occurrence>();
  for (const index of indices) {
    const occurrence = occurrences.get(index);
    if (occurrence !== undefined) watched.set(index, occurrence);
  }
  return watched.size === 0 ? undefined : watched;
}

function completionOf(classifier: CompletionClassifier | undefined, watched: ReadonlyMap<number, Occurrence> | undefined): Completion {
  return (index) => {
    const occurrence = watched?.get(index);
    // Only watched blocks can be completed: a non-paired call never gets a result.
    return occurrence === undefined || classifier === undefined ? false : classifier.completed(occurrence);
  };
}

// ---------------------------------------------------------------------------------------------
// Whole array

const ignoreCount: Count = () => {};

/**
 * `sanitizeToolCallInputs` over a whole message list (§3): the pure core. Untouched messages are
 * the same objects; changed assistants are shallow copies; nothing is mutated.
 */
export function validateToolCallInputs(messages: readonly Message[], options: ValidateToolCallInputsOptions = {}): Message[] {
  const validator = new Validator(normalizeAllowedToolNames(options.allowedToolNames), options.allowProviderOwnedThinkingReplay === true);
  // The completion exemption (§2.4) and our answered-call rule read the pairing classification of the whole input.
  const classifier = new CompletionClassifier();
  const occurrences: (Map<number, Occurrence> | undefined)[] = [];
  for (const message of messages) occurrences.push(isRecord(message) ? classifier.push(message) : undefined);
  classifier.end();
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (!isRecord(message)) continue; // §3 step 1 (an earlier stage already drops these)
    let window: ThinkingWindow | undefined;
    if (validator.isThinkingTurn(message)) {
      const content = message.content as unknown[];
      if (pairedIdsOf(content).length > 0) {
        window = new ThinkingWindow(content);
        for (let j = i + 1; j < messages.length; j++) {
          const later = messages[j]!;
          if (!isRecord(later)) continue;
          if (later.role === 'assistant' && Array.isArray(later.content) && later.content.some(isPairedCallBlock)) break;
          window.observe(later);
        }
        window.close();
      }
    }
    const watched = occurrencesAt(occurrences[i], validator.completionDependent(message));
    const decision = validator.decide(message, completionOf(classifier, watched), window);
    if (decision === WAIT) throw new Error('validate-tool-call-inputs: undecided with the whole input known');
    validator.commit(decision, ignoreCount);
    if (decision.output !== null) out.push(decision.output);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Streaming

/** Lookahead state of one held assistant. */
interface Pending {
  readonly watched: Map<number, Occurrence> | undefined;
  readonly window: ThinkingWindow | undefined;
}

class ToolCallInputValidation implements RuleProcessor {
  private readonly validator: Validator;
  private readonly classifier: CompletionClassifier;
  private readonly count: Count;
  private queue: SpillQueue<Message> | undefined;
  /**
   * Messages in the queue. Counted here because `SpillQueue.length` leaves out an entry that
   * `peek()` has already read back from the spill file.
   */
  private held = 0;
  /** Lookahead of held assistants, by input sequence number (not readonly: replaced by a new map when it empties, lib/young-maps.ts). */
  private pending = new Map<number, Pending>();
  /** The window of the latest held thinking turn, until the next assistant with paired calls. */
  private openWindow: ThinkingWindow | undefined;
  private nextIn = 0;
  /** Sequence number of the oldest held message. */
  private nextOut = 0;

  constructor(private readonly ctx: RuleContext) {
    this.count = ctx.count;
    const allow = normalizeAllowedToolNames(ctx.options.allowedToolNames);
    this.validator = new Validator(allow, allowProviderOwnedThinkingReplay(ctx.policy, ctx.options));
    // Completion decides the allowlist exemption and whether a misnamed call stays (ours), so pairing is always classified.
    this.classifier = new CompletionClassifier(ctx.options.resultIndex);
  }

  push(message: Message, emit: Emit): void {
    if (!isRecord(message)) return; // §3 step 1 (an earlier stage already drops these)
    const seq = this.nextIn++;
    // Lookahead facts first: this message may answer or close what is held.
    const occurrences = this.classifier.push(message);
    const content = message.content;
    const opensFrame = message.role === 'assistant' && Array.isArray(content) && content.some(isPairedCallBlock);
    if (this.openWindow !== undefined) {
      if (opensFrame) {
        this.openWindow.close();
        this.openWindow = undefined;
      } else {
        this.openWindow.observe(message);
      }
    }
    const watched = occurrencesAt(occurrences, this.validator.completionDependent(message));
    const window = opensFrame && this.validator.isThinkingTurn(message) ? new ThinkingWindow(content as unknown[]) : undefined;

    if (this.held === 0) {
      const decision = this.validator.decide(message, completionOf(this.classifier, watched), window);
      if (decision !== WAIT) {
        this.nextOut++;
        this.apply(decision, emit);
        return;
      }
    }
    if (window !== undefined) this.openWindow = window;
    if (watched !== undefined || window !== undefined) this.pending.set(seq, { watched, window });
    this.queue ??= new SpillQueue<Message>(lineKeepingCodec, { budgetBytes: this.ctx.options.memoryBudgetBytes });
    this.queue.push(message);
    this.held++;
    this.release(emit);
  }

  end(emit: Emit): void {
    this.classifier.end();
    this.openWindow?.close();
    this.openWindow = undefined;
    this.release(emit);
    if (this.held > 0) throw new Error('validate-tool-call-inputs: messages still held at the end of input');
  }

  dispose(): void {
    this.queue?.dispose();
    this.queue = undefined;
    this.held = 0;
    this.pending.clear();
  }

  /** Emits held messages from the front while they can be decided. */
  private release(emit: Emit): void {
    const queue = this.queue;
    if (queue === undefined) return;
    while (this.held > 0) {
      const message = queue.peek()!;
      const pending = this.pending.get(this.nextOut);
      const decision = this.validator.decide(message, completionOf(this.classifier, pending?.watched), pending?.window);
      if (decision === WAIT) return;
      queue.shift();
      this.held--;
      this.pending = deleteKey(this.pending, this.nextOut);
      this.nextOut++;
      this.apply(decision, emit);
    }
  }

  private apply(decision: Decision, emit: Emit): void {
    this.validator.commit(decision, this.count);
    if (decision.output !== null) emit(decision.output);
  }
}

export const validateToolCallInputsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'validate-tool-call-inputs',
    summary:
      'Drops tool calls without input or id, with a bad or disallowed name (unless completed), or with an unfinished partialJson; trims names; removes emptied assistants; signed thinking turns are kept whole or dropped whole. Ours: a call with a bad name that a tool answered is kept with its output.',
    counters: COUNTERS,
  },
  create(ctx) {
    return new ToolCallInputValidation(ctx);
  },
};
