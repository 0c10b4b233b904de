import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RULE_NAMES, STAGES, createHygieneStream, createRuleStream, ruleNamesFor, sanitizeSessionHistory, isHygieneError } from '../../lib/index.ts';
import type { HygieneStats, RuleName, SanitizeOptions } from '../../lib/index.ts';

const anthropic = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
const google = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' };

const transcript = [
  { role: 'user', content: [{ type: 'text', text: '   ' }] },
  { role: 'user', content: 'read the file' },
  { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'toolCall', id: 'call|1', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse' },
  { role: 'toolResult', toolCallId: 'call|1', toolName: 'read', content: [{ type: 'text', text: 'A' }], isError: false },
  { role: 'user', content: 'thanks' },
];

async function collect(streams: NodeJS.ReadWriteStream[], input: readonly unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  const sink = new Writable({ objectMode: true, write: (message, _encoding, callback) => (out.push(message), callback()) });
  await pipeline([Readable.from(structuredClone(input)), ...streams, sink]);
  return out;
}

test('ruleNamesFor lists the route rules in pipeline order, request-time steps by choice', () => {
  const names = ruleNamesFor(anthropic);
  assert.equal(names[0], 'drop-non-object-messages');
  assert.ok(names.indexOf('repair-tool-result-pairing') < names.indexOf('sanitize-tool-call-ids'));
  assert.ok(!names.includes('insert-google-bootstrap-turn'));
  assert.ok(ruleNamesFor(google).includes('insert-google-bootstrap-turn'));
  assert.ok(ruleNamesFor({ ...anthropic, thinking: true }).includes('strip-trailing-prefill'));
  assert.ok(!ruleNamesFor({ ...anthropic, thinking: true }, { requestTime: false }).includes('strip-trailing-prefill'));
});

test('every rule of a route piped as its own stream gives what the fused stream gives', async () => {
  for (const route of [anthropic, google]) {
    const separate = await collect(ruleNamesFor(route).map((name) => createRuleStream(name, route)), transcript);
    const fused = await collect([createHygieneStream(route)], transcript);
    assert.deepEqual(separate, fused);
    assert.deepEqual(fused, await sanitizeSessionHistory(structuredClone(transcript), route));
  }
});

test('one rule alone does only its own work, and reports its counters', async () => {
  let stats: HygieneStats | undefined;
  const out = await collect([createRuleStream('drop-blank-user-text', { ...anthropic, onStats: (s) => (stats = s) })], transcript);
  assert.equal(out.length, transcript.length - 1);
  assert.deepEqual(out[1], transcript[2], 'the blank assistant text is another rule\'s work');
  assert.deepEqual(stats?.rules['drop-blank-user-text'], { droppedTurns: 1 });
});

test('a rule that does not run for the route, or no such rule, is refused naming the route rules', () => {
  // A plain-JavaScript caller is not held to RuleName: the run-time check is what stops it.
  for (const name of ['insert-google-bootstrap-turn', 'no-such-rule'] as RuleName[]) {
    assert.throws(
      () => createRuleStream(name, anthropic),
      (error: unknown) => isHygieneError(error) && error.code === 'invalid_option' && error.message.includes('drop-blank-user-text'),
    );
  }
});

test('an unknown rule name is refused naming the closest rule', () => {
  assert.throws(
    () => createRuleStream('drop-blank-user-txt' as RuleName, anthropic),
    (error: unknown) => isHygieneError(error) && /no rule named "drop-blank-user-txt" \(did you mean 'drop-blank-user-text'\?\)/.test(error.message),
  );
});

test('the public entry points refuse a call without its route, which would run a fallback policy', async () => {
  const partial = { provider: 'anthropic' } as unknown as SanitizeOptions;
  await assert.rejects(sanitizeSessionHistory([], partial), (error: unknown) => isHygieneError(error) && error.code === 'invalid_option' && /sanitizeSessionHistory: missing modelApi, modelId/.test(error.message));
  assert.throws(() => createHygieneStream({} as SanitizeOptions), /createHygieneStream: missing provider, modelApi, modelId/);
  assert.throws(() => createRuleStream('drop-blank-user-text', {} as SanitizeOptions), /createRuleStream: missing provider, modelApi, modelId/);
});

test('RULE_NAMES lists every rule of the pipeline', () => {
  assert.deepEqual([...RULE_NAMES], STAGES.map((entry) => entry.rule.meta.name));
});
