/**
 * The tool-call name each route's provider takes, as one rule per wire family (`<family>/tool-name`).
 * Which names pass is the policy's `toolNameRule` and lib/tool-names.ts, the predicate
 * enforce-tool-name-pattern repairs with: Claude on Anthropic Messages any non-blank name up to 200
 * characters, Gemini `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`, every other route `^[a-zA-Z0-9_-]{1,64}$`
 * (MiniMax on Anthropic Messages, OpenRouter's Anthropic models over chat completions, and routes
 * nobody documents included: the safe pattern).
 */
import { TOOL_NAME_RULE_TEXT, isToolNameAccepted } from '../tool-names.ts';
import type { InvariantFamily, InvariantRule } from './types.ts';
import { callsOf, type ReplayView } from './turns.ts';

const SOURCES: Readonly<Record<InvariantFamily, string>> = Object.freeze({
  anthropic:
    'Anthropic Messages: a `tool_use.name` that reaches Claude may be any non-blank name of at most 200 characters (issue 20); other models behind the API get the safe pattern ^[a-zA-Z0-9_-]{1,64}$.',
  bedrock: 'Converse API reference, ToolUseBlock `name`: "Length Constraints: Minimum length of 1. Maximum length of 64. Pattern: ^[a-zA-Z0-9_-]{1,64}$" (openclaw#12892).',
  gemini:
    'Gemini 400: "Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."',
  'openai-responses': 'OpenAI function name: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64" (400: string does not match pattern ^[a-zA-Z0-9_-]+$).',
  'chat-completions':
    'OpenAI function name: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"; Mistral and the other OpenAI-compatible servers the same.',
  mistral: 'Mistral function name: a-z, A-Z, 0-9, underscores and dashes, at most 64 characters (checked under chat-completions, which every Mistral route also gets).',
});

function quoted(name: unknown): string {
  if (typeof name !== 'string') return `(${name === undefined ? 'missing' : typeof name})`;
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** The tool-name rule of one wire family. */
export function toolNameRule(family: InvariantFamily): InvariantRule {
  const id = `${family}/tool-name`;
  const rule: InvariantRule = {
    id,
    family,
    summary: 'Every tool call\'s name is one the route\'s provider takes (Claude: non-blank, at most 200 characters; Gemini: ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$; otherwise ^[a-zA-Z0-9_-]{1,64}$).',
    source: SOURCES[family],
    check: (view: ReplayView, context, out) => {
      const names = context.policy.toolNameRule;
      for (const turn of view.turns) {
        if (turn.kind !== 'assistant') continue;
        const entry = turn.entries[0]!;
        for (const call of callsOf(entry.message)) {
          if (isToolNameAccepted(call.name, names)) continue;
          out.push({
            rule: id,
            family,
            index: entry.index,
            ...(typeof call.id === 'string' ? { id: call.id } : {}),
            block: call.block,
            message: `tool name ${quoted(call.name)} is not ${TOOL_NAME_RULE_TEXT[names]}`,
          });
        }
      }
    },
  };
  return Object.freeze(rule);
}
