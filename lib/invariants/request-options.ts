/**
 * Rules that hold for a request because of how it is made, not which provider gets it: a request
 * that defines no tools (`tools: false`, compaction and summarization calls) and the largest tool
 * result the runner keeps (`maxToolResultBytes`). They apply only when the check is told about the
 * request (CheckRoute `tools`, `maxToolResultBytes`). Written from the providers' words; nothing
 * here reads the rules that repair them.
 */
import type { InvariantFamily, InvariantRule, Violation } from './types.ts';
import { callsOf, type ReplayView } from './turns.ts';

function push(out: Violation[], family: InvariantFamily, name: string, index: number, message: string, extra: { id?: string; block?: number } = {}): void {
  out.push({ rule: `${family}/${name}`, family, index, ...extra, message });
}

/** Every tool call block and tool result in the view, in order. */
function toolBlocks(view: ReplayView): Array<{ index: number; what: string; id?: string; block?: number }> {
  const found: Array<{ index: number; what: string; id?: string; block?: number }> = [];
  for (const turn of view.turns) {
    for (const entry of turn.entries) {
      if (turn.kind === 'assistant') {
        for (const call of callsOf(entry.message)) found.push({ index: entry.index, what: 'tool call', id: typeof call.id === 'string' ? call.id : '', block: call.block });
      } else if (turn.kind === 'tool-results') {
        const id = entry.message.toolCallId;
        found.push({ index: entry.index, what: 'tool result', id: typeof id === 'string' ? id : '' });
      }
    }
  }
  return found;
}

function toolBlocksWithoutTools(family: InvariantFamily, name: string, source: string): InvariantRule {
  return {
    id: `${family}/${name}`,
    family,
    summary: 'A request that defines no tools carries no tool call or tool result block.',
    source,
    check: (view, context, out) => {
      if (context.tools) return;
      for (const found of toolBlocks(view)) {
        const extra = { ...(found.id === undefined ? {} : { id: found.id }), ...(found.block === undefined ? {} : { block: found.block }) };
        push(out, family, name, found.index, `a ${found.what} in a request that defines no tools`, extra);
      }
    },
  };
}

export const anthropicToolBlocksWithoutTools = toolBlocksWithoutTools(
  'anthropic',
  'tool-blocks-without-tools',
  'Anthropic 400: "Requests which include `tool_use` or `tool_result` blocks must define tools."',
);

export const bedrockToolBlocksWithoutToolConfig = toolBlocksWithoutTools(
  'bedrock',
  'tool-blocks-without-tool-config',
  'Bedrock Converse ValidationException: "The toolConfig field must be defined when using the toolUse and toolResult content blocks."',
);

/** The UTF-8 bytes of a tool result's text: its string content, or its text blocks together. */
function resultTextBytes(content: unknown): number {
  if (typeof content === 'string') return Buffer.byteLength(content, 'utf8');
  if (!Array.isArray(content)) return 0;
  let bytes = 0;
  for (const block of content) {
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string') bytes += Buffer.byteLength(text, 'utf8');
    }
  }
  return bytes;
}

/** `<family>/tool-result-size`: the runner's own limit, when the check is given one. */
export function toolResultSizeRule(family: InvariantFamily): InvariantRule {
  const name = 'tool-result-size';
  return {
    id: `${family}/${name}`,
    family,
    summary: 'With a tool result limit (--max-tool-result-bytes N): no tool result carries more than N bytes of text.',
    source: 'The runner\'s limit: one huge tool output wedges a session that compaction cannot shrink (openclaw#113701); providers answer with context-length errors ("prompt is too long", 413 on large bodies).',
    check: (view, context, out) => {
      const max = context.maxToolResultBytes;
      if (max === undefined) return;
      for (const turn of view.turns) {
        if (turn.kind !== 'tool-results') continue;
        for (const entry of turn.entries) {
          const bytes = resultTextBytes(entry.message.content);
          if (bytes <= max) continue;
          const id = entry.message.toolCallId;
          push(out, family, name, entry.index, `the tool result's text is ${bytes} bytes; the limit is ${max}`, { id: typeof id === 'string' ? id : '' });
        }
      }
    },
  };
}

export const TOOL_RESULT_SIZE_RULES: Readonly<Record<InvariantFamily, InvariantRule>> = Object.freeze({
  anthropic: toolResultSizeRule('anthropic'),
  bedrock: toolResultSizeRule('bedrock'),
  gemini: toolResultSizeRule('gemini'),
  'openai-responses': toolResultSizeRule('openai-responses'),
  'chat-completions': toolResultSizeRule('chat-completions'),
  mistral: toolResultSizeRule('mistral'),
});
