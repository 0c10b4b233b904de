/**
 * Amazon Bedrock Converse (`bedrock-converse-stream`): what the Converse API rejects, plus the
 * Anthropic pairing rules, which it enforces the same way for Claude (a `toolUse` must be answered
 * by `toolResult` blocks in the next message, and a result must answer the previous turn).
 *
 * Unlike the Anthropic Messages API, Converse does not combine same-role turns: it requires strict
 * alternation, checked here on the messages as sent (a run of tool results is one user message,
 * turns.ts), so `assistant(call), toolResult, user` is two user messages in a row.
 */
import type { InvariantFamily, InvariantRule } from './types.ts';
import { toolNameRule } from './tool-name.ts';
import { checkContent, checkResultsAnswerPreviousCalls, checkResultsFollowCalls, sentIds } from './anthropic.ts';
import { callsWithInvalidInput, showId, showInputType, type ReplayView } from './turns.ts';

const FAMILY: InvariantFamily = 'bedrock';

/**
 * Converse's `ToolUseBlock.toolUseId` (and `ToolResultBlock.toolUseId`): 1–64 characters of this
 * set, relaxed on 2026-04-02 from `[a-zA-Z0-9_-]` to allow dots and colons.
 */
export const BEDROCK_TOOL_USE_ID = /^[a-zA-Z0-9_.:-]{1,64}$/;

export const bedrockFirstMessageUser: InvariantRule = {
  id: 'bedrock/first-message-user',
  family: FAMILY,
  summary: 'The conversation starts with a user message (a leading tool result run is a user message too; it breaks the pairing rules instead).',
  source: 'Bedrock ValidationException: "A conversation must start with a user message. Try again with a conversation that starts with a user message."',
  check: (view: ReplayView, _context, out) => {
    const first = view.turns[0];
    if (first === undefined || first.role === 'user') return;
    out.push({
      rule: 'bedrock/first-message-user',
      family: FAMILY,
      index: first.index,
      message: 'A conversation must start with a user message (it starts with an assistant message)',
    });
  },
};

export const bedrockAlternation: InvariantRule = {
  id: 'bedrock/alternation',
  family: FAMILY,
  summary: 'Roles alternate user/assistant on the messages as sent (a tool result run is one user message; a user message after it is a second one).',
  source:
    'Bedrock ValidationException: "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."',
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      const previous = view.turns[t - 1];
      if (previous === undefined || previous.role !== turn.role) return;
      out.push({
        rule: 'bedrock/alternation',
        family: FAMILY,
        index: turn.index,
        message: `A conversation must alternate between user and assistant roles (two ${turn.role} messages in a row, from messages ${previous.index} and ${turn.index})`,
      });
    });
  },
};

export const bedrockEmptyContent: InvariantRule = {
  id: 'bedrock/empty-content',
  family: FAMILY,
  summary: 'No message without content (no exception for the last assistant).',
  source: 'Bedrock ValidationException: "The content field in the Message object at messages.N is empty. Add a ContentBlock object to the content field and try again."',
  check: (view, _context, out) => checkContent(view, FAMILY, 'empty', 'The content field in the Message object is empty', false, out),
};

export const bedrockBlankText: InvariantRule = {
  id: 'bedrock/blank-text',
  family: FAMILY,
  summary: 'No text block is empty or whitespace only (tool result content included).',
  source: 'Bedrock ValidationException: "The text field in the ContentBlock object at messages.N.content.M is blank. Add text to the text field, and try again."',
  check: (view, _context, out) => checkContent(view, FAMILY, 'blank', 'The text field in the ContentBlock object is blank', false, out),
};

export const bedrockToolResultMissing: InvariantRule = {
  id: 'bedrock/tool-result-missing',
  family: FAMILY,
  summary: 'Every toolUse is answered by a toolResult in the next message (Anthropic pairing).',
  source: 'Bedrock ValidationException: "Expected toolResult blocks at messages.N.content for the following Ids: <id>"; the Anthropic rule, which Claude on Bedrock shares.',
  check: (view, _context, out) => checkResultsFollowCalls(view, FAMILY, (id) => `Expected toolResult blocks in the next message for the following Ids: ${id}`, out),
};

