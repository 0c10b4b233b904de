/**
 * pi session files (format v3: a header, then entries chained by id/parentId) built from failures
 * users reported, for the end-to-end tests. Each case is a session pi 0.73 still sends in a shape
 * Anthropic rejects (pi's own conversion repairs a call without a result, blank text and a single
 * foreign id, so those are not here), plus the texts that must survive the repair: the user's
 * words and the real tool outputs.
 *
 * Every session also carries pi's own message kinds (a bash execution, an extension's custom
 * message), which the hygiene must pass through untouched.
 */

/**
 * The custom provider the tests configure in pi (models.json): a name neither pi nor the policy
 * table knows, as a company proxy's would be, so the rules must come from the request (the api
 * and the Claude model id), and the model the sessions ran on.
 */
export const PROVIDER = 'emulator';
export const MODEL_ID = 'claude-sonnet-4-5';
const API = 'anthropic-messages';

type Json = Record<string, unknown>;

export interface SessionCase {
  readonly name: string;
  /** What users saw, and which rule the emulator reports without the extension. */
  readonly reported: string;
  /** The invariant the unrepaired request breaks (the emulator's first violation). */
  readonly rejectedBy: string;
  /** The session file's lines. */
  readonly lines: readonly string[];
  /** Texts of the session (user words, real tool outputs, pi's own messages) that must reach the provider. */
  readonly mustKeep: readonly string[];
  /** Valid Anthropic tool-call ids of the session that must reach the provider as they are (Anthropic's rules keep them). */
  readonly keepIds: readonly string[];
}

const BASE_TIME = Date.parse('2026-11-01T10:00:00.000Z');

export class SessionBuilder {
  private readonly entries: Json[] = [];
  private parent: string | null = null;
  private clock = 0;

  constructor(private readonly id: string) {}

  private nextId(): string {
    return (0xa0000000 + this.entries.length + 1).toString(16);
  }

  private tick(): { iso: string; ms: number } {
    this.clock += 1000;
    return { iso: new Date(BASE_TIME + this.clock).toISOString(), ms: BASE_TIME + this.clock };
  }

  /** Appends an entry; returns its id. */
  entry(fields: Json): string {
    const id = this.nextId();
    const { iso } = this.tick();
    this.entries.push({ ...fields, id, parentId: this.parent, timestamp: iso });
    this.parent = id;
    return id;
  }

  message(message: Json): string {
    return this.entry({ type: 'message', message: { ...message, timestamp: BASE_TIME + this.clock + 1000 } });
  }

  user(text: string): string {
    return this.message({ role: 'user', content: [{ type: 'text', text }] });
  }

  assistant(content: Json[], extra: Json = {}): string {
    return this.message({
      role: 'assistant',
      content,
      api: API,
      provider: PROVIDER,
      model: MODEL_ID,
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
      ...extra,
    });
  }

  result(toolCallId: string, text: string, extra: Json = {}): string {
    return this.message({ role: 'toolResult', toolCallId, toolName: 'bash', content: [{ type: 'text', text }], isError: false, ...extra });
  }

  bash(command: string, output: string): string {
    return this.message({ role: 'bashExecution', command, output, exitCode: 0, cancelled: false, truncated: false });
  }

  custom(text: string): string {
    return this.entry({ type: 'custom_message', customType: 'notes', content: text, display: true });
  }

  lines(): string[] {
    const header = { type: 'session', version: 3, id: this.id, timestamp: new Date(BASE_TIME).toISOString(), cwd: '/tmp' };
    return [header, ...this.entries].map((entry) => JSON.stringify(entry));
  }
}

export const call = (id: string, command: string): Json => ({ type: 'toolCall', id, name: 'bash', arguments: { command } });

/** A healthy exchange every case starts with: its user text and tool output must survive. */
export function opening(session: SessionBuilder): void {
  session.user('Find the failing test in this repo.');
  session.assistant([{ type: 'text', text: 'Running the tests.' }, call('toolu_01Open', 'npm test')]);
  session.result('toolu_01Open', 'FAIL test/parser.test.ts: expected 3 got 4');
  session.bash('git status --short', ' M lib/parser.ts');
  session.custom('Reminder from the notes extension: the parser owns line numbers.');
}

const OPENING_IDS: readonly string[] = ['toolu_01Open'];

export const OPENING_TEXTS = [
  'Find the failing test in this repo.',
  'FAIL test/parser.test.ts: expected 3 got 4',
  ' M lib/parser.ts',
  'Reminder from the notes extension: the parser owns line numbers.',
];

function erroredCallWithSyntheticResult(): SessionCase {
  const session = new SessionBuilder('a1111111-1111-4111-8111-111111111111');
  opening(session);
  session.user('Open the parser.');
  // The provider stream failed after the call was written; a repair tool then wrote a synthetic result for it.
  session.assistant([{ type: 'text', text: 'Opening' }, call('toolu_01Err', 'cat lib/parser.ts')], { stopReason: 'error', errorMessage: 'Overloaded' });
  session.result('toolu_01Err', '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.', {
    isError: true,
    details: { openclawSyntheticMissingToolResult: true },
  });
  session.user('Try that again please.');
  return {
    name: 'errored assistant call followed by a synthetic result',
    reported: 'pi skips the errored turn but keeps its result: "unexpected `tool_use_id` found in `tool_result` blocks"',
    rejectedBy: 'anthropic/unexpected-tool-result',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Open the parser.', 'Try that again please.'],
    keepIds: OPENING_IDS,
  };
}

