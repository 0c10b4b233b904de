import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capToolResultText, capToolResultTextRule, cutMarker, cutTexts } from '../../transforms/cap-tool-result-text.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { ruleNamesFor } from '../../lib/pipeline.ts';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, image, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

test('a text over the limit keeps head and tail around a marker naming the bytes removed, within the limit', () => {
  const long = 'H'.repeat(500) + 'm'.repeat(5000) + 'T'.repeat(500);
  const cut = cutTexts([long], 400)!;
  const [out] = cut.texts;
  assert.ok(bytes(out!) <= 400, `${bytes(out!)} bytes`);
  assert.ok(out!.startsWith('HHHH'));
  assert.ok(out!.endsWith('TTTT'));
  assert.ok(out!.includes(cutMarker(cut.removed)));
  assert.equal(bytes(out!) - bytes(cutMarker(cut.removed)) + cut.removed, bytes(long));
  assert.equal(cutTexts([out!], 400), undefined, 'a second pass changes nothing');
});

test('texts that fit are left alone; cuts never split a character', () => {
  assert.equal(cutTexts(['short'], 200), undefined);
  const emoji = '😀'.repeat(300);
  const cut = cutTexts([emoji], 200)!;
  assert.doesNotMatch(cut.texts[0]!, /\uFFFD/);
  assert.ok(bytes(cut.texts[0]!) <= 200);
});

test('several text blocks: head from the first, tail from the last, middle blocks dropped, images kept', () => {
  const input = deepFreeze(toolResult('c1', [text('a'.repeat(300)), image('AAAA'), text('b'.repeat(300)), text('c'.repeat(300))], { toolName: 'read' }));
  const { message, removed } = capToolResultText(input, 300);
  const blocks = message.content as Array<{ type: string; text?: string }>;
  assert.deepEqual(blocks.map((b) => b.type), ['text', 'image', 'text']);
  assert.match(blocks[0]!.text!, /^a+\n\[\.\.\. \d+ bytes of tool output removed \.\.\.\]\n$/);
  assert.match(blocks[2]!.text!, /^c+$/);
  const kept = blocks.filter((b) => b.type === 'text').reduce((n, b) => n + bytes(b.text!), 0);
  assert.ok(kept <= 300);
  assert.equal(removed, 900 - (kept - bytes(cutMarker(removed))));
});

test('string content is cut too; other roles and small results are the same objects', () => {
  const big = deepFreeze(toolResult('c1', 'x'.repeat(1000)));
  assert.ok(bytes(capToolResultText(big, 200).message.content as string) <= 200);
  const others = deepFreeze([user('u'.repeat(1000)), assistant([thinking('t'.repeat(1000), 'sig'), text('a'.repeat(1000))]), toolResult('c2', [text('ok')])]);
  for (const message of others) assert.equal(capToolResultText(message, 200).message, message);
});

test('the option takes at least 128 bytes', () => {
  assert.throws(() => resolveHygieneOptions({ maxToolResultBytes: 10 }), /maxToolResultBytes/);
  assert.equal(resolveHygieneOptions({ maxToolResultBytes: 128.7 }).maxToolResultBytes, 128);
  assert.equal(resolveHygieneOptions({}).maxToolResultBytes, undefined);
});

const history = (): Message[] =>
  deepFreeze([user('run it'), assistant([toolCall('c1', 'bash', { cmd: 'make' })]), toolResult('c1', [text('L'.repeat(100_000))], { toolName: 'bash' }), assistant([text('ok')])]);

test('rule: counts results cut and bytes removed', () => {
  const { output, counts } = runRule(capToolResultTextRule, history(), { options: { maxToolResultBytes: 1000 } });
  assert.ok(bytes(((output[2]!.content as Array<{ text: string }>)[0]!).text) <= 1000);
  assert.equal(counts.resultsCut, 1);
  assert.ok(counts.bytesRemoved! > 99_000);
});

test('pipeline and check: off by default; on, the result fits and <family>/tool-result-size holds', async () => {
  const route = { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' };
  assert.equal(ruleNamesFor(route).includes('cap-tool-result-text'), false);
  const limited = { ...route, maxToolResultBytes: 4096 };
  assert.deepEqual(checkTranscript(history(), limited).map((v) => v.rule), ['chat-completions/tool-result-size']);
  const out = await hygieneOutput(history(), limited);
  assert.deepEqual(checkTranscript(out, limited), []);
  const body = await piPayload(piModel('openai', 'gpt-4o', { api: 'openai-completions' }), out);
  const tool = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')!;
  assert.ok(bytes(tool.content) <= 4096, `${bytes(tool.content)} bytes on the wire`);
  assert.match(tool.content, /bytes of tool output removed/);
});
