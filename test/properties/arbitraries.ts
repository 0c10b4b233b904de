/**
 * fast-check arbitraries for whole transcripts built from every message and block shape of the
 * spec, well-formed and broken: tool-call episodes whose results are missing, duplicated,
 * displaced (after a user turn, into a later frame, before their call) or orphaned; result ids in
 * alias fields, blank or padded; ids that no provider accepts (`functions.read:0`, `a|b`, `a.b`,
 * 70 characters, repeated); calls without input, id or valid name (answered or not), with `partialJson`, of the
 * snake-case contract types; blank text, blank and NO_REPLY turns, empty and string content;
 * stream-error, aborted and length turns; signed, unsigned, blank-signed and redacted thinking;
 * delivery mirrors, compaction checkpoints, compaction summaries, unknown roles and images.
 *
 * Every value survives a JSON round trip. Timestamps are assigned in order after the mutations,
 * so the time-based rules (compaction, model switch) see a consistent history.
 */
import fc from 'fast-check';
import type { Message } from '../../lib/types.ts';

/** Ids that pair with each other across turns; a few of them are invalid for some provider. */
const CALL_IDS = [
  'call_1',
  'call_2',
  'toolu_01Ab',
  'c1',
  'c2',
  'a-b',
  'a_b',
  'a.b',
  'functions.read:0',
  'call_1|fc_1',
  'call_2|fc_2',
  'call_3|fc bad!',
  'abcdefghi',
  'x'.repeat(70),
] as const;

/** Ids a stored call can carry that are broken in themselves. */
const BROKEN_CALL_IDS = ['', ' ', ' c1', 'c1 ', 'id with space', 'a|b'] as const;

/**
 * Call names: valid ones, and names some provider rejects: outside the reference's name check
 * (MCP-style `mcp.s3/list_objects`, spaces, over 64 or 200 characters, blank), which a call keeps
 * when a tool answered it (ours, issue 20), and inside it but outside a provider's pattern
 * (`ns:tool.v1` on Bedrock or OpenAI, `1read` on Gemini).
 */
const NAMES = ['read', 'read', 'write', ' read ', 'bad/slash', '', 'mcp.s3/list_objects', ' list files ', 'x'.repeat(70), 'y'.repeat(201), 'ns:tool.v1', '1read', '  '] as const;

/** A 1x1 PNG, so image rules have one real image to process now and then. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

type Json = Record<string, unknown>;

const text = (value: string): Json => ({ type: 'text', text: value });

const textValue = fc.constantFrom('hello', 'ok', 'x y', ' ', '', 'NO_REPLY', 'answer');

const imageBlock: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
  { type: 'image', data: 'not*base64!', mimeType: 'image/png' },
  { type: 'image', data: '', mimeType: 'image/png' },
);

const thinkingBlock: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  { type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' },
  { type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' },
  { type: 'thinking', thinking: 'plan' },
  { type: 'thinking', thinking: 'plan', thinkingSignature: '   ' },
  { type: 'thinking', thinking: ' ', thinkingSignature: 'sig' },
  { type: 'thinking', thinking: 'plan', signature: 'ok' },
  { type: 'thinking', thinking: 'r', thinkingSignature: '{"type":"reasoning","id":"rs_1"}' },
  { type: 'thinking', thinking: 'plan', thinkingSignature: 'Zm9v', thoughtSignature: 'msg_1' },
  { type: 'redacted_thinking', data: 'opaque' },
  { type: 'redacted_thinking', data: ' ' },
);

const callId: fc.Arbitrary<string> = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...CALL_IDS) }, { weight: 1, arbitrary: fc.constantFrom(...BROKEN_CALL_IDS) });

const callBlock: fc.Arbitrary<Json> = fc
  .record({
    type: fc.oneof({ weight: 8, arbitrary: fc.constant('toolCall') }, { weight: 2, arbitrary: fc.constantFrom('toolUse', 'functionCall', 'tool_use', 'function_call') }),
    id: callId,
    name: fc.constantFrom(...NAMES),
    input: fc.oneof({ weight: 8, arbitrary: fc.constant('arguments') }, { weight: 1, arbitrary: fc.constant('none') }, { weight: 1, arbitrary: fc.constant('partial') }),
  })
  .map(({ type, id, name, input }) => {
    const block: Json = { type, id, name };
    if (input !== 'none') block.arguments = { p: 1 };
    if (input === 'partial') block.partialJson = '{"p":1}';
    return block;
  });

const otherAssistantBlock: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: textValue.map(text) },
  { weight: 3, arbitrary: thinkingBlock },
  { weight: 1, arbitrary: imageBlock },
  { weight: 1, arbitrary: fc.constant<Json>({ type: 'foo' }) },
);

interface AssistantShape {
  message: Json;
  /** Ids of the call blocks, in content order (repeats kept). */
  calls: string[];
}