function abortedCallWithSyntheticResult(): SessionCase {
  const session = new SessionBuilder('a2222222-2222-4222-8222-222222222222');
  opening(session);
  session.user('Run the linter.');
  session.assistant([call('toolu_01Abort', 'npm run lint')], { stopReason: 'aborted' });
  session.result('toolu_01Abort', 'Operation aborted', { isError: true });
  session.user('Never mind, fix the parser instead.');
  return {
    name: 'aborted assistant call followed by a synthetic result',
    reported: 'Escape during a tool call, then a new prompt: the aborted turn is skipped, its result is not',
    rejectedBy: 'anthropic/unexpected-tool-result',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Run the linter.', 'Never mind, fix the parser instead.'],
    keepIds: OPENING_IDS,
  };
}

function steeringBetweenCallAndResult(): SessionCase {
  const session = new SessionBuilder('a3333333-3333-4333-8333-333333333333');
  opening(session);
  session.assistant([{ type: 'text', text: 'Reading the parser.' }, call('toolu_01Steer', 'cat lib/parser.ts')]);
  // A steering message typed while the tool ran was written before the tool's result.
  session.user('Also look at the lexer while you are there.');
  session.result('toolu_01Steer', 'export function parse(source) { return lex(source).length + 1; }');
  return {
    name: 'user steering message between a call and its result',
    reported: 'pi answers the call with "No result provided" before the steering message, and the real result arrives orphaned',
    rejectedBy: 'anthropic/unexpected-tool-result',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Also look at the lexer while you are there.', 'export function parse(source) { return lex(source).length + 1; }'],
    keepIds: [...OPENING_IDS, 'toolu_01Steer'],
  };
}

function compactionCutCallFromResult(): SessionCase {
  const session = new SessionBuilder('a4444444-4444-4444-8444-444444444444');
  session.user('Refactor the parser.');
  session.assistant([{ type: 'text', text: 'Reading it first.' }, call('toolu_01Cut', 'cat lib/parser.ts')]);
  const kept = session.result('toolu_01Cut', 'export function parse(source) { return 1; }');
  session.assistant([{ type: 'text', text: 'Now the tests.' }, call('toolu_01After', 'npm test')]);
  session.result('toolu_01After', 'PASS test/parser.test.ts');
  session.bash('git diff --stat', ' lib/parser.ts | 2 +-');
  session.custom('Reminder from the notes extension: keep the public API.');
  // The compaction kept everything from the result on: its call went into the summary.
  session.entry({ type: 'compaction', summary: 'The user asked for a parser refactor; the parser was read.', firstKeptEntryId: kept, tokensBefore: 50000 });
  session.user('Good, now update the changelog.');
  return {
    name: 'compaction that cut a call from its result',
    reported: 'after auto-compaction the kept history starts with a tool result whose call was summarized',
    rejectedBy: 'anthropic/unexpected-tool-result',
    lines: session.lines(),
    mustKeep: [
      'The user asked for a parser refactor; the parser was read.',
      'PASS test/parser.test.ts',
      ' lib/parser.ts | 2 +-',
      'Reminder from the notes extension: keep the public API.',
      'Good, now update the changelog.',
    ],
    keepIds: ['toolu_01After'],
  };
}

function kimiIdsRepeatedAcrossTurns(): SessionCase {
  const session = new SessionBuilder('a5555555-5555-4555-8555-555555555555');
  const kimi = { api: 'openai-completions', provider: 'moonshotai', model: 'kimi-k2-0905-preview' };
  opening(session);
  session.user('Check the two config files.');
  // Kimi numbers its calls per turn (`functions.<name>:<n>`), so ids repeat across turns.
  session.assistant([call('functions.bash:0', 'cat tsconfig.json')], kimi);
  session.result('functions.bash:0', '{ "strict": true }');
  session.assistant([call('functions.bash:0', 'cat package.json')], kimi);
  session.result('functions.bash:0', '{ "name": "demo" }');
  session.user('Now switch to Claude and summarize them.');
  return {
    name: 'Kimi-style call ids repeated across turns, replayed to Claude',
    reported: 'after /model from Kimi to Claude: "`tool_use` ids must be unique"',
    rejectedBy: 'anthropic/duplicate-tool-use-id',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Check the two config files.', '{ "strict": true }', '{ "name": "demo" }', 'Now switch to Claude and summarize them.'],
    keepIds: OPENING_IDS,
  };
}

function emptyToolOutputs(): SessionCase {
  const session = new SessionBuilder('a6666666-6666-4666-8666-666666666666');
  opening(session);
  session.user('Create the build folder and touch the marker.');
  session.assistant([call('toolu_01Empty', 'mkdir -p build'), call('toolu_01Blank', 'touch build/.marker && echo')]);
  // One tool returned no content at all, the other printed only a newline: pi sends both as blank text.
  session.message({ role: 'toolResult', toolCallId: 'toolu_01Empty', toolName: 'bash', content: [], isError: false });
  session.result('toolu_01Blank', '\n');
  session.user('Thanks. Now run the build.');
  return {
    name: 'empty and whitespace-only tool outputs',
    reported: 'a tool that returns nothing, or only a newline: "text content blocks must contain non-whitespace text"',
    rejectedBy: 'anthropic/blank-text',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Create the build folder and touch the marker.', 'Thanks. Now run the build.'],
    keepIds: [...OPENING_IDS, 'toolu_01Empty', 'toolu_01Blank'],
  };
}

export const SESSION_CASES: readonly SessionCase[] = [
  erroredCallWithSyntheticResult(),
  abortedCallWithSyntheticResult(),
  steeringBetweenCallAndResult(),
  compactionCutCallFromResult(),
  kimiIdsRepeatedAcrossTurns(),
  emptyToolOutputs(),
];
