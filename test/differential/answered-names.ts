/**
 * Our answered-call rule (issue 20, item 10) in the differential suites.
 *
 * The reference drops every call whose name fails the name check (spec tool-calls.md §2.3), and
 * with it the result a tool returned; the project keeps such a call when a tool answered it. To
 * still compare everything else with the reference, the reference is asked about the input with
 * each call the project keeps under a placeholder name that passes the check (`referenceInput`),
 * and its answer gets the original names back (`withProjectProviderRules`) before our later rules
 * (enforce-tool-name-pattern among them) apply. A placeholder is letters, digits and `_`, so no
 * step of the reference treats it differently from the original apart from the name check.
 *
 * Which calls the project keeps is its own decision, taken where it is taken: the pipeline's rules
 * up to and including validate-tool-call-inputs, run on the case. A kept call that fails the check
 * is one the rule kept because a tool answered it.
 */
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { prepare } from '../../lib/pipeline.ts';
import { isRecord, type Message } from '../../lib/types.ts';
import { isPairedCallBlock, isValidToolNameSyntax } from '../../transforms/tool-call-shapes.ts';
import { UNNAMED_TOOL } from '../../lib/tool-names.ts';

const PLACEHOLDER_PREFIX = 'th_answered_name_';
const PLACEHOLDER = /^th_answered_name_(\d+)$/;

interface Route {
  provider: string;
  modelApi: string;
  modelId: string;
  reasoning?: boolean;
}

/** A call's name as step 8 leaves it when it keeps the call: the trimmed text, or `unnamed_tool` (a blank, missing or non-string name). */
function nameKey(name: unknown): string {
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : UNNAMED_TOOL;
}

/** `id` + name key of the paired calls that `select` picks, in order. */
function pairedCallKeys(messages: readonly unknown[], select: (name: unknown) => boolean): string[] {
  const keys: string[] = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) if (isPairedCallBlock(block) && select(block.name)) keys.push(`${block.id}\u0000${nameKey(block.name)}`);
  }
  return keys;
}

const misnamed = (name: unknown): boolean => !isValidToolNameSyntax(name);

/** `id` + name key of each misnamed call the project keeps at step 8, with how often. */
function keptMisnamedCalls(messages: readonly unknown[], route: Route): Map<string, number> {
  const kept = new Map<string, number>();
  const candidates = new Set(pairedCallKeys(messages, misnamed));
  if (candidates.size === 0) return kept;
  const prepared = prepare({ ...route, now: () => 0 }, { requestTime: false });
  const last = prepared.rules.findIndex((rule) => rule.meta.name === 'validate-tool-call-inputs');
  const out: Message[] = [];
  const chain = createRuleChain(prepared.rules.slice(0, last + 1), { policy: prepared.policy, options: prepared.options, stats: new StatsRecorder() }, (message) => out.push(message));
  try {
    for (const message of messages) {
      if (chain.write(structuredClone(message) as Message) !== undefined) throw new Error('answered-names: an asynchronous rule before step 8 (an image to recompress); not supported here');
    }
    if (chain.end() !== undefined) throw new Error('answered-names: an asynchronous rule before step 8; not supported here');
  } finally {
    chain.dispose();
  }
  // Kept: still outside the name check, or named unnamed_tool by step 8 (a blank or missing name).
  for (const key of pairedCallKeys(out, (name) => misnamed(name) || name === UNNAMED_TOOL)) {
    if (candidates.has(key)) kept.set(key, (kept.get(key) ?? 0) + 1);
  }
  return kept;
}

/** The original name of each placeholder, in the order the placeholders were given. */
export type PlaceholderNames = Array<{ name: unknown }>;

/**
 * `sent` (the messages as the reference gets them, ids already aligned) with each call the project
 * keeps at step 8 despite a malformed name renamed to a placeholder; `original` is the case's input.
 */
export function withPlaceholderNames(original: readonly unknown[], sent: readonly unknown[], route: Route): { messages: unknown[]; names: PlaceholderNames } {
  const kept = keptMisnamedCalls(original, route);
  const names: PlaceholderNames = [];
  if (kept.size === 0) return { messages: [...sent], names };
  // Call id → placeholder and original name, for the results that answer the call under its name.
  const placed = new Map<string, { placeholder: string; name: unknown }>();
  const messages = sent.map((message) => {
    if (isRecord(message) && message.role === 'toolResult') return withPlaceholderToolName(message, placed);
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let content: unknown[] | undefined;
    message.content.forEach((block, index) => {
      if (!isPairedCallBlock(block) || isValidToolNameSyntax(block.name)) return;
      const key = `${block.id}\u0000${nameKey(block.name)}`;
      const left = kept.get(key) ?? 0;
      if (left === 0) return;
      kept.set(key, left - 1);
      content ??= [...(message.content as unknown[])];
      const placeholder = `${PLACEHOLDER_PREFIX}${names.length}`;
      content[index] = { ...block, name: placeholder };
      names.push({ name: block.name });
      placed.set(block.id, { placeholder, name: block.name });
    });
    return content === undefined ? message : { ...message, content };
  });
  return { messages, names };
}

/**
 * A result named after a renamed call (trimmed names equal, as pairing and turn validation compare
 * them) takes the placeholder too, so the reference matches the two by name as the project does.
 */
function withPlaceholderToolName(message: Record<string, unknown>, placed: ReadonlyMap<string, { placeholder: string; name: unknown }>): Record<string, unknown> {
  const id = message.toolCallId;
  const call = typeof id === 'string' ? placed.get(id) : undefined;
  if (call === undefined || typeof call.name !== 'string' || call.name.trim() === '') return message;
  if (typeof message.toolName !== 'string' || message.toolName.trim() !== call.name.trim()) return message;
  return { ...message, toolName: call.placeholder };
}

/** The name step 8 leaves on a kept call: a string trimmed, `unnamed_tool` for a blank, missing or non-string one. */
function keptName(name: unknown): string {
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : UNNAMED_TOOL;
}

/**
 * The reference's answer with the names step 8 leaves back where it has placeholders: on calls and
 * on results (named after their call, or given its name by pairing, §4.4).
 */
export function withOriginalNames(expected: readonly Message[], names: PlaceholderNames): Message[] {
  if (names.length === 0) return [...expected];
  const originalOf = (value: unknown): PlaceholderNames[number] | undefined => {
    if (typeof value !== 'string') return undefined;
    const match = PLACEHOLDER.exec(value);
    return match === null ? undefined : names[Number(match[1])];
  };
  return expected.map((message) => {
    if (message.role === 'toolResult') {
      const original = originalOf(message.toolName);
      if (original === undefined) return message;
      return { ...message, toolName: keptName(original.name) };
    }
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let changed = false;
    const content = message.content.map((block) => {
      if (!isRecord(block)) return block;
      const original = originalOf(block.name);
      if (original === undefined) return block;
      changed = true;
      return { ...block, name: keptName(original.name) };
    });
    return changed ? ({ ...message, content } as Message) : message;
  });
}