const assistantMessage: fc.Arbitrary<AssistantShape> = fc
  .record({
    before: fc.array(otherAssistantBlock, { maxLength: 2 }),
    calls: fc.array(callBlock, { maxLength: 3 }),
    after: fc.array(textValue.map(text), { maxLength: 1 }),
    stopReason: fc.constantFrom('stop', 'toolUse', 'toolUse', 'toolUse', 'error', 'aborted', 'length'),
    shape: fc.oneof({ weight: 14, arbitrary: fc.constant('array') }, { weight: 1, arbitrary: fc.constant('string') }, { weight: 1, arbitrary: fc.constant('empty') }),
    extra: fc.oneof(
      { weight: 16, arbitrary: fc.constant<Json>({}) },
      { weight: 1, arbitrary: fc.constant<Json>({ provider: 'openclaw', model: 'delivery-mirror' }) },
      { weight: 1, arbitrary: fc.constant<Json>({ providerReplay: { type: 'anthropic-compaction', replayIndex: 0 } }) },
      { weight: 1, arbitrary: fc.constant<Json>({ usage: { input: 0, output: 0, totalTokens: 0 } }) },
    ),
  })
  .map(({ before, calls, after, stopReason, shape, extra }) => {
    const content = shape === 'string' ? 'plain answer' : shape === 'empty' ? [] : [...before, ...calls, ...after];
    const message: Json = { role: 'assistant', content, stopReason, ...extra };
    const ids = shape === 'array' ? calls.map((block) => block.id as string) : [];
    return { message, calls: ids };
  });

const resultContent: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constant([text('ok')]) },
  { weight: 1, arbitrary: fc.constant([text('  ')]) },
  { weight: 1, arbitrary: fc.constant([]) },
  { weight: 1, arbitrary: fc.constant('string result') },
  { weight: 1, arbitrary: imageBlock.map((block) => [block]) },
);

/** How a result names its call. */
const ID_FIELDS = ['toolCallId', 'toolCallId', 'toolCallId', 'toolCallId', 'toolUseId', 'call_id'] as const;

function resultMessage(id: string | undefined, field: string, content: unknown, isError: boolean, name: string): Json {
  const message: Json = { role: 'toolResult' };
  if (id !== undefined) message[field] = id;
  message.toolName = name;
  message.content = content;
  message.isError = isError;
  return message;
}

const resultFor = (id: fc.Arbitrary<string | undefined>): fc.Arbitrary<Json> =>
  fc
    .record({
      id,
      field: fc.constantFrom(...ID_FIELDS),
      padding: fc.oneof({ weight: 12, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant(' ') }),
      content: resultContent,
      isError: fc.boolean(),
      name: fc.constantFrom('read', 'write'),
      details: fc.boolean(),
    })
    .map(({ id, field, padding, content, isError, name, details }) => {
      const message = resultMessage(id === undefined ? undefined : padding + id, field, content, isError, name);
      if (details) message.details = { raw: 1 };
      return message;
    });

const userMessage: fc.Arbitrary<Json> = fc.oneof(
  { weight: 10, arbitrary: textValue.map((value) => ({ role: 'user', content: value === '' ? 'question' : value })) },
  { weight: 3, arbitrary: fc.array(fc.oneof(textValue.map(text), imageBlock), { minLength: 1, maxLength: 2 }).map((content) => ({ role: 'user', content })) },
  { weight: 1, arbitrary: fc.constant<Json>({ role: 'user', content: '' }) },
  { weight: 1, arbitrary: fc.constant<Json>({ role: 'user', content: [text(' ')], __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } }) },
  { weight: 1, arbitrary: fc.constant<Json>({ role: 'user', content: 'routed', provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } }) },
  { weight: 1, arbitrary: fc.constant<Json>({ role: 'user', content: 42 }) },
);

