import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ResponsesReplayInvariant,
  assertResponsesReplayInvariant,
  assertResponsesReplayInvariantRule,
  replayInvariantError,
} from '../../transforms/assert-responses-replay-invariant.ts';
import { downgradeResponsesReasoningPairsRule } from '../../transforms/downgrade-responses-reasoning-pairs.ts';
import { HygieneError } from '../../lib/errors.ts';
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, testPolicy, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const parse = (json: string): Message[] => deepFreeze(JSON.parse(json) as Message[]);
const ok = [text('ok')];
const PREFIX = 'invalid_replay_transcript: OpenAI Responses replay contains ';

test('replayInvariantError: message and code', () => {
  const error = replayInvariantError('dangling_tool_call', 'call_1', 1);
  assert.ok(error instanceof HygieneError);
  assert.equal(error.code, 'invalid_replay_transcript');
  assert.equal(error.message, `${PREFIX}dangling_tool_call toolCallId=call_1 at message index 1`);
  assert.equal(replayInvariantError('orphan_tool_result', undefined, 4).message, `${PREFIX}orphan_tool_result at message index 4`);
});

test('Ex 23 (verbatim): dangling call', () => {
  const input = parse('[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_2","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"user","content":"next"}]');
  assert.throws(() => assertResponsesReplayInvariant(input), {
    name: 'HygieneError',
    code: 'invalid_replay_transcript',
    message: 'invalid_replay_transcript: OpenAI Responses replay contains dangling_tool_call toolCallId=call_1 at message index 1',
  });
});

test('Ex 24 (rule level): downgrade then invariant throws orphan_tool_result at index 3', () => {
  const input = parse('[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"call_a|fc_1","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_a|fc_2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_a|fc_1","toolName":"read","content":[{"type":"text","text":"a"}],"isError":false},{"role":"toolResult","toolCallId":"call_a|fc_2","toolName":"read","content":[{"type":"text","text":"b"}],"isError":false}]');
  const chain = createRuleChain(
    [downgradeResponsesReasoningPairsRule, assertResponsesReplayInvariantRule],
    { policy: testPolicy({ responsesFamily: true }), options: resolveHygieneOptions({}), stats: new StatsRecorder() },
    () => {},
  );
  assert.throws(() => {
    for (const m of input) chain.write(m);
    chain.end();
  }, {
    code: 'invalid_replay_transcript',
    message: 'invalid_replay_transcript: OpenAI Responses replay contains orphan_tool_result toolCallId=call_a at message index 3',
    rule: 'assert-responses-replay-invariant',
    index: 3,
  });
  chain.dispose();
});

