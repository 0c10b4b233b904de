/**
 * Property tests of redaction on arbitrary transcripts (test/properties/arbitraries.ts) with
 * fakes of the corpus put into their text, thinking, tool-call arguments and tool results:
 * 1. the rule never changes an id, a name, a role, a block type, or the signature of a block
 *    whose text it left alone;
 * 2. on each representative route the pipeline's output with redaction breaks no provider rule
 *    (so pairing holds) and holds none of the fakes;
 * 3. redaction is idempotent: the rule finds nothing more in its own output.
 *
 * Runs: REDACT_PROPERTY_RUNS per route (default 150), seed as the pipeline properties' (PROPERTY_SEED).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { transcriptArbitrary } from '../properties/arbitraries.ts';
import { POLICIES, isDocumentedRejection, providerViolations, runPipeline } from '../properties/harness.ts';
import { redactSecrets } from '../../transforms/redact-secrets.ts';
import { createSecretScanner } from '../../lib/secrets/scanner.ts';
import type { Message } from '../../lib/types.ts';
import { SECRETS } from './corpus.ts';

const RUNS = Number(process.env.REDACT_PROPERTY_RUNS ?? 150);
const SEED = process.env.PROPERTY_SEED === undefined || process.env.PROPERTY_SEED === '' ? 20270101 : Number(process.env.PROPERTY_SEED);
const scanner = createSecretScanner();

/** Keys whose values redaction must never change. */
const FIXED_KEYS = new Set(['id', 'toolCallId', 'toolUseId', 'tool_use_id', 'call_id', 'callId', 'name', 'toolName', 'role', 'type', 'stopReason', 'timestamp', 'data', 'mimeType']);
const SIGNATURE_KEYS = new Set(['thinkingSignature', 'signature', 'thought_signature', 'thoughtSignature', 'textSignature']);

/** `path=value` of every fixed key, and of every signature of a block whose text is `unchangedText`. */
function fixedFacts(value: unknown, path = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item, i) => fixedFacts(item, `${path}[${i}]`, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (FIXED_KEYS.has(key) && (typeof item !== 'object' || item === null)) out.push(`${path}.${key}=${JSON.stringify(item)}`);
      fixedFacts(item, `${path}.${key}`, out);
    }
  }
  return out;
}

function signaturesOfUnchanged(before: Message, after: Message): Array<[unknown, unknown]> {
  const pairs: Array<[unknown, unknown]> = [];
  if (!Array.isArray(before.content) || !Array.isArray(after.content)) return pairs;
  before.content.forEach((block: unknown, i: number) => {
    const was = block as Record<string, unknown>;
    const now = (after.content as unknown[])[i] as Record<string, unknown>;
    if (typeof was !== 'object' || was === null || was.thinking !== now?.thinking) return;
    for (const key of SIGNATURE_KEYS) pairs.push([was[key], now?.[key]]);
  });
  return pairs;
}

/** The string slots a secret can be put in: text, thinking, arguments, tool results. */
function slots(messages: Message[]): Array<{ holder: Record<string, unknown>; key: string }> {
  const found: Array<{ holder: Record<string, unknown>; key: string }> = [];
  const deep = (holder: unknown): void => {
    if (typeof holder !== 'object' || holder === null) return;
    for (const [key, value] of Object.entries(holder)) {
      if (typeof value === 'string') found.push({ holder: holder as Record<string, unknown>, key });
      else deep(value);
    }
  };
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    if (typeof message.content === 'string') found.push({ holder: message, key: 'content' });
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as unknown[]) {
      if (typeof block !== 'object' || block === null) continue;
      const b = block as Record<string, unknown>;
      if (typeof b.text === 'string') found.push({ holder: b, key: 'text' });
      if (typeof b.thinking === 'string') found.push({ holder: b, key: 'thinking' });
      if (typeof b.arguments === 'object') deep(b.arguments);
    }
  }
  return found;
}

const leakyTranscript = fc
  .tuple(transcriptArbitrary({ maxEpisodes: 4 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: SECRETS.length - 1 })), { minLength: 1, maxLength: 4 }))
  .map(([messages, leaks]) => {
    const places = slots(messages);
    const put: string[] = [];
    if (places.length > 0) {
      for (const [at, which] of leaks) {
        const { holder, key } = places[at % places.length]!;
        holder[key] = `${holder[key] as string} ${SECRETS[which]!.text}`;
        put.push(SECRETS[which]!.secret);
      }
    }
    return { messages, put };
  });

describe('redaction properties', () => {
  test('the rule keeps ids, names, roles, types and the signatures of untouched blocks; it is idempotent', () => {
    fc.assert(
      fc.property(leakyTranscript, ({ messages }) => {
        for (const message of messages) {
          if (typeof message !== 'object' || message === null) continue;
          const once = redactSecrets(message, scanner);
          assert.deepEqual(fixedFacts(once), fixedFacts(message));
          for (const [was, now] of signaturesOfUnchanged(message, once)) assert.equal(now, was);
          assert.equal(redactSecrets(once, scanner), once, 'a second pass found more');
        }
      }),
      { numRuns: RUNS * 4, seed: SEED },
    );
  });

  for (const policy of POLICIES) {
    test(`${policy.name}: the output breaks no provider rule and holds no fake; redacting it again changes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(leakyTranscript, async ({ messages, put }) => {
          let out: Message[];
          try {
            out = await runPipeline(structuredClone(messages), { ...policy.route, redact: { secrets: true } } as typeof policy.route);
          } catch (error) {
            if (isDocumentedRejection(error, policy)) return;
            throw error;
          }
          assert.deepEqual(providerViolations(policy, out), []);
          const written = JSON.stringify(out);
          for (const secret of put) assert.ok(!written.includes(secret), `a fake survived on ${policy.name}`);
          for (const message of out) assert.equal(redactSecrets(message, scanner), message);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }
});
