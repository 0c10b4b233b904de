/**
 * render-tools-as-text: our provider rule, on with the `tools: false` option (`--no-tools`).
 *
 * Why: a compaction or summarization request sends the history without tool definitions, and
 * Anthropic answers "Requests which include tool_use or tool_result blocks must define tools",
 * Bedrock Converse "The toolConfig field must be defined when using the toolUse and toolResult
 * content blocks". The content of the calls and results is what such a request is about, so it is
 * kept, as text:
 * - every tool call block of an assistant turn (`toolCall`, `toolUse`, `functionCall`) becomes a
 *   text block `[called NAME ARGS]`, ARGS the JSON of its arguments, in its place;
 * - a run of tool results becomes ONE user message, each result a text block
 *   `[result of NAME: TEXT]` (`[error from NAME: TEXT]` when `isError`), in the run's order, its
 *   images right after its text (user messages carry images on every route).
 * One user message per run keeps the history alternating (Bedrock's rule) as the run did.
 * Everything else (thinking, signatures on thinking, other roles) passes as it came. With
 * `maxToolResultBytes` a result is cut (cap-tool-result-text) before it becomes text.
 *
 * It runs early, before the thinking, pairing and validation rules: they then see the turns as
 * they will be sent (no calls to pair; a result run is a user turn the Anthropic validation
 * merges with a user turn after it), and a second pass over the output changes nothing.
 *
 * Unit: buffered; it holds the current run of tool results only (a run is one step's results).
 * Counters: `callsRendered`, `resultsRendered`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';
import { capToolResultText } from './cap-tool-result-text.ts';

/** The text a tool call block becomes: `[called read {"path":"a.md"}]`. */
export function callAsText(block: Record<string, unknown>): string {
  const name = typeof block.name === 'string' && block.name !== '' ? block.name : 'tool';
  const args = block.arguments ?? block.input;
  let shown: string;
  if (typeof args === 'string') shown = args;
  else {
    try {
      shown = JSON.stringify(args ?? {}) ?? '{}';
    } catch {
      shown = '{}';
    }
  }
  return `[called ${name} ${shown}]`;
}

/** The text of a result's content: its text blocks joined by newlines (as the transports join them). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => isRecord(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text).join('\n');
}

/** The blocks a tool result becomes inside the user message: its text, then its images. */
export function resultAsBlocks(message: Record<string, unknown>): ContentBlock[] {
  const name = typeof message.toolName === 'string' && message.toolName !== '' ? message.toolName : 'tool';
  const head = message.isError === true ? `error from ${name}` : `result of ${name}`;
  const blocks: ContentBlock[] = [{ type: 'text', text: `[${head}: ${resultText(message.content)}]` }];
  if (Array.isArray(message.content)) for (const block of message.content) if (isRecord(block) && block.type === 'image') blocks.push(block as ContentBlock);
  return blocks;
}

/** The assistant message with its tool calls as text; the same object when it has none. */
export function renderCallsAsText(message: Message): { message: Message; calls: number } {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return { message, calls: 0 };
  let calls = 0;
  const content = (message.content as unknown[]).map((block) => {
    if (!isCallTypeBlock(block)) return block;
    calls++;
    return { type: 'text', text: callAsText(block) };
  });
  if (calls === 0) return { message, calls };
  return { message: { ...message, content } as Message, calls };
}

/** One user message for a run of tool results. */
export function resultsAsUserMessage(run: readonly Message[]): Message {
  const content = run.flatMap((result) => resultAsBlocks(result as Record<string, unknown>));
  const out: Message = { role: 'user', content };
  const timestamp = run[0]?.timestamp;
  if (typeof timestamp === 'number') out.timestamp = timestamp;
  return out;
}

class ToolsAsText implements RuleProcessor {
  private run: Message[] = [];

  constructor(
    private readonly count: (counter: string, n?: number) => void,
    private readonly maxResultBytes: number | undefined,
  ) {}

  push(message: Message, emit: Emit): void {
    if (message.role === 'toolResult') {
      // The tool result limit applies here too: the result is text of a user turn from now on.
      this.run.push(this.maxResultBytes === undefined ? message : capToolResultText(message, this.maxResultBytes).message);
      return;
    }
    this.flush(emit);
    const { message: out, calls } = renderCallsAsText(message);
    if (calls > 0) this.count('callsRendered', calls);
    emit(out);
  }

  end(emit: Emit): void {
    this.flush(emit);
  }

  private flush(emit: Emit): void {
    if (this.run.length === 0) return;
    this.count('resultsRendered', this.run.length);
    emit(resultsAsUserMessage(this.run));
    this.run = [];
  }
}

/** The whole-array form, for tests. */
export function renderToolsAsText(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  const processor = new ToolsAsText(() => {}, undefined);
  for (const message of messages) processor.push(message, (m) => out.push(m));
  processor.end((m) => out.push(m));
  return out;
}

export function renderToolsAsTextEnabled(_policy: unknown, options: ResolvedHygieneOptions): boolean {
  return !options.tools;
}

export const renderToolsAsTextRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'render-tools-as-text',
    summary: 'With --no-tools (`tools: false`): turns every tool call into a `[called NAME ARGS]` text block and each run of tool results into one user message of `[result of NAME: ...]` text (images kept), for requests that define no tools.',
    counters: ['callsRendered', 'resultsRendered'],
  },
  create: (ctx: RuleContext) => new ToolsAsText(ctx.count, ctx.options.maxToolResultBytes),
};
