/**
 * Gemini 3 thought signatures in the current turn (policy `signGemini3CurrentTurn`).
 *
 * Gemini 3 validates the current turn, everything after the last user text: the first function
 * call of each step (each model turn) must carry its thought signature. Read as pi-ai 0.73.1's
 * Gemini builder sends a call: with `thoughtSignature` only when the message's `provider` and
 * `model` are the request's and the signature is base64. Google's sentinel
 * `skip_thought_signature_validator` is accepted by Gemini and counted as signed here, for
 * runners that build their own request (pi-ai's builder does not send it).
 */
import type { InvariantRule } from './types.ts';
import { callsOf, type ReplayView } from './turns.ts';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SENTINEL = 'skip_thought_signature_validator';

function hasUserText(content: unknown): boolean {
  if (typeof content === 'string') return content.trim() !== '';
  return Array.isArray(content) && content.some((block) => typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string' && (block as { text: string }).text.trim() !== '');
}

/** Index of the first turn of the current turn: after the last user text (or harness context). */
function currentTurnStart(view: ReplayView): number {
  for (let t = view.turns.length - 1; t >= 0; t--) {
    const turn = view.turns[t]!;
    if (turn.kind === 'context' || (turn.kind === 'user' && hasUserText(turn.entries[0]!.message.content))) return t + 1;
  }
  return 0;
}

export const geminiUnsignedFunctionCall: InvariantRule = {
  id: 'gemini/unsigned-function-call',
  family: 'gemini',
  summary: 'Gemini 3: the first function call of each step of the current turn carries its thought signature (one pi-ai sends: same provider and model, base64).',
  source:
    'Gemini 3 400: "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly" (ai.google.dev/gemini-api/docs/thought-signatures: "the first function call part in each step of the current turn"; `skip_thought_signature_validator` for calls without one).',
  check: (view, context, out) => {
    if (!context.policy.signGemini3CurrentTurn) return;
    for (let t = currentTurnStart(view); t < view.turns.length; t++) {
      const turn = view.turns[t]!;
      if (turn.kind !== 'assistant') continue;
      const entry = turn.entries[0]!;
      const first = callsOf(entry.message)[0];
      if (first === undefined) continue;
      const content = entry.message.content as unknown[];
      const signature = (content[first.block] as { thoughtSignature?: unknown }).thoughtSignature;
      if (signature === SENTINEL) continue;
      const own = String(entry.message.provider ?? '').trim().toLowerCase() === context.provider && entry.message.model === context.modelId;
      const valid = typeof signature === 'string' && signature.length % 4 === 0 && BASE64.test(signature);
      if (own && valid) continue;
      const why = signature === undefined ? 'it has none' : !valid ? 'its signature is not base64' : 'it is another model\'s call (its signature is not sent)';
      out.push({
        rule: 'gemini/unsigned-function-call',
        family: 'gemini',
        index: entry.index,
        id: typeof first.id === 'string' ? first.id : '',
        block: first.block,
        message: `the first function call of a step of the current turn would be sent without a thought_signature: ${why}`,
      });
    }
  },
};
