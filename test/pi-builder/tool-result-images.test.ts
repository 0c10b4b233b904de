/**
 * Issue 29, item 4: on OpenAI chat completions a tool message cannot carry images; pi-ai's
 * completions builder (0.73.1) moves a result's images into a user message after the tool
 * messages. No rule of ours may take them out first: this holds the project's output to that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';
import { texture } from '../helpers/images.ts';

type Wire = { role: string; content: unknown; tool_call_id?: string };

for (const [provider, id] of [['openai', 'gpt-4o'], ['github-copilot', 'gpt-4o'], ['openrouter', 'google/gemini-3-flash-preview']] as const) {
  test(`${provider}/${id}: images of tool results reach a user message after the tool messages`, async () => {
    const data = (await texture(64, 48).jpeg().toBuffer()).toString('base64');
    const history: Message[] = deepFreeze([
      user('take two screenshots'),
      assistant([toolCall('call_1', 'screenshot', {}), toolCall('call_2', 'screenshot', {})], { stopReason: 'toolUse' }),
      toolResult('call_1', [text('first'), { type: 'image', data, mimeType: 'image/jpeg' }], { toolName: 'screenshot' }),
      toolResult('call_2', [{ type: 'image', data, mimeType: 'image/jpeg' }], { toolName: 'screenshot' }),
    ]);
    const route = { provider, modelApi: 'openai-completions', modelId: id };
    const out = await hygieneOutput(history, route);
    const model = piModel(provider, id, { api: 'openai-completions' });
    assert.ok(model.input.includes('image'), 'a vision model');
    const messages = (await piPayload(model, out)).messages as Wire[];
    const tools = messages.filter((m) => m.role === 'tool');
    const calls = (messages.find((m) => m.role === 'assistant') as unknown as { tool_calls: Array<{ id: string }> }).tool_calls;
    assert.deepEqual(tools.map((m) => m.tool_call_id), calls.map((c) => c.id));
    assert.equal(tools.length, 2);
    for (const tool of tools) assert.equal(typeof tool.content, 'string', 'a tool message carries text only');
    const last = messages[messages.length - 1]!;
    assert.equal(last.role, 'user');
    const images = (last.content as Array<{ type: string; image_url?: { url: string } }>).filter((part) => part.type === 'image_url');
    assert.equal(images.length, 2);
    for (const image of images) assert.match(image.image_url!.url, /^data:image\/jpeg;base64,/);
    assert.ok(messages.indexOf(last) > messages.indexOf(tools[1]!));
  });
}
