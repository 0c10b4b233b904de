/**
 * enforce-tool-name-pattern: our provider rule, not the reference's (issue 20, item 10). Near the
 * end of the replay steps, every tool call's name is one the route's provider takes
 * (`policy.toolNameRule`, lib/tool-names.ts): Claude on Anthropic Messages any non-blank name up to
 * 200 characters, Gemini `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`, everything else (Bedrock Converse,
 * OpenAI, Mistral, undocumented routes) `^[a-zA-Z0-9_-]{1,64}$`. A call whose name breaks it gets
 * `acceptedToolName(name)` (`mcp.s3/list_objects` → `mcp_s3_list_objects`; a long one cut with a
 * hash; a blank one `unnamed_tool`), and the results that answer it follow: their `toolName`
 * becomes the new name too (Gemini sends it as `functionResponse.name`, which must match the call).
 *
 * Why: validate-tool-call-inputs keeps a call with a malformed name when a tool answered it, so its
 * output is not lost; and a name the reference's check lets through (`ns:tool.v1`) still breaks
 * Bedrock's or OpenAI's pattern after a model switch (openclaw#12892: Bedrock rejects it).
 *
 * Where the model reads the original name: a text note `[tool name: <original>]` put first in each
 * answering result's content (a first line for string content). The result is the one place tied
 * to that call alone that the route always sends: an edit to the assistant turn could touch signed
 * thinking turns or Responses reasoning items, and the model reads the note next to the output it
 * explains. A blank or missing original gets no note (nothing to keep). A second run finds every
 * name accepted and changes nothing.
 *
 * Unit: message. State: for each renamed call id, the queue of renames its results still have to
 * take (a result comes after its call once pairing repair has run). Counters: `namesRenamed`,
 * `resultsRenamed`, and `malformedNamesKept` (names that fail the reference's check, spec
 * tool-calls.md §2.3, kept as they are because the route's provider takes them).
 */
import type { BufferedRule, Emit, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { recordEdits, setBlockField, type MessageEdit } from '../lib/message-edits.ts';
import { acceptedToolName, isToolNameAccepted, type ToolNameRule } from '../lib/tool-names.ts';
import { isCallTypeBlock, isValidToolNameSyntax, rewriteRawIdOf } from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

/** How long an original name may run in the note before it is cut. */
const NOTE_NAME_MAX = 200;

/** The note that keeps a replaced name readable: `[tool name: mcp.s3/list_objects]`. */
export function toolNameNote(original: string): string {
  const shown = original.length > NOTE_NAME_MAX ? `${original.slice(0, NOTE_NAME_MAX)}…` : original;
  return `[tool name: ${shown}]`;
}

interface Rename {
  readonly name: string;
  /** The original name, trimmed, when there is one to show. */
  readonly original: string | undefined;
}

export class ToolNameEnforcer implements RuleProcessor {
  /** Call id → the renames its results still have to take, in call order. */
  /** Not readonly: replaced by a new map when it empties (lib/young-maps.ts). */
  private pending = new Map<string, Rename[]>();

  constructor(
    private readonly rule: ToolNameRule,
    private readonly count: (counter: string, n?: number) => void,
  ) {}

  push(message: Message, emit: Emit): void {
    if (message.role === 'assistant') emit(this.assistant(message));
    else if (message.role === 'toolResult') emit(this.result(message));
    else emit(message);
  }

  end(): void {}

  private assistant(message: Message): Message {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    let out: ContentBlock[] | undefined;
    const edits: MessageEdit[] = [];
    let kept = 0;
    // A name that was not a string has no bytes to patch: then the copy is written whole (no record).
    let patchable = true;
    for (let i = 0; i < content.length; i++) {
      const block = content[i];
      if (!isCallTypeBlock(block)) continue;
      const name = block.name;
      if (isToolNameAccepted(name, this.rule)) {
        if (!isValidToolNameSyntax(name)) kept++;
        continue;
      }
      const next = acceptedToolName(name);
      out ??= content.slice() as ContentBlock[];
      out[i] = { ...block, name: next } as ContentBlock;
      edits.push(setBlockField(i, 'name', name, next));
      if (typeof name !== 'string') patchable = false;
      const id = block.id;
      if (typeof id === 'string' && id !== '') {
        const original = typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
        const queue = this.pending.get(id);
        if (queue === undefined) this.pending.set(id, [{ name: next, original }]);
        else queue.push({ name: next, original });
      }
    }
    if (kept > 0) this.count('malformedNamesKept', kept);
    if (out === undefined) return message;
    this.count('namesRenamed', edits.length);
    const copy: Message = { ...message, content: out };
    return patchable ? recordEdits(message, copy, edits) : copy;
  }

  private result(message: Message): Message {
    const id = rewriteRawIdOf(message);
    if (id === undefined) return message;
    const queue = this.pending.get(id);
    if (queue === undefined) return message;
    const rename = queue.shift()!;
    if (queue.length === 0) this.pending = deleteKey(this.pending, id);
    this.count('resultsRenamed');
    const out: Message = { ...message, toolName: rename.name };
    if (rename.original === undefined) return out;
    const note = toolNameNote(rename.original);
    const content = message.content;
    if (Array.isArray(content)) out.content = [{ type: 'text', text: note }, ...content] as ContentBlock[];
    else if (typeof content === 'string') out.content = `${note}\n${content}`;
    return out;
  }
}

/** The whole-array form, for tests and the differential suites. */
export function enforceToolNamePattern(messages: readonly Message[], rule: ToolNameRule): Message[] {
  const out: Message[] = [];
  const enforcer = new ToolNameEnforcer(rule, () => {});
  for (const message of messages) enforcer.push(message, (m) => out.push(m));
  return out;
}

export const enforceToolNamePatternRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'enforce-tool-name-pattern',
    summary:
      'Ours: gives a call whose name the route\'s provider rejects (Claude: blank or over 200 characters; Gemini: ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$; others: ^[a-zA-Z0-9_-]{1,64}$) a name derived from it (mcp.s3/list_objects -> mcp_s3_list_objects); its results take the new name and start with "[tool name: <original>]", the one place tied to that call alone, which leaves signed thinking turns and Responses items untouched.',
    counters: ['namesRenamed', 'resultsRenamed', 'malformedNamesKept'],
  },
  create: (ctx) => new ToolNameEnforcer(ctx.policy.toolNameRule, ctx.count),
};
