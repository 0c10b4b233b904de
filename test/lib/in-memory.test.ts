import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeInMemory, type InMemoryResult } from '../../lib/in-memory.ts';
import { sanitizeSessionHistory, type HygieneOptions, type HygieneStats, type Message } from '../../lib/index.ts';
import { createPipeline } from '../../lib/pipeline.ts';
import { generateTurns } from '../helpers/random-turns.ts';

const ANTHROPIC = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', reasoning: true };
const ROUTES: HygieneOptions[] = [
  ANTHROPIC,
  { ...ANTHROPIC, thinking: true },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
];

function settle(result: InMemoryResult | Promise<InMemoryResult>): InMemoryResult {
  assert.ok(!(result instanceof Promise), 'a context without images is cleaned synchronously');
  return result;
}

/** The pipeline's own output for the same input, request-time steps included. */
async function pipelineOutput(messages: readonly unknown[], options: HygieneOptions): Promise<{ out: Message[]; stats: HygieneStats }> {
  const out: Message[] = [];
  const pipeline = createPipeline({ ...options, now: CLOCK }, (message) => out.push(message), { requestTime: true });
  try {
    for (const message of messages) await pipeline.write(message);
    await pipeline.end();
  } finally {
    pipeline.dispose();
  }
  return { out, stats: pipeline.stats() };
}

const CLOCK = (): number => 1_800_000_000_000;
const meta = { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', stopReason: 'stop' };

function healthyContext(): Message[] {
  return [
    { role: 'compactionSummary', summary: 'earlier work', tokensBefore: 1000, timestamp: 1 },
    { role: 'user', content: [{ type: 'text', text: 'read the file' }], timestamp: 2 },
    { role: 'assistant', content: [{ type: 'text', text: 'reading' }, { type: 'toolCall', id: 'toolu_01A', name: 'read', arguments: { path: 'a' } }], ...meta, stopReason: 'toolUse', timestamp: 3 },
    { role: 'toolResult', toolCallId: 'toolu_01A', toolName: 'read', content: [{ type: 'text', text: 'contents' }], isError: false, timestamp: 4 },
    { role: 'bashExecution', command: 'ls', output: 'a b', exitCode: 0, cancelled: false, truncated: false, timestamp: 5 },
    { role: 'custom', customType: 'notes', content: 'a note', display: true, timestamp: 6 },
    { role: 'branchSummary', summary: 'tried another way', fromId: 'abc', timestamp: 7 },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }], ...meta, timestamp: 8 },
    { role: 'user', content: [{ type: 'text', text: 'thanks' }], timestamp: 9 },
  ];
}