const cases: { name: string; messages: unknown[]; error?: string }[] = [
  { name: 'empty', messages: [] },
  { name: 'no calls', messages: [user('q'), assistant([text('a')]), user('r')] },
  { name: 'results in any order', messages: [assistant([toolCall('a'), toolCall('b')]), toolResult('b', ok), toolResult('a', ok), user('q')] },
  { name: 'trimmed result id matches', messages: [assistant([toolCall('a')]), toolResult(' a ', ok)] },
  { name: 'alias result id (§2.2 order)', messages: [assistant([toolCall('a')]), { role: 'toolResult', toolCallId: ' ', call_id: 'a', content: ok }] },
  { name: 'dangling at the end', messages: [user('q'), assistant([toolCall('a'), toolCall('b')]), toolResult('b', ok)], error: 'dangling_tool_call toolCallId=a at message index 1' },
  { name: 'dangling: the first pending id', messages: [assistant([toolCall('a'), toolCall('b')]), assistant([text('x')])], error: 'dangling_tool_call toolCallId=a at message index 0' },
  { name: 'dangling: an assistant after unanswered calls', messages: [assistant([toolCall('a')]), assistant([toolCall('b')]), toolResult('b', ok)], error: 'dangling_tool_call toolCallId=a at message index 0' },
  { name: 'dangling: a non-object counts as not a result', messages: [assistant([toolCall('a')]), null], error: 'dangling_tool_call toolCallId=a at message index 0' },
  { name: 'orphan result', messages: [user('q'), toolResult('x', ok)], error: 'orphan_tool_result toolCallId=x at message index 1' },
  { name: 'orphan result without id', messages: [assistant([toolCall('a')]), { role: 'toolResult', content: ok }], error: 'orphan_tool_result at message index 1' },
  { name: 'second result for the same id', messages: [assistant([toolCall('a')]), toolResult('a', ok), toolResult('a', ok)], error: 'orphan_tool_result toolCallId=a at message index 2' },
  { name: 'duplicate ids in one turn collapse', messages: [assistant([toolCall('a'), toolCall('a')]), toolResult('a', ok), toolResult('a', ok)], error: 'orphan_tool_result toolCallId=a at message index 2' },
  { name: 'padded call id never pairs', messages: [assistant([toolCall(' a')]), toolResult(' a', ok)], error: 'orphan_tool_result toolCallId=a at message index 1' },
  { name: 'tool_use blocks are not paired calls', messages: [assistant([{ type: 'tool_use', id: 'a', name: 'r', input: {} }]), toolResult('a', ok)], error: 'orphan_tool_result toolCallId=a at message index 1' },
  { name: 'empty-id calls are not paired', messages: [assistant([toolCall('')]), user('q')] },
  { name: 'non-objects are skipped when nothing is pending', messages: [null, 5, user('q')] },
];

for (const c of cases) {
  test(`invariant: ${c.name}`, () => {
    const input = deepFreeze(c.messages);
    if (c.error === undefined) {
      assert.equal(assertResponsesReplayInvariant(input), input);
    } else {
      assert.throws(() => assertResponsesReplayInvariant(input), { code: 'invalid_replay_transcript', message: PREFIX + c.error });
    }
  });
}

test('rule: passes messages through as the same objects and counts verified results', () => {
  const input = deepFreeze([user('q'), assistant([toolCall('a'), toolCall('b')]), toolResult('a', ok), toolResult('b', ok), assistant([text('done')])]);
  const { output, counts } = runRule(assertResponsesReplayInvariantRule, input, { policy: { responsesFamily: true } });
  assert.equal(output.length, input.length);
  output.forEach((m, i) => assert.equal(m, input[i]));
  assert.deepEqual(counts, { resultsVerified: 2 });
});

test('rule: the dangling check at the end runs in end(), attributed to the rule', () => {
  const input = deepFreeze([user('q'), assistant([toolCall('a')])]);
  assert.throws(() => runRule(assertResponsesReplayInvariantRule, input), {
    code: 'invalid_replay_transcript',
    message: `${PREFIX}dangling_tool_call toolCallId=a at message index 1`,
    rule: 'assert-responses-replay-invariant',
  });
});

test('rule: messages before the violation were already emitted', () => {
  const out: Message[] = [];
  const chain = createRuleChain(
    [assertResponsesReplayInvariantRule],
    { policy: testPolicy(), options: resolveHygieneOptions({}), stats: new StatsRecorder() },
    (m) => out.push(m),
  );
  chain.write(user('q'));
  chain.write(assistant([toolCall('a')]));
  assert.equal(out.length, 2);
  assert.throws(() => chain.write(user('r')), { message: `${PREFIX}dangling_tool_call toolCallId=a at message index 1`, index: 2 });
  chain.dispose();
});

test('ResponsesReplayInvariant: incremental use', () => {
  const invariant = new ResponsesReplayInvariant();
  invariant.check(assistant([toolCall('a')]));
  invariant.check(toolResult('a', ok));
  invariant.finish();
  assert.equal(invariant.verified, 1);
});

test('rule: meta', () => {
  assert.equal(assertResponsesReplayInvariantRule.unit, 'buffered');
  assert.equal(assertResponsesReplayInvariantRule.meta.name, 'assert-responses-replay-invariant');
  assert.deepEqual(assertResponsesReplayInvariantRule.meta.counters, ['resultsVerified']);
});
