/**
 * The strict Anthropic emulator: what it rejects (each rule it enforces, with the API's wording),
 * what it accepts, its two answer formats, its log, and that it stops by itself.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAnthropicRequest } from './emulator/anthropic-wire.ts';
import { startAnthropicEmulator } from './emulator/server.ts';

const user = (content: unknown): Record<string, unknown> => ({ role: 'user', content });
const assistant = (content: unknown): Record<string, unknown> => ({ role: 'assistant', content });
const toolUse = (id: string, input: unknown = { path: 'a' }): Record<string, unknown> => ({ type: 'tool_use', id, name: 'read', input });
const toolResult = (id: string, content: unknown = 'ok'): Record<string, unknown> => ({ type: 'tool_result', tool_use_id: id, content });
const request = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages, ...extra });

const VALID = request([
  user('read a'),
  assistant([{ type: 'thinking', thinking: 'plan', signature: 'c2ln' }, { type: 'text', text: 'reading' }, toolUse('toolu_01A')]),
  user([toolResult('toolu_01A', 'contents'), { type: 'text', text: 'and then?' }]),
  assistant([{ type: 'redacted_thinking', data: 'b3BhcXVl' }, { type: 'text', text: 'done' }]),
  user('thanks'),
]);

function rules(body: unknown): string[] {
  return checkAnthropicRequest(body).map((violation) => violation.rule);
}

describe('Anthropic wire rules', () => {
  test('a valid request passes', () => {
    assert.deepEqual(checkAnthropicRequest(VALID), []);
  });

  test('each rule, with where and how the API says it', () => {
    const cases: Array<[string, unknown[], Record<string, unknown>, string]> = [
      ['anthropic/tool-result-missing', [user('q'), assistant([toolUse('toolu_01A')]), user('next')], {}, 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A'],
      ['anthropic/unexpected-tool-result', [user('q'), assistant([{ type: 'text', text: 'hi' }]), user([toolResult('toolu_01Z')])], {}, 'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Z'],
      ['anthropic/duplicate-tool-result', [user('q'), assistant([toolUse('toolu_01A')]), user([toolResult('toolu_01A'), toolResult('toolu_01A')])], {}, 'messages.2.content.1:'],
      ['anthropic/tool-use-id-pattern', [user('q'), assistant([toolUse('functions.read:0')]), user([toolResult('functions.read:0')])], {}, "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"],
      ['anthropic/duplicate-tool-use-id', [user('q'), assistant([toolUse('toolu_01A')]), user([toolResult('toolu_01A')]), assistant([toolUse('toolu_01A')]), user([toolResult('toolu_01A')])], {}, 'messages.3.content.0: `tool_use` ids must be unique'],
      ['anthropic/empty-content', [user([]), assistant('a'), user('b')], {}, 'messages.0: all messages must have non-empty content'],
      ['anthropic/blank-text', [user('q'), assistant([toolUse('toolu_01A')]), user([toolResult('toolu_01A', ' \n')])], {}, 'messages: text content blocks must contain non-whitespace text'],
      ['anthropic/trailing-prefill', [user('q'), assistant([{ type: 'text', text: 'Sure, ' }])], { thinking: { type: 'enabled', budget_tokens: 1024 } }, 'messages.1: Expected `thinking` or `redacted_thinking`'],
      ['wire/tool-use-input', [user('q'), assistant([toolUse('toolu_01A', '{"path":"a"}')]), user([toolResult('toolu_01A')])], {}, 'messages.1.content.0.tool_use.input: Input should be a valid dictionary'],
      ['wire/thinking-signature', [user('q'), assistant([{ type: 'thinking', thinking: 'plan' }, { type: 'text', text: 'a' }]), user('b')], {}, 'messages.1.content.0.thinking.signature: Field required'],
      ['wire/redacted-thinking-data', [user('q'), assistant([{ type: 'redacted_thinking' }, { type: 'text', text: 'a' }]), user('b')], {}, 'messages.1.content.0.redacted_thinking.data: Field required'],
      ['wire/role', [user('q'), { role: 'system', content: 'x' }, user('b')], {}, "messages.1.role: Input should be 'user' or 'assistant'"],
    ];
    for (const [rule, messages, extra, wording] of cases) {
      const violations = checkAnthropicRequest(request(messages, extra));
      const found = violations.find((violation) => violation.rule === rule);
      assert.ok(found, `${rule}: ${JSON.stringify(violations)}`);
      assert.ok(found.message.startsWith(wording), `${rule}: ${found.message}`);
    }
  });

  test('a prefill is fine without thinking; an empty tool output is a blank text', () => {
    assert.deepEqual(rules(request([user('q'), assistant([{ type: 'text', text: 'Sure, ' }])])), []);
    assert.deepEqual(rules(request([user('q'), assistant([toolUse('toolu_01A')]), user([toolResult('toolu_01A', '')])])), ['anthropic/blank-text']);
  });
});

describe('Anthropic emulator server', () => {
  test('answers valid requests (JSON and SSE), rejects broken ones with the API 400, logs each', async () => {
    const emulator = await startAnthropicEmulator({ answer: 'canned' });
    try {
      assert.match(emulator.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const post = (body: unknown): Promise<Response> =>
        fetch(`${emulator.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

      const plain = await post(VALID);
      assert.equal(plain.status, 200);
      const message = (await plain.json()) as { content: Array<{ text: string }>; stop_reason: string };
      assert.deepEqual(message.content, [{ type: 'text', text: 'canned' }]);
      assert.equal(message.stop_reason, 'end_turn');

      const streamed = await post({ ...VALID, stream: true });
      assert.equal(streamed.status, 200);
      assert.match(streamed.headers.get('content-type') ?? '', /text\/event-stream/);
      const events = (await streamed.text()).split('\n').filter((line) => line.startsWith('event: ')).map((line) => line.slice(7));
      assert.deepEqual(events, ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);

      const broken = await post(request([user('q'), assistant([toolUse('toolu_01A')]), user('next')]));
      assert.equal(broken.status, 400);
      const error = (await broken.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(error.type, 'error');
      assert.equal(error.error.type, 'invalid_request_error');
      assert.match(error.error.message, /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after/);

      assert.deepEqual(
        emulator.requests.map((logged) => [logged.status, logged.stream, logged.violations.length]),
        [
          [200, false, 0],
          [200, true, 0],
          [400, false, 1],
        ],
      );
      assert.deepEqual(emulator.requests[0]!.body, VALID);
    } finally {
      await emulator.close();
    }
  });

  test('stops by itself when idle', async () => {
    const emulator = await startAnthropicEmulator({ idleMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await assert.rejects(fetch(`${emulator.url}/v1/messages`, { method: 'POST', body: '{}' }));
    await emulator.close();
  });
});
