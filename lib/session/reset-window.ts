/**
 * What a `reset` keeps of the path before it (database rules, OpenClaw 2026.9's
 * `selectResetKeptEntries`): of the entries from its firstKeptEntryId up to it, the user and
 * assistant messages, and the tool results paired with a call among them (tool-pairing.ts);
 * nothing else (custom messages, branch summaries, other roles). `excludeFromContext` does not
 * drop these.
 */
import { pairedToolResults, pairingFacts } from './tool-pairing.ts';

/** `window`: the window's `message` entries in path order; `messageOf` reads an entry's message. Returns the kept ones, in order. */
export function resetKeptEntries(window: Int32Array, messageOf: (entry: number) => unknown): Int32Array {
  const facts = Array.from(window, (entry) => pairingFacts(messageOf(entry)));
  const paired = pairedToolResults(facts);
  const kept = new Int32Array(window.length);
  let count = 0;
  for (let i = 0; i < window.length; i++) {
    const role = facts[i]!.role;
    if (role === 'user' || role === 'assistant' || (role === 'toolResult' && paired.has(i))) kept[count++] = window[i]!;
  }
  return kept.subarray(0, count);
}
