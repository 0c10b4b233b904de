/**
 * sign-gemini3-current-turn: our provider rule, on Gemini 3 (and later) models on the apis that
 * send Gemini contents (policy `signGemini3CurrentTurn`: google, google-vertex,
 * google-gemini-cli, Antigravity's Gemini).
 *
 * Why: Gemini 3 validates thought signatures in the current turn, everything since the last user
 * text; the first function call of each step (each model response) must carry one, or the request
 * fails with "Function call is missing a thought_signature in functionCall parts" (a call made by
 * Claude or GPT before a switch, a call whose signature compaction lost; one signed by another
 * provider or key gets "Invalid / Corrupted thought signature"). Older turns are not validated.
 *
 * What reaches the wire: pi-ai's Gemini builder (0.73.1, google-shared `convertMessages`) sends a
 * call's `thoughtSignature` only when the message's `provider` and `model` are the request's and
 * the signature is base64; anything else goes out unsigned, Google's documented sentinel
 * `skip_thought_signature_validator` included. So with the default, `unsignedGeminiCalls: 'text'`,
 * a step of the current turn whose first call would go out unsigned has its calls turned into
 * `[called NAME ARGS]` text, and the results that answer it into one user message of
 * `[result of NAME: ...]` text (as `--no-tools` does): the work stays readable, no unsigned call
 * is left. Steps whose first call is signed stay calls; so does every earlier turn. With
 * `unsignedGeminiCalls: 'sentinel'` (runners that build their own request) the step's first call
 * gets `thoughtSignature: "skip_thought_signature_validator"` instead.
 *
 * Memory: the current turn is not known until the input ends (a later user text starts a new
 * one), so the messages since the last user text are held; everything before is emitted as it
 * comes. A user message with text, or a harness message replayed as user text (compaction and
 * branch summaries), ends the held turn.
 *
 * Unit: buffered. Counters: `stepsAsText`, `callsAsText`, `resultsAsText`, `sentinels`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { isRecord, isReplayedHarnessMessage } from '../lib/types.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';
import { renderCallsAsText, resultsAsUserMessage } from './render-tools-as-text.ts';

/** Google's documented value for a call without a valid signature. */
export const SKIP_SIGNATURE_SENTINEL = 'skip_thought_signature_validator';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The request's model, as pi-ai compares it with a message's. */
export interface GeminiRoute {
  readonly provider: string;
  readonly modelId: string;
}

/** A user message with text, or harness context sent as user text: the start of a new turn. */
export function startsTurn(message: Message): boolean {
  if (message.role === 'user') {
    const content = message.content;
    if (typeof content === 'string') return content.trim() !== '';
    return Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '');
  }
  return isRecord(message) && isReplayedHarnessMessage(message);
}

/** Whether pi-ai would send the step's first call with a signature (same provider and model, base64). */
export function firstCallSigned(message: Message, route: GeminiRoute): boolean {
  if (!Array.isArray(message.content)) return true;
  const first = (message.content as unknown[]).find(isCallTypeBlock);
  if (first === undefined) return true;
  if (message.provider !== route.provider || message.model !== route.modelId) return false;
  const signature = first.thoughtSignature;
  return typeof signature === 'string' && signature.length % 4 === 0 && BASE64.test(signature);
}

export interface CurrentTurnCounts {
  stepsAsText: number;
  callsAsText: number;
  resultsAsText: number;
  sentinels: number;
}

/** The current turn (messages after the last user text) with its unsigned steps repaired. */
export function repairCurrentTurn(turn: readonly Message[], route: GeminiRoute, mode: 'text' | 'sentinel', counts: CurrentTurnCounts): Message[] {
  const out: Message[] = [];
  let textifying = false;
  let run: Message[] = [];
  const flushRun = (): void => {
    if (run.length === 0) return;
    counts.resultsAsText += run.length;
    out.push(resultsAsUserMessage(run));
    run = [];
  };
  for (const message of turn) {
    if (message.role === 'toolResult' && textifying) {
      run.push(message);
      continue;
    }
    flushRun();
    textifying = false;
    const hasCalls = message.role === 'assistant' && Array.isArray(message.content) && (message.content as unknown[]).some(isCallTypeBlock);
    if (!hasCalls || firstCallSigned(message, route)) {
      out.push(message);
      continue;
    }
    if (mode === 'sentinel') {
      counts.sentinels++;
      let done = false;
      const content = (message.content as unknown[]).map((block) => {
        if (done || !isCallTypeBlock(block)) return block;
        done = true;
        return { ...block, thoughtSignature: SKIP_SIGNATURE_SENTINEL };
      });
      out.push({ ...message, content } as Message);
      continue;
    }
    const rendered = renderCallsAsText(message);
    counts.stepsAsText++;
    counts.callsAsText += rendered.calls;
    out.push(rendered.message);
    textifying = true;
  }
  flushRun();
  return out;
}

class CurrentTurnSigner implements RuleProcessor {
  private held: Message[] = [];

  constructor(
    private readonly route: GeminiRoute,
    private readonly mode: 'text' | 'sentinel',
    private readonly count: (counter: string, n?: number) => void,
  ) {}

  push(message: Message, emit: Emit): void {
    if (startsTurn(message)) {
      // What was held is an older turn now: as it came.
      for (const held of this.held) emit(held);
      this.held = [];
      emit(message);
      return;
    }
    this.held.push(message);
  }

  end(emit: Emit): void {
    const counts: CurrentTurnCounts = { stepsAsText: 0, callsAsText: 0, resultsAsText: 0, sentinels: 0 };
    for (const message of repairCurrentTurn(this.held, this.route, this.mode, counts)) emit(message);
    this.held = [];
    for (const [counter, n] of Object.entries(counts)) if (n > 0) this.count(counter, n);
  }
}

export function signGemini3CurrentTurnEnabled(policy: TranscriptPolicy): boolean {
  return policy.signGemini3CurrentTurn;
}

function routeOf(options: ResolvedHygieneOptions): GeminiRoute {
  return { provider: options.provider, modelId: options.modelId };
}

export const signGemini3CurrentTurnRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'sign-gemini3-current-turn',
    summary: 'Gemini 3 routes (our provider rule): a step of the current turn whose first function call would go out without its thought signature has its calls and results turned into text (or, with unsignedGeminiCalls: sentinel, gets skip_thought_signature_validator); signed steps and older turns are unchanged.',
    counters: ['stepsAsText', 'callsAsText', 'resultsAsText', 'sentinels'],
  },
  create: (ctx: RuleContext) => new CurrentTurnSigner(routeOf(ctx.options), ctx.options.unsignedGeminiCalls, ctx.count),
};
