/**
 * The extension's UI path with the real pi (1.6.0 on Node 24, 0.73.1 on the tests' node), in RPC mode (the mode where pi has a UI and forwards
 * `notify` and `setStatus` to its client as `extension_ui_request` lines):
 * - the status line says what the hygiene repaired in the context it cleaned;
 * - a transcript the route's rules refuse (`invalid_replay_transcript`) is reported once, however
 *   many calls follow, and each call still goes out with pi's own messages.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAnthropicEmulator } from './emulator/server.ts';
import { EXTENSION_SOURCE, PI_LINES, rpcEvents, runPi, type PiRun } from './run-pi.ts';
import { MODEL_ID, PROVIDER, SESSION_CASES } from './sessions.ts';
import { STATUS_KEY } from '../../lib/pi/extension.ts';

function uiRequests(run: PiRun, method: string): Array<Record<string, unknown>> {
  return rpcEvents(run).filter((event) => event.type === 'extension_ui_request' && event.method === method);
}

function header(id: string): string {
  return JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-11-01T10:00:00.000Z', cwd: '/tmp' });
}

/** Two calls whose ids both normalize to `call_a` on OpenAI Responses: the route's rules refuse to replay it. */
function responsesSessionTheRulesRefuse(): string[] {
  const time = '2026-11-01T10:00:01.000Z';
  const entry = (id: string, parentId: string | null, message: Record<string, unknown>): string =>
    JSON.stringify({ type: 'message', id, parentId, timestamp: time, message: { ...message, timestamp: 1761991201000 } });
  const meta = { api: 'openai-responses', provider: PROVIDER, model: MODEL_ID, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } };
  return [
    header('b1111111-1111-4111-8111-111111111111'),
    entry('b0000001', null, { role: 'user', content: [{ type: 'text', text: 'read both files' }] }),
    entry('b0000002', 'b0000001', {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 'call_a|fc_1', name: 'read', arguments: { path: 'a' } },
        { type: 'toolCall', id: 'call_a|fc_2', name: 'read', arguments: { path: 'b' } },
      ],
      stopReason: 'toolUse',
      ...meta,
    }),
    entry('b0000003', 'b0000002', { role: 'toolResult', toolCallId: 'call_a|fc_1', toolName: 'read', content: [{ type: 'text', text: 'contents of a' }], isError: false }),
    entry('b0000004', 'b0000003', { role: 'toolResult', toolCallId: 'call_a|fc_2', toolName: 'read', content: [{ type: 'text', text: 'contents of b' }], isError: false }),
  ];
}

for (const line of PI_LINES) describe(`pi ${line} in RPC mode with the extension`, { concurrency: 2 }, () => {
  test('the status line says what the hygiene repaired', async () => {
    const steering = SESSION_CASES.find((sessionCase) => sessionCase.rejectedBy === 'anthropic/unexpected-tool-result' && sessionCase.name.includes('steering'))!;
    const emulator = await startAnthropicEmulator({ idleMs: 180_000 });
    try {
      const run = await runPi({ baseUrl: emulator.url, session: steering.lines, prompts: ['Go on.'], extensions: [EXTENSION_SOURCE], mode: 'rpc', pi: line });
      const statuses = uiRequests(run, 'setStatus').filter((request) => request.statusKey === STATUS_KEY);
      assert.ok(statuses.length >= 1, `no status:\n${run.stdout.slice(0, 2000)}\n${run.stderr.slice(0, 1000)}`);
      // What the rules counted on this context (the steering text joins the next user turn); the
      // exact wording is status.test.ts's.
      // The provider is `emulator`, a name pi does not know: the rules are the request's (anthropic-messages
      // to Claude), which keep the session's valid Anthropic ids (the generic rules rewrote them).
      assert.match(String(statuses[0]!.statusText), /^hygiene \(anthropic rules\): (?:.*, )?1 turn merged/, String(statuses[0]!.statusText));
      assert.doesNotMatch(String(statuses[0]!.statusText), /rewritten/);
      assert.deepEqual(
        emulator.requests.map((request) => request.status),
        [200],
      );
      assert.equal(uiRequests(run, 'notify').length, 0);
    } finally {
      await emulator.close();
    }
  });

  test('a transcript the rules refuse is reported once and the calls still go out unchanged', async () => {
    const emulator = await startAnthropicEmulator({ idleMs: 180_000 });
    try {
      const run = await runPi({
        baseUrl: emulator.url,
        session: responsesSessionTheRulesRefuse(),
        prompts: ['first try', 'second try'],
        extensions: [EXTENSION_SOURCE],
        mode: 'rpc',
        api: 'openai-responses',
        pi: line,
      });
      const notes = uiRequests(run, 'notify');
      assert.equal(notes.length, 1, JSON.stringify(notes));
      assert.match(String(notes[0]!.message), /invalid_replay_transcript/);
      assert.equal(notes[0]!.notifyType, 'warning');
      // Both calls reached the provider (the emulator speaks only Anthropic: it answers 404), with the original calls in them.
      const calls = emulator.requests.filter((request) => request.path.endsWith('/responses'));
      assert.equal(calls.length, 2, JSON.stringify(emulator.requests.map((request) => request.path)));
      for (const call of calls) {
        const sent = JSON.stringify(call.body);
        assert.ok(sent.includes('contents of a') && sent.includes('contents of b'), sent);
      }
    } finally {
      await emulator.close();
    }
  });
});
