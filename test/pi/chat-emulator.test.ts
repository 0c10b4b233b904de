/**
 * The strict OpenAI chat completions emulator: the 400s it answers (with the API's wording), what
 * it takes, and its streamed answer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkChatCompletionsRequest } from './emulator/chat-wire.ts';
import { startChatCompletionsEmulator } from './emulator/server.ts';

const user = (content: string): Record<string, unknown> => ({ role: 'user', content });
const calls = (...ids: string[]): Record<string, unknown> => ({ role: 'assistant', content: null, tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } })) });
const tool = (id: string): Record<string, unknown> => ({ role: 'tool', tool_call_id: id, content: 'contents' });
const request = (messages: unknown[]): Record<string, unknown> => ({ model: 'gpt-4.1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: 'be brief' }, ...messages] });

const LONG = `chatcmpl-tool-${'a1b2c3d4'.repeat(4)}`;
const VALID = request([user('read a'), calls('call_A', 'call_B'), tool('call_A'), tool('call_B'), { role: 'assistant', content: 'done' }, user('thanks')]);

describe('OpenAI chat completions wire rules', () => {
  test('a valid request passes', () => {
    assert.deepEqual(checkChatCompletionsRequest(VALID), []);
  });

  test('each 400, with the API wording', () => {
    const cases: Array<[string, unknown[], string]> = [
      ['chat-completions/tool-message-position', [user('q'), tool('call_gone'), user('next')], "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."],
      [
        'chat-completions/missing-tool-message',
        [user('q'), calls('call_A', 'call_B'), tool('call_A'), user('next')],
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_B",
      ],
      ['chat-completions/tool-call-id-length', [user('q'), calls('call_A', LONG), tool('call_A'), tool(LONG)], `Invalid 'messages[2].tool_calls[1].id': string too long. Expected a string with maximum length 40, but got a string with length ${LONG.length} instead.`],
    ];
    for (const [rule, messages, wording] of cases) {
      const violations = checkChatCompletionsRequest(request(messages));
      const found = violations.find((violation) => violation.rule === rule);
      assert.ok(found, `${rule}: ${JSON.stringify(violations)}`);
      assert.equal(found.message, wording);
    }
    assert.ok(LONG.length > 40);
  });
});

describe('OpenAI chat completions emulator server', () => {
  test('streams an answer to a valid request, answers the 400 to a broken one, logs both', async () => {
    const emulator = await startChatCompletionsEmulator({ answer: 'canned' });
    try {
      const post = (body: unknown): Promise<Response> => fetch(`${emulator.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const ok = await post(VALID);
      assert.equal(ok.status, 200);
      const data = (await ok.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
      assert.equal(data.at(-1), '[DONE]');
      const chunks = data.slice(0, -1).map((line) => JSON.parse(line) as { choices: Array<{ delta: { content?: string } }>; usage?: unknown });
      assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'canned');
      assert.ok(chunks.at(-1)!.usage);
      const broken = await post(request([user('q'), tool('call_gone')]));
      assert.equal(broken.status, 400);
      const error = (await broken.json()) as { error: { type: string; message: string } };
      assert.equal(error.error.type, 'invalid_request_error');
      assert.match(error.error.message, /must be a response to a preceeding message with 'tool_calls'/);
      assert.deepEqual(emulator.requests.map((logged) => logged.status), [200, 400]);
    } finally {
      await emulator.close();
    }
  });
});