/** One exchange: maybe a user turn, an assistant, and results for its calls in some arrangement. */
const episode: fc.Arbitrary<Json[]> = fc
  .record({ lead: fc.option(userMessage, { nil: undefined, freq: 3 }), assistant: assistantMessage })
  .chain(({ lead, assistant }) => {
    const answered = assistant.calls.length === 0 ? fc.constant<Json[]>([]) : fc.tuple(...assistant.calls.map((id) => resultPlan(id))).map((plans) => plans.flat());
    return fc
      .record({
        results: answered,
        shuffle: fc.boolean(),
        interjection: fc.option(userMessage, { nil: undefined, freq: 6 }),
        orphan: fc.option(resultFor(fc.constantFrom(...CALL_IDS)), { nil: undefined, freq: 8 }),
        closing: fc.option(assistantMessage.map((shape) => shape.message), { nil: undefined, freq: 4 }),
      })
      .map(({ results, shuffle, interjection, orphan, closing }) => {
        const ordered = shuffle ? [...results].reverse() : results;
        const out: Json[] = [];
        if (lead !== undefined) out.push(lead);
        out.push(assistant.message);
        // An interjection lands between the call and its results (pairing must move them up).
        if (interjection !== undefined && ordered.length > 0) out.push(interjection);
        out.push(...ordered);
        if (orphan !== undefined) out.push(orphan);
        if (interjection !== undefined && ordered.length === 0) out.push(interjection);
        if (closing !== undefined) out.push(closing);
        return out;
      });
  });

/** The results one call gets: usually one, sometimes none, two, or one without a usable id. */
function resultPlan(id: string): fc.Arbitrary<Json[]> {
  return fc.oneof(
    { weight: 12, arbitrary: resultFor(fc.constant(id)).map((result) => [result]) },
    { weight: 2, arbitrary: fc.constant<Json[]>([]) },
    { weight: 1, arbitrary: fc.tuple(resultFor(fc.constant(id)), resultFor(fc.constant(id))).map(([a, b]) => [a, b]) },
    { weight: 1, arbitrary: resultFor(fc.constantFrom<string | undefined>(undefined, '', '  ')).map((result) => [result]) },
  );
}

type Mutation = { kind: 'move'; from: number; to: number } | { kind: 'drop'; at: number } | { kind: 'duplicate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), from: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
);

function applyMutation(messages: Json[], change: Mutation): Json[] {
  if (messages.length === 0) return messages;
  const out = [...messages];
  if (change.kind === 'move') {
    const [moved] = out.splice(change.from % out.length, 1);
    out.splice(change.to % (out.length + 1), 0, moved!);
  } else if (change.kind === 'drop') {
    out.splice(change.at % out.length, 1);
  } else {
    out.splice(change.at % out.length, 0, structuredClone(out[change.at % out.length]!));
  }
  return out;
}

export interface TranscriptArbitraryOptions {
  /** Most episodes in one transcript (default 5). */
  maxEpisodes?: number;
}

/** A whole transcript: episodes, then a few moves, drops and duplications, then timestamps. */
export function transcriptArbitrary(options: TranscriptArbitraryOptions = {}): fc.Arbitrary<Message[]> {
  return fc
    .record({
      summary: fc.option(fc.constant<Json>({ role: 'compactionSummary', summary: 'earlier work', tokensBefore: 100 }), { nil: undefined, freq: 10 }),
      episodes: fc.array(episode, { maxLength: options.maxEpisodes ?? 5 }),
      mutations: fc.array(mutation, { maxLength: 2 }),
      unknown: fc.option(fc.constantFrom<Json>({ role: 'custom', content: 'c' }, { content: 'role-less' }), { nil: undefined, freq: 12 }),
      untimed: fc.option(fc.nat(), { nil: undefined, freq: 6 }),
    })
    .map(({ summary, episodes, mutations, unknown, untimed }) => {
      let messages = episodes.flat().map((message) => structuredClone(message));
      for (const change of mutations) messages = applyMutation(messages, change);
      if (unknown !== undefined) messages.splice(messages.length >> 1, 0, structuredClone(unknown));
      if (summary !== undefined) messages.unshift(structuredClone(summary));
      messages.forEach((message, index) => {
        message.timestamp = index + 1;
      });
      // The summary's time falls in the middle of the history, so earlier assistants are "stale".
      if (summary !== undefined) messages[0]!.timestamp = (messages.length >> 1) + 0.5;
      if (untimed !== undefined && messages.length > 0) delete messages[untimed % messages.length]!.timestamp;
      return messages as Message[];
    });
}
