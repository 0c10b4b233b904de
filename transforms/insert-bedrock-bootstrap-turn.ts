/**
 * insert-bedrock-bootstrap-turn: our provider rule, not the reference's (spec README "Provider
 * rules come before the reference"). On `bedrock-converse-stream` routes, a history whose first
 * surviving message is an assistant turn gets the same `(session bootstrap)` user turn in front as
 * the Google rule inserts (turns-images-policy.md §3.5), at the same place (step 16, before the
 * turn validators).
 *
 * What the reference does instead: Bedrock routes resolve through the Anthropic fallback, which
 * has no `applyGoogleTurnOrdering`, so its replay copy can start with an assistant turn (oracle:
 * `[assistant, user]` comes back unchanged on amazon-bedrock / bedrock-converse-stream).
 *
 * Error prevented: Bedrock Converse rejects such a request ("A conversation must start with a user
 * message. Try again with a conversation that starts with a user message.").
 *
 * Unit: message, with one bit of state; nothing is held. Counter: `inserted`.
 */
import type { BufferedRule } from '../lib/rule.ts';
import { BootstrapTurnInserter } from './insert-google-bootstrap-turn.ts';

export const insertBedrockBootstrapTurnRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'insert-bedrock-bootstrap-turn',
    summary: 'Bedrock Converse only (our provider rule): puts a "(session bootstrap)" user turn in front of a history that starts with an assistant turn.',
    counters: ['inserted'],
  },
  create(ctx) {
    return new BootstrapTurnInserter(ctx);
  },
};
