/**
 * Tool-call names as each provider takes them in a replayed conversation: the predicate that
 * enforce-tool-name-pattern (transforms/) repairs with and lib/invariants/ checks with, so the
 * two cannot drift apart, and the replacement name for one the route rejects.
 *
 * Rules (`TranscriptPolicy.toolNameRule`):
 * - `claude`: Anthropic Messages where the request reaches Claude takes any non-blank
 *   `tool_use.name` up to 200 characters (issue 20; its pattern binds tool definitions only);
 * - `gemini`: Gemini's `functionCall.name` starts with a letter or an underscore and has at most
 *   64 characters of `[a-zA-Z0-9_.:-]` ("Invalid function name. Must start with a letter or an
 *   underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or
 *   dashes (-), with a maximum length of 64.");
 * - `strict`: everything else, `^[a-zA-Z0-9_-]{1,64}$`: Bedrock Converse's `ToolUseBlock.name`
 *   (openclaw#12892), OpenAI chat completions and Responses, Mistral; also the routes whose
 *   rule nobody documents, where it is the safe choice.
 */
import { createHash } from 'node:crypto';

export type ToolNameRule = 'claude' | 'gemini' | 'strict';

export const CLAUDE_TOOL_NAME_MAX_LENGTH = 200;
export const GEMINI_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
export const STRICT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The rule as one line, for messages and help. */
export const TOOL_NAME_RULE_TEXT: Readonly<Record<ToolNameRule, string>> = Object.freeze({
  claude: 'a non-blank name of at most 200 characters',
  gemini: '^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$',
  strict: '^[a-zA-Z0-9_-]{1,64}$',
});

/** The provider takes this call name as it is. */
export function isToolNameAccepted(name: unknown, rule: ToolNameRule): boolean {
  if (typeof name !== 'string') return false;
  if (rule === 'claude') return name.trim() !== '' && name.length <= CLAUDE_TOOL_NAME_MAX_LENGTH;
  return (rule === 'gemini' ? GEMINI_TOOL_NAME : STRICT_TOOL_NAME).test(name);
}

/** The name given to a call whose name is missing or blank. */
export const UNNAMED_TOOL = 'unnamed_tool';
const MAX_LENGTH = 64;
const HASH_LENGTH = 8;
const OUTSIDE = /[^a-zA-Z0-9_-]+/g;

function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_LENGTH);
}

/**
 * A name every rule above accepts, derived from `name` (its trimmed text): each run of other
 * characters becomes `_` (`mcp.s3/list_objects` → `mcp_s3_list_objects`), a leading digit or
 * dash gets a `_` in front (Gemini), and a name longer than 64 characters keeps its first 55 and
 * `_` plus 8 hex digits of its SHA-256, so long names that share a start stay apart. A name with
 * no letter or digit left becomes `tool_` and that hash; a blank or missing one `unnamed_tool`.
 * The same input always gives the same name, and the result is accepted, so a second run keeps it.
 */
export function acceptedToolName(name: unknown): string {
  const original = typeof name === 'string' ? name.trim() : '';
  if (original === '') return UNNAMED_TOOL;
  let derived = original.replace(OUTSIDE, '_');
  if (!/[a-zA-Z0-9]/.test(derived)) return `tool_${shortHash(original)}`;
  if (!/^[a-zA-Z_]/.test(derived)) derived = `_${derived}`;
  if (derived.length > MAX_LENGTH) derived = `${derived.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${shortHash(original)}`;
  return derived;
}