export const bedrockUnexpectedToolResult: InvariantRule = {
  id: 'bedrock/unexpected-tool-result',
  family: FAMILY,
  summary: 'Every toolResult answers a toolUse of the assistant message right before it (Anthropic pairing).',
  source:
    'Bedrock ValidationException: "The number of toolResult blocks at messages.N.content exceeds the number of toolUse blocks of previous turn."; the Anthropic rule "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."',
  check: (view, _context, out) =>
    checkResultsAnswerPreviousCalls(view, FAMILY, 'unexpected', (id) => `toolResult ${id} answers no toolUse of the previous turn`, out),
};

export const bedrockDuplicateToolResult: InvariantRule = {
  id: 'bedrock/duplicate-tool-result',
  family: FAMILY,
  summary: 'A toolUse is answered once.',
  source: 'Bedrock ValidationException: "The number of toolResult blocks at messages.N.content exceeds the number of toolUse blocks of previous turn."',
  check: (view, _context, out) =>
    checkResultsAnswerPreviousCalls(view, FAMILY, 'duplicate', (id) => `a second toolResult for ${id}: the number of toolResult blocks exceeds the number of toolUse blocks of previous turn`, out),
};

export const bedrockToolUseIdPattern: InvariantRule = {
  id: 'bedrock/tool-use-id-pattern',
  family: FAMILY,
  summary: 'toolUseId (in toolUse and toolResult) is 1–64 characters of [a-zA-Z0-9_.:-].',
  source:
    'Bedrock API reference, ToolUseBlock / ToolResultBlock `toolUseId`: "Length Constraints: Minimum length of 1. Maximum length of 64. Pattern: ^[a-zA-Z0-9_.:-]+$" (service model of 2026-04-02, botocore "Relax ToolUseId pattern to allow dots and colons").',
  check: (view, _context, out) => {
    for (const { index, block, id } of sentIds(view)) {
      if (typeof id === 'string' && BEDROCK_TOOL_USE_ID.test(id)) continue;
      out.push({
        rule: 'bedrock/tool-use-id-pattern',
        family: FAMILY,
        index,
        id: typeof id === 'string' ? id : '',
        ...(block === undefined ? {} : { block }),
        message: `toolUseId ${showId(id)} does not match ^[a-zA-Z0-9_.:-]{1,64}$`,
      });
    }
  },
};

export const bedrockToolUseInput: InvariantRule = {
  id: 'bedrock/tool-use-input',
  family: FAMILY,
  summary: 'toolUse.input is present and a JSON object (the runtime sends a call\'s `arguments` as they are).',
  source:
    'Bedrock ValidationException: "The format of the value at messages.N.content.M.toolUse.input is invalid"; Converse API reference, ToolUseBlock `input` (Required: Yes, a JSON document object); pi-ai Converse builder (`input: arguments`).',
  check: (view, _context, out) => {
    for (const { index, call } of callsWithInvalidInput(view, false)) {
      out.push({
        rule: 'bedrock/tool-use-input',
        family: FAMILY,
        index,
        ...(typeof call.id === 'string' ? { id: call.id } : {}),
        block: call.block,
        message: `The format of the value at toolUse.input is invalid (arguments are ${showInputType(call.arguments)})`,
      });
    }
  },
};

export const bedrockToolName = toolNameRule(FAMILY);

export const BEDROCK_RULES: readonly InvariantRule[] = Object.freeze([
  bedrockFirstMessageUser,
  bedrockAlternation,
  bedrockEmptyContent,
  bedrockBlankText,
  bedrockToolResultMissing,
  bedrockUnexpectedToolResult,
  bedrockDuplicateToolResult,
  bedrockToolUseIdPattern,
  bedrockToolUseInput,
  bedrockToolName,
]);
