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

const PLACEHOLDER_PREFIX = 'th_answered_name_';
const PLACEHOLDER = /^th_answered_name_(\d+)$/;

interface Route {
  provider: string;
  modelApi: string;
  modelId: string;
  reasoning?: boolean;
}

/** A call's name as a key: the trimmed text of a string, the JSON of anything else. */
function nameKey(name: unknown): string {
  return typeof name === 'string' ? `s:${name.trim()}` : `j:${JSON.stringify(name) ?? 'undefined'}`;
}

function misnamedPairedCalls(messages: readonly unknown[]): Array<{ id: string; name: unknown; hasName: boolean }> {
  const found: Array<{ id: string; name: unknown; hasName: boolean }> = [];
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isPairedCallBlock(block) && !isValidToolNameSyntax(block.name)) found.push({ id: block.id, name: block.name, hasName: Object.hasOwn(block, 'name') });
    }
  }
  return found;
}

/** `id` + name key of each misnamed call the project keeps at step 8, with how often. */
function keptMisnamedCalls(messages: readonly unknown[], route: Route): Map<string, number> {
  const kept = new Map<string, number>();
  if (misnamedPairedCalls(messages).length === 0) return kept;
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
  for (const call of misnamedPairedCalls(out)) {
    const key = `${call.id}\u0000${nameKey(call.name)}`;
    kept.set(key, (kept.get(key) ?? 0) + 1);
  }
  return kept;
}

/** The original name of each placeholder, in the order the placeholders were given. */
export type PlaceholderNames = Array<{ name: unknown; hasName: boolean }>;

/**
 * `sent` (the messages as the reference gets them, ids already aligned) with each call the project
 * keeps at step 8 despite a malformed name renamed to a placeholder; `original` is the case's input.
 */
export function withPlaceholderNames(original: readonly unknown[], sent: readonly unknown[], route: Route): { messages: unknown[]; names: PlaceholderNames } {
  const kept = keptMisnamedCalls(original, route);
  const names: PlaceholderNames = [];
  if (kept.size === 0) return { messages: [...sent], names };
  const messages = sent.map((message) => {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let content: unknown[] | undefined;
    message.content.forEach((block, index) => {
      if (!isPairedCallBlock(block) || isValidToolNameSyntax(block.name)) return;
      const key = `${block.id}\u0000${nameKey(block.name)}`;
      const left = kept.get(key) ?? 0;
      if (left === 0) return;
      kept.set(key, left - 1);
      content ??= [...(message.content as unknown[])];
      content[index] = { ...block, name: `${PLACEHOLDER_PREFIX}${names.length}` };
      names.push({ name: block.name, hasName: Object.hasOwn(block, 'name') });
    });
    return content === undefined ? message : { ...message, content };
  });
  return { messages, names };
}

/** The name step 8 leaves on a kept call: a string trimmed unless blank; anything else as it was. */
function keptName(name: unknown): unknown {
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : name;
}

/**
 * The reference's answer with the original names back where it has placeholders: on calls (the
 * `name` field removed again where the call had none) and on results that took the call's name
 * (§4.4). A non-string original leaves a result's name to enforce-tool-name-pattern, which
 * always replaces such a call's name and its results' with it.
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
      return { ...message, toolName: typeof original.name === 'string' ? keptName(original.name) as string : 'unknown' };
    }
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let changed = false;
    const content = message.content.map((block) => {
      if (!isRecord(block)) return block;
      const original = originalOf(block.name);
      if (original === undefined) return block;
      changed = true;
      const copy: Record<string, unknown> = { ...block };
      if (original.hasName) copy.name = keptName(original.name);
      else delete copy.name;
      return copy;
    });
    return changed ? ({ ...message, content } as Message) : message;
  });
}
