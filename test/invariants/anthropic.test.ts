import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type Violation } from '../../lib/invariants/index.ts';
import { ANTHROPIC_RULES } from '../../lib/invariants/anthropic.ts';
import { assistant, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' };

function check(messages: readonly unknown[], thinkingOn = false): Violation[] {
  return checkTranscript(messages, { ...route, thinking: thinkingOn });
}

function only(violations: Violation[], rule: string): Violation[] {
  return violations.filter((violation) => violation.rule === rule);
}

/** A tool loop Anthropic accepts: two calls answered in one result run, then text and a new user turn. */
const valid: Message[] = [
  user('read two files'),
  assistant([thinking('plan', 'sig'), text('reading'), toolCall('toolu_01', 'read'), toolCall('call-2_b', 'read')], { stopReason: 'toolUse' }),
  toolResult('toolu_01', [text('one')]),
  toolResult('call-2_b', [text('two')]),
  assistant([text('done')]),
  user('thanks'),
  { role: 'compactionSummary', summary: 's', timestamp: 1 },
];

describe('anthropic invariants', () => {
  test('a well-formed tool loop has no violation, with or without thinking', () => {
    assert.deepEqual(check(valid), []);
    assert.deepEqual(check(valid, true), []);
  });

  test('every rule is listed with a source and a family prefix', () => {
    for (const rule of ANTHROPIC_RULES) {
      assert.match(rule.id, /^anthropic\//);
      assert.ok(rule.source.length > 20, rule.id);
    }
  });

  test('tool-result-missing: a call without a result in the next message', () => {
    const violations = check([user('q'), assistant([toolCall('a'), toolCall('b')], { stopReason: 'toolUse' }), toolResult('a', [text('ok')])]);
    assert.deepEqual(only(violations, 'anthropic/tool-result-missing').map((v) => [v.index, v.id, v.block]), [[1, 'b', 1]]);
  });

  test('tool-result-missing: a result after an interjected user turn is not "immediately after"', () => {
    const violations = check([user('q'), assistant([toolCall('a')]), user('wait'), toolResult('a', [text('ok')])]);
    assert.equal(only(violations, 'anthropic/tool-result-missing').length, 1);
    assert.deepEqual(only(violations, 'anthropic/unexpected-tool-result').map((v) => v.index), [3]);
  });

  test('tool-result-missing: a call in the last message', () => {
    assert.equal(only(check([user('q'), assistant([toolCall('a')])]), 'anthropic/tool-result-missing').length, 1);
  });

  test('unexpected-tool-result: orphan, leading, id-less and padded results', () => {
    const violations = check([
      toolResult('x', [text('leading')]),
      user('q'),
      assistant([toolCall('a')]),
      toolResult('a', [text('ok')]),
      toolResult('zzz', [text('orphan')]),
      { role: 'toolResult', toolUseId: 'a', content: [text('alias only')] },
      toolResult(' a', [text('padded')]),
    ]);
    assert.deepEqual(
      only(violations, 'anthropic/unexpected-tool-result').map((v) => [v.index, v.id]),
      [
        [0, 'x'],
        [4, 'zzz'],
        [5, ''],
        [6, ' a'],
      ],
    );
  });

  test('duplicate-tool-result: two results for one call; a repeated call id takes two', () => {
    const twice = check([user('q'), assistant([toolCall('a')]), toolResult('a', [text('1')]), toolResult('a', [text('2')])]);
    assert.deepEqual(only(twice, 'anthropic/duplicate-tool-result').map((v) => v.index), [3]);
    const repeated = check([user('q'), assistant([toolCall('a'), toolCall('a')]), toolResult('a', [text('1')]), toolResult('a', [text('2')])]);
    assert.deepEqual(only(repeated, 'anthropic/duplicate-tool-result'), []);
  });

  test('tool-use-id-pattern: ids outside ^[a-zA-Z0-9_-]+$ in calls and results', () => {
    const violations = check([
      user('q'),
      assistant([toolCall('functions.read:0'), toolCall('call_1|fc_1'), { type: 'toolUse', name: 'read', input: {} }]),
      toolResult('functions.read:0', [text('ok')]),
      toolResult('call_1|fc_1', [text('ok')]),
    ]);
    assert.deepEqual(
      only(violations, 'anthropic/tool-use-id-pattern').map((v) => [v.index, v.id, v.block]),
      [
        [1, 'functions.read:0', 0],
        [1, 'call_1|fc_1', 1],
        [1, '', 2],
        [2, 'functions.read:0', undefined],
        [3, 'call_1|fc_1', undefined],
      ],
    );
  });

  test('duplicate-tool-use-id: the same id in two turns', () => {
    const violations = check([
      user('q'),
      assistant([toolCall('a')]),
      toolResult('a', [text('1')]),
      assistant([toolCall('a')]),
      toolResult('a', [text('2')]),
    ]);
    assert.deepEqual(only(violations, 'anthropic/duplicate-tool-use-id').map((v) => [v.index, v.id]), [[3, 'a']]);
  });

  test('empty-content: empty user and assistant turns, but not the final assistant', () => {
    const violations = check([user(''), assistant([]), user([text('q')]), assistant([thinking('  ')]), user('q'), assistant([])]);
    assert.deepEqual(only(violations, 'anthropic/empty-content').map((v) => v.index), [0, 1, 3]);
  });

  test('empty-content: media-only users and compaction checkpoints are replayed by the runtime', () => {
    const media = { __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } };
    const violations = check([user('', media), assistant([], { providerReplay: { type: 'anthropic-compaction' } }), user('q')]);
    assert.deepEqual(only(violations, 'anthropic/empty-content'), []);
  });

  test('blank-text: blank text blocks anywhere, tool results included', () => {
    const violations = check([user([text(' '), text('q')]), assistant([toolCall('a'), text('')]), toolResult('a', [text('\n')])]);
    assert.deepEqual(only(violations, 'anthropic/blank-text').map((v) => [v.index, v.block]), [
      [0, 0],
      [1, 1],
      [2, 0],
    ]);
  });

  test('thinking-signature: redacted thinking without data, a non-string signature', () => {
    const violations = check([
      user('q'),
      assistant([{ type: 'redacted_thinking', data: ' ' }, thinking('x'), { type: 'thinking', thinking: 'y', redacted: true }, { type: 'thinking', thinking: 'z', thinkingSignature: 5 }, text('a')]),
      user('q2'),
    ]);
    assert.deepEqual(only(violations, 'anthropic/thinking-signature').map((v) => v.block), [0, 2, 3]);
  });

  test('trailing-prefill: only with thinking on, and not after a tool call', () => {
    const prefill = [user('q'), assistant([text('Sure, ')])];
    assert.deepEqual(only(check(prefill), 'anthropic/trailing-prefill'), []);
    assert.deepEqual(only(check(prefill, true), 'anthropic/trailing-prefill').map((v) => v.index), [1]);
    assert.deepEqual(only(check([user('q'), assistant([toolCall('a')])], true), 'anthropic/trailing-prefill'), []);
  });

  test('consecutive same-role turns are combined by Anthropic, not reported as such', () => {
    assert.deepEqual(check([user('a'), user('b'), assistant([text('x')]), assistant([text('y')]), user('c')]), []);
  });
});