describe('sanitizeInMemory', () => {
  test('gives the pipeline output, request-time steps included, on every route', async () => {
    for (const route of ROUTES) {
      for (let seed = 1; seed <= 25; seed++) {
        const messages = generateTurns(seed, { nonObjects: true });
        const expected = await pipelineOutput(messages, route).catch((error: Error) => error);
        if (expected instanceof Error) {
          await assert.rejects(async () => sanitizeInMemory(messages, { ...route, now: CLOCK }), { message: expected.message });
          continue;
        }
        const result = await sanitizeInMemory(messages, { ...route, now: CLOCK });
        assert.deepEqual(result.messages, expected.out, `${route.modelApi} seed ${seed}`);
        assert.deepEqual(result.stats.rules, expected.stats.rules, `${route.modelApi} seed ${seed}`);
      }
    }
  });

  test('an answered call with an MCP-style name: the same output as the pipeline on every route, with the tool output kept', async () => {
    const messages = healthyContext();
    const call = (messages[2]!.content as Array<Record<string, unknown>>)[1]!;
    call.name = 'mcp.fs/read file';
    (messages[3] as Record<string, unknown>).toolName = 'mcp.fs/read file';
    for (const route of ROUTES) {
      const expected = await pipelineOutput(messages, route);
      const result = await sanitizeInMemory(messages, { ...route, now: CLOCK });
      assert.deepEqual(result.messages, expected.out, String(route.modelApi));
      assert.deepEqual(result.stats.rules, expected.stats.rules, String(route.modelApi));
      assert.ok(JSON.stringify(result.messages).includes('contents'), `${route.modelApi}: the tool output is kept`);
    }
  });

  test('a context that needs nothing comes back as the same array', () => {
    const messages = healthyContext();
    const result = settle(sanitizeInMemory(messages, { ...ANTHROPIC, thinking: true }));
    assert.equal(result.changed, false);
    assert.equal(result.messages, messages);
  });

  test("untouched messages are the caller's objects, and pi's own kinds stay in place", () => {
    const messages = healthyContext();
    // A blank tool output and an orphan result: two messages the rules must change or drop.
    (messages[3] as Record<string, unknown>).content = [{ type: 'text', text: '  ' }];
    messages.splice(8, 0, { role: 'toolResult', toolCallId: 'toolu_01Gone', toolName: 'read', content: [{ type: 'text', text: 'late' }], isError: false, timestamp: 8 });
    const result = settle(sanitizeInMemory(messages, ANTHROPIC));
    assert.equal(result.changed, true);
    assert.notEqual(result.messages[3], messages[3]);
    assert.deepEqual((result.messages[3] as Record<string, unknown>).content, [{ type: 'text', text: '[empty content omitted]' }]);
    assert.equal(result.messages.length, messages.length - 1);
    for (const index of [0, 1, 2, 4, 5, 6, 7]) assert.equal(result.messages[index], messages[index], `message ${index}`);
    assert.equal(result.messages[8], messages[9]);
    assert.deepEqual(
      result.messages.map((message) => message.role),
      ['compactionSummary', 'user', 'assistant', 'toolResult', 'bashExecution', 'custom', 'branchSummary', 'assistant', 'user'],
    );
  });

  test('the trailing prefill goes with thinking on; the replay copy keeps it', async () => {
    const messages = healthyContext().slice(0, 8);
    const withThinking = settle(sanitizeInMemory(messages, { ...ANTHROPIC, thinking: true }));
    assert.equal(withThinking.messages.length, 7);
    assert.equal(withThinking.stats.rules['strip-trailing-prefill']?.removedTurns, 1);
    assert.equal(settle(sanitizeInMemory(messages, ANTHROPIC)).messages, messages);
    assert.equal(settle(sanitizeInMemory(messages, { ...ANTHROPIC, thinking: true, requestTime: false })).messages, messages);
    assert.equal((await sanitizeSessionHistory(messages, { ...ANTHROPIC, thinking: true })).length, 8);
  });

  test('held messages never spill: large contexts keep their objects where the streaming budget would not', async () => {
    // A call that is never answered makes the pairing rule hold everything after it to the end;
    // 12 messages of 256K characters are past a 2 MB budget, so the budgeted path writes them to
    // disk and reads back copies.
    const big = 'x'.repeat(1 << 18);
    const messages: Message[] = [
      { role: 'user', content: 'start', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_01Open', name: 'read', arguments: {} }], ...meta, stopReason: 'toolUse', timestamp: 2 },
    ];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: 'user', content: [{ type: 'text', text: `${i} ${big}` }], timestamp: 10 + 2 * i });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `${i} ${big}` }], ...meta, timestamp: 11 + 2 * i });
    }
    messages.push({ role: 'user', content: 'last', timestamp: 100 });
    const later = messages.slice(2);
    const budgeted = await sanitizeSessionHistory(messages, { ...ANTHROPIC, memoryBudgetBytes: 2 << 20 });
    assert.ok(
      later.some((message) => !budgeted.includes(message)),
      'the budgeted path spilled (control)',
    );
    const result = settle(sanitizeInMemory(messages, ANTHROPIC));
    assert.equal(result.changed, true);
    for (const message of later) assert.ok(result.messages.includes(message));
  });

  test('non-objects are dropped and counted', () => {
    const messages = [null, { role: 'user', content: 'hi', timestamp: 1 }, 7];
    const result = settle(sanitizeInMemory(messages, ANTHROPIC));
    assert.deepEqual(result.messages, [messages[1]]);
    assert.equal(result.messages[0], messages[1]);
    assert.equal(result.stats.rules['drop-non-object-messages']?.dropped, 2);
  });
});
