/** The pi extension passes the request options of issue 29 through: no active tools → tools: false. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import transcriptHygiene, { MAX_TOOL_RESULT_BYTES_ENV, type PiContextEvent, type PiContextEventResult, type PiExtensionContext } from '../../lib/pi/extension.ts';

const model = { id: 'claude-sonnet-4-5', provider: 'anthropic', api: 'anthropic-messages', reasoning: false };

async function contextThrough(messages: unknown[], activeTools: string[]): Promise<PiContextEventResult | undefined> {
  let handler: ((event: PiContextEvent, ctx: PiExtensionContext) => unknown) | undefined;
  transcriptHygiene({ on: (_event, h) => void (handler = h), getThinkingLevel: () => 'off', getActiveTools: () => activeTools });
  const ctx: PiExtensionContext = { hasUI: false, model, ui: { notify: () => {}, setStatus: () => {} } };
  return (await handler!({ type: 'context', messages }, ctx)) as PiContextEventResult | undefined;
}

const history = (): unknown[] => [
  { role: 'user', content: 'read a.md', timestamp: 1 },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.md' } }], stopReason: 'toolUse', timestamp: 2 },
  { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'alpha' }], timestamp: 3 },
  { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop', timestamp: 4 },
];

test('with tools active the tool blocks stay; with none they become text', async () => {
  assert.equal(await contextThrough(history(), ['read']), undefined);
  const result = await contextThrough(history(), []);
  assert.deepEqual((result?.messages?.[2] as { role: string; content: unknown }).content, [{ type: 'text', text: '[result of read: alpha]' }]);
  assert.equal(JSON.stringify(result?.messages).includes('"toolCall"'), false);
});

test('TRANSCRIPT_HYGIENE_MAX_TOOL_RESULT_BYTES cuts tool results (off when unset)', async () => {
  const big = history().map((m) => ((m as { role: string }).role === 'toolResult' ? { ...(m as object), content: [{ type: 'text', text: 'z'.repeat(10_000) }] } : m));
  assert.equal(await contextThrough(big, ['read']), undefined);
  process.env[MAX_TOOL_RESULT_BYTES_ENV] = '1000';
  try {
    const result = await contextThrough(big, ['read']);
    const text = ((result?.messages?.[2] as { content: Array<{ text: string }> }).content[0]!).text;
    assert.ok(Buffer.byteLength(text) <= 1000);
    assert.match(text, /bytes of tool output removed/);
  } finally {
    delete process.env[MAX_TOOL_RESULT_BYTES_ENV];
  }
});
