/**
 * The extension's incremental path (lib/incremental/) as pi calls it: a growing context, each call
 * a fresh deep copy, gives what the handler without it gives (messages and status line), and the
 * calls that extend the last context reuse its work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerContextHandler, type PiContextEvent, type PiContextEventResult, type PiExtensionContext } from '../../lib/pi/extension.ts';
import { IncrementalSanitizer } from '../../lib/incremental/incremental-sanitizer.ts';

const model = { id: 'claude-sonnet-4-5', provider: 'proxy', api: 'anthropic-messages', baseUrl: 'https://llm.example.com', reasoning: true };

type Handler = (event: PiContextEvent, ctx: PiExtensionContext) => unknown;

function handlerWith(incremental: IncrementalSanitizer | undefined, tools: { active: string[] }): { handler: Handler; statuses: string[] } {
  let handler: Handler | undefined;
  registerContextHandler({ on: (_event, registered) => void (handler = registered), getThinkingLevel: () => 'high', getActiveTools: () => tools.active }, incremental);
  const statuses: string[] = [];
  return { handler: handler!, statuses };
}

/** A turn: a user message, a call (its id fails Anthropic's pattern now and then), maybe a result. */
function turn(n: number): unknown[] {
  const id = n % 3 === 0 ? `call.${n}` : `toolu_${n}`;
  const out: unknown[] = [
    { role: 'user', content: [{ type: 'text', text: `step ${n}` }], timestamp: 10 * n },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', thinkingSignature: 'c2ln' }, { type: 'toolCall', id, name: 'read', arguments: { path: `${n}.md` } }], stopReason: 'toolUse', timestamp: 10 * n + 1 },
  ];
  // Every fourth call goes unanswered: a synthetic result goes in, and a later turn must not undo it.
  if (n % 4 !== 1) out.push({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: `body ${n}` }], isError: false, timestamp: 10 * n + 2 });
  return out;
}

/**
 * Synthetic results are stamped with the clock (Date.now in pi): two runs a millisecond apart
 * differ there, and the incremental path keeps the time of the call that first made one. pi does
 * not send a result's timestamp.
 */
function withClockTimes(result: PiContextEventResult | undefined): unknown {
  return JSON.parse(JSON.stringify(result ?? null, (key, value: unknown) => (key === 'timestamp' && typeof value === 'number' && value > 1e12 ? 'clock' : value)));
}

test('a growing context gives the same messages and status through the incremental path, and extends calls reuse the last one', async () => {
  const tools = { active: ['read'] };
  const incremental = new IncrementalSanitizer();
  const withReuse = handlerWith(incremental, tools);
  const plain = handlerWith(undefined, tools);
  const history: unknown[] = [];
  for (let n = 1; n <= 12; n++) {
    history.push(...turn(n));
    if (n === 8) tools.active = [];
    if (n === 10) tools.active = ['read'];
    const run = async (handler: Handler, statuses: string[]): Promise<PiContextEventResult | undefined> =>
      (await handler({ type: 'context', messages: structuredClone(history) }, { hasUI: true, model, ui: { notify: () => {}, setStatus: (_key, text) => void (text !== undefined && statuses.push(text)) } })) as PiContextEventResult | undefined;
    const expected = await run(plain.handler, plain.statuses);
    const actual = await run(withReuse.handler, withReuse.statuses);
    assert.deepEqual(withClockTimes(actual), withClockTimes(expected), `call ${n}`);
    assert.deepEqual(withReuse.statuses, plain.statuses, `status after call ${n}`);
  }
  // The first call and the two tools switches ran in full; every other call reused the last one.
  assert.deepEqual(incremental.counts, { full: 3, incremental: 9 });
});
