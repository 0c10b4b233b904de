/**
 * Broken pi sessions for the OpenAI emulators (Responses and chat completions): each resumes on a
 * model behind a custom provider pi does not know (PROVIDER), and each still reaches the API in a
 * shape it rejects through pi 1.6.0 and 0.73.1 (pi's own conversion repairs calls without results
 * and, only for its built-in `openai` provider, chat completions ids over 40 characters).
 */
import { OPENING_TEXTS, SessionBuilder, call, opening, type SessionCase } from './sessions.ts';

export interface OpenAISessionCase extends SessionCase {
  /** The custom provider's api, and the model it serves. */
  readonly api: 'openai-responses' | 'openai-completions';
  readonly modelId: string;
}

const RESPONSES = { api: 'openai-responses', provider: 'emulator', model: 'gpt-5.1' };
const CHAT = { api: 'openai-completions', provider: 'emulator', model: 'gpt-4.1' };

/** The stream failed after the call was written; a repair tool then wrote a synthetic result (pi skips the turn, not its result). */
function erroredCall(id: string, meta: Record<string, string>): { lines: string[]; mustKeep: string[] } {
  const session = new SessionBuilder(meta.api === 'openai-responses' ? 'c1111111-1111-4111-8111-111111111111' : 'd1111111-1111-4111-8111-111111111111');
  opening(session);
  session.user('Open the parser.');
  session.assistant([{ type: 'text', text: 'Opening' }, call(id, 'cat lib/parser.ts')], { ...meta, stopReason: 'error', errorMessage: 'server_error' });
  session.result(id, '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.', { isError: true });
  session.user('Try that again please.');
  return { lines: session.lines(), mustKeep: [...OPENING_TEXTS, 'Open the parser.', 'Try that again please.'] };
}

function compactionCut(): SessionCase {
  const session = new SessionBuilder('c2222222-2222-4222-8222-222222222222');
  session.user('Refactor the parser.');
  session.assistant([{ type: 'text', text: 'Reading it first.' }, call('call_cut|fc_cut', 'cat lib/parser.ts')], RESPONSES);
  const kept = session.result('call_cut|fc_cut', 'export function parse(source) { return 1; }');
  session.assistant([{ type: 'text', text: 'Now the tests.' }, call('call_after|fc_after', 'npm test')], RESPONSES);
  session.result('call_after|fc_after', 'PASS test/parser.test.ts');
  session.entry({ type: 'compaction', summary: 'The user asked for a parser refactor; the parser was read.', firstKeptEntryId: kept, tokensBefore: 50000 });
  session.user('Good, now update the changelog.');
  return {
    name: 'compaction that cut a call from its result',
    reported: 'after auto-compaction the kept history starts with a function_call_output whose call was summarized',
    rejectedBy: 'openai-responses/orphan-output',
    lines: session.lines(),
    mustKeep: ['The user asked for a parser refactor; the parser was read.', 'PASS test/parser.test.ts', 'Good, now update the changelog.'],
    keepIds: [],
  };
}

function longCallIds(): SessionCase {
  const session = new SessionBuilder('d2222222-2222-4222-8222-222222222222');
  // A self-hosted model (vLLM) numbers its calls `chatcmpl-tool-<32 hex>`: 46 characters.
  const vllm = { api: 'openai-completions', provider: 'local-vllm', model: 'qwen3-coder-30b' };
  const long = `chatcmpl-tool-${'0a1b2c3d'.repeat(4)}`;
  opening(session);
  session.user('Check the config.');
  session.assistant([call(long, 'cat tsconfig.json')], vllm);
  session.result(long, '{ "strict": true }');
  session.user('Now switch to GPT and summarize it.');
  return {
    name: 'a self-hosted model\'s 46-character call ids, replayed to GPT through a proxy',
    reported: "after /model to GPT behind a company proxy: \"Invalid 'messages[N].tool_calls[0].id': string too long. Expected a string with maximum length 40\"",
    rejectedBy: 'chat-completions/tool-call-id-length',
    lines: session.lines(),
    mustKeep: [...OPENING_TEXTS, 'Check the config.', '{ "strict": true }', 'Now switch to GPT and summarize it.'],
    keepIds: [],
  };
}

export const OPENAI_SESSION_CASES: readonly OpenAISessionCase[] = [
  {
    ...erroredCall('call_err|fc_err', RESPONSES),
    name: 'Responses: errored call followed by a synthetic result',
    reported: 'pi skips the errored turn but keeps its result: "No tool call found for function call output with call_id call_err."',
    rejectedBy: 'openai-responses/orphan-output',
    keepIds: [],
    api: 'openai-responses',
    modelId: RESPONSES.model,
  },
  { ...compactionCut(), name: 'Responses: compaction that cut a call from its result', api: 'openai-responses', modelId: RESPONSES.model },
  {
    ...erroredCall('call_err', CHAT),
    name: 'chat completions: errored call followed by a synthetic result',
    reported: "pi skips the errored turn but keeps its result: \"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'\"",
    rejectedBy: 'chat-completions/tool-message-position',
    keepIds: [],
    api: 'openai-completions',
    modelId: CHAT.model,
  },
  { ...longCallIds(), name: 'chat completions: call ids over 40 characters', api: 'openai-completions', modelId: CHAT.model },
];
