/**
 * The strict OpenAI Responses emulator: the 400s it answers (with the API's wording), what it
 * takes, and its streamed answer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkResponsesRequest } from './emulator/responses-wire.ts';
import { startResponsesEmulator } from './emulator/server.ts';

const user = (text: string): Record<string, unknown> => ({ role: 'user', content: [{ type: 'input_text', text }] });
const call = (callId: string, id?: string): Record<string, unknown> => ({ type: 'function_call', call_id: callId, ...(id === undefined ? {} : { id }), name: 'read', arguments: '{"path":"a"}' });
const output = (callId: string): Record<string, unknown> => ({ type: 'function_call_output', call_id: callId, output: 'contents' });
const said = (text: string): Record<string, unknown> => ({ type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
const request = (input: unknown[]): Record<string, unknown> => ({ model: 'gpt-5.1', stream: true, input: [{ role: 'developer', content: 'be brief' }, ...input] });

const VALID = request([user('read a'), said('reading'), call('toolu_01A', 'fc_1'), output('toolu_01A'), said('done'), user('thanks')]);

describe('OpenAI Responses wire rules', () => {
  test('a valid request passes (any call_id shape of at most 64 characters)', () => {
    assert.deepEqual(checkResponsesRequest(VALID), []);
  });

  test('each 400, with the API wording', () => {
    const cases: Array<[string, unknown[], string]> = [
      ['openai-responses/orphan-output', [user('q'), output('call_gone'), user('next')], 'No tool call found for function call output with call_id call_gone.'],
      ['openai-responses/missing-output', [user('q'), call('call_A'), user('next')], 'No tool output found for function call call_A.'],
      ['wire/call-id-length', [user('q'), call(`call_${'x'.repeat(60)}`), output(`call_${'x'.repeat(60)}`)], "Invalid 'input[2].call_id': string too long. Expected a string with maximum length 64, but got a string with length 65 instead."],
      ['wire/function-call-item-id', [user('q'), call('call_A', 'item_1'), output('call_A')], "Invalid 'input[2].id': 'item_1'. Expected an ID that begins with 'fc'."],
    ];
    for (const [rule, input, wording] of cases) {
      const violations = checkResponsesRequest(request(input));
      const found = violations.find((violation) => violation.rule === rule);
      assert.ok(found, `${rule}: ${JSON.stringify(violations)}`);
      assert.equal(found.message, wording);
    }
  });

  test('an output after its call anywhere earlier is fine (no adjacency rule)', () => {
    assert.deepEqual(checkResponsesRequest(request([user('q'), call('call_A'), said('meanwhile'), output('call_A')])), []);
  });
});

describe('OpenAI Responses emulator server', () => {
  test('streams an answer to a valid request, answers the 400 to a broken one, logs both', async () => {
    const emulator = await startResponsesEmulator({ answer: 'canned' });
    try {
      const post = (body: unknown): Promise<Response> => fetch(`${emulator.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const ok = await post(VALID);
      assert.equal(ok.status, 200);
      const events = (await ok.text()).split('\n').filter((line) => line.startsWith('event: ')).map((line) => line.slice(7));
      assert.deepEqual(events, ['response.created', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
      const broken = await post(request([user('q'), output('call_gone')]));
      assert.equal(broken.status, 400);
      const error = (await broken.json()) as { error: { type: string; message: string } };
      assert.equal(error.error.type, 'invalid_request_error');
      assert.equal(error.error.message, 'No tool call found for function call output with call_id call_gone.');
      assert.deepEqual(emulator.requests.map((logged) => logged.status), [200, 400]);
    } finally {
      await emulator.close();
    }
  });
});
