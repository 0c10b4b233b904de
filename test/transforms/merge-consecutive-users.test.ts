import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeConsecutiveUsers, mergeConsecutiveUsersRule } from '../../transforms/merge-consecutive-users.ts';
import { mergeUserTurns } from '../../transforms/merge-consecutive-turns.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, image, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { generateTurns } from '../helpers/random-turns.ts';

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
  same?: Array<[input: number, output: number]>;
  merged: number;
}

const cases: Case[] = [
  {
    name: 'E14 (user part): fields of the last turn, timestamp from the first when the last has none, provenance lost',
    input: [
      { role: 'user', content: 'a', timestamp: 1, provenance: { kind: 'inter_session' }, x: 1 },
      { role: 'user', content: [{ type: 'text', text: 'b' }], y: 2 },
    ],
    expected: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], y: 2, timestamp: 1 }],
    merged: 1,
  },
  {
    name: 'E3 (user part): the later timestamp and idempotencyKey win',
    input: [
      { role: 'user', content: '/status', timestamp: 1 },
      { role: 'user', content: [{ type: 'text', text: 'real prompt' }], timestamp: 2, idempotencyKey: 'k2' },
      assistant([text('a1')]),
    ],
    expected: [
      { role: 'user', content: [{ type: 'text', text: '/status' }, { type: 'text', text: 'real prompt' }], timestamp: 2, idempotencyKey: 'k2' },
      assistant([text('a1')]),
    ],
    same: [[2, 1]],
    merged: 1,
  },
  {
    name: 'two strings become an array of two text blocks',
    input: [user('q1', { timestamp: 2 }), user('q2', { timestamp: 3 })],
    expected: [user([text('q1'), text('q2')], { timestamp: 3 })],
    merged: 1,
  },
  {
    name: 'arrays keep every block, images included',
    input: [user([text('look'), image()]), user([text('again')])],
    expected: [user([text('look'), image(), text('again')])],
    merged: 1,
  },
  {
    name: 'a user with other content is absorbed and contributes nothing',
    input: [{ role: 'user', content: 42, timestamp: 1, keep: 'no' }, user('b')],
    expected: [{ role: 'user', content: [text('b')], timestamp: 1 }],
    merged: 1,
  },
  {
    name: 'missing content on the last turn: the earlier content survives under the last turn fields',
    input: [user('a', { timestamp: 1 }), { role: 'user', note: 'n' }],
    expected: [{ role: 'user', note: 'n', content: [text('a')], timestamp: 1 }],
    merged: 1,
  },
  {
    name: 'timestamp: null on the last turn falls back (??)',
    input: [user('a', { timestamp: 5 }), user('b', { timestamp: null as unknown as number })],
    expected: [user([text('a'), text('b')], { timestamp: 5 })],
    merged: 1,
  },
  {
    name: 'timestamp missing on every turn stays missing',
    input: [user('a'), user('b'), user('c')],
    expected: [user([text('a'), text('b'), text('c')])],
    merged: 2,
  },
  {
    name: 'a run of three: the last timestamp that is set',
    input: [user('a', { timestamp: 1 }), user('b', { timestamp: 2 }), user('c')],
    expected: [user([text('a'), text('b'), text('c')], { timestamp: 2 })],
    merged: 2,
  },
  {
    name: 'user, assistant, user is not a run',
    input: [user('a'), assistant([text('x')]), user('b')],
    expected: [user('a'), assistant([text('x')]), user('b')],
    same: [[0, 0], [1, 1], [2, 2]],
    merged: 0,
  },
  {
    name: 'a toolResult breaks the run',
    input: [assistant([toolCall('c1')]), toolResult('c1', [text('ok')]), user('a'), toolResult('c9', [text('late')]), user('b')],
    expected: [assistant([toolCall('c1')]), toolResult('c1', [text('ok')]), user('a'), toolResult('c9', [text('late')]), user('b')],
    same: [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]],
    merged: 0,
  },
  {
    name: 'role-less quirk: a user after a role-less object after a user merges into it and takes its role',
    input: [user('a', { timestamp: 1 }), { content: 'roleless', timestamp: 2, r: 1 }, user('b')],
    expected: [user('a', { timestamp: 1 }), { role: 'user', content: [text('roleless'), text('b')], timestamp: 2 }],
    same: [[0, 0]],
    merged: 1,
  },
  {
    name: 'consecutive assistants are not merged by this rule',
    input: [assistant([text('a')]), assistant([text('b')])],
    expected: [assistant([text('a')]), assistant([text('b')])],
    same: [[0, 0], [1, 1]],
    merged: 0,
  },
  {
    name: 'a lone user is the same object',
    input: [user('q', { provenance: { kind: 'inter_session' } }), assistant([text('a')])],
    expected: [user('q', { provenance: { kind: 'inter_session' } }), assistant([text('a')])],
    same: [[0, 0], [1, 1]],
    merged: 0,
  },
];

describe('core and stream', () => {
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const pure = mergeConsecutiveUsers(input);
      assert.deepStrictEqual(pure, c.expected);
      const { output, counts } = runRule(mergeConsecutiveUsersRule, input);
      assert.deepStrictEqual(output, c.expected);
      assert.deepStrictEqual(counts, c.merged > 0 ? { merged: c.merged } : {});
      for (const [i, o] of c.same ?? []) {
        assert.equal(pure[o], input[i]);
        assert.equal(output[o], input[i]);
      }
    });
  }
});

test('merged key order is the last turn key order, with timestamp appended when it had none (E14)', () => {
  const a = { role: 'user', content: 'a', timestamp: 1, provenance: { kind: 'inter_session' }, x: 1 };
  const b = { role: 'user', content: [{ type: 'text', text: 'b' }], y: 2 };
  const expected = '{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"y":2,"timestamp":1}';
  assert.equal(JSON.stringify(mergeUserTurns(a, b)), expected);
  assert.equal(JSON.stringify(runRule(mergeConsecutiveUsersRule, deepFreeze([a, b])).output[0]), expected);
});

test('shouldMergeConsecutiveUserTurns: off only for prefix-binding Claude models on anthropic-messages (E4)', () => {
  const merge = (provider: string, modelApi: string, modelId: string) => resolveTranscriptPolicy({ provider, modelApi, modelId }).mergeConsecutiveUserTurns;
  assert.equal(merge('anthropic', 'anthropic-messages', 'claude-fable-5-1'), false);
  assert.equal(merge('anthropic', 'anthropic-messages', 'claude-opus-5-5'), false);
  assert.equal(merge('anthropic', 'anthropic-messages', 'claude-opus-4-6'), true);
  assert.equal(merge('amazon-bedrock', 'bedrock-converse-stream', 'claude-fable-5-1'), true);
  assert.equal(merge('openai', 'openai-responses', 'gpt-5'), true);
});

describe('stream equals the whole-array core on generated inputs', () => {
  for (const budget of [undefined, 1024]) {
    test(`memoryBudgetBytes ${budget ?? 'default'}`, () => {
      let merged = 0;
      for (let seed = 0; seed < 60; seed++) {
        const input = deepFreeze(generateTurns(seed, { nonObjects: true }));
        const pure = mergeConsecutiveUsers(input);
        const { output, counts } = runRule(mergeConsecutiveUsersRule, input, { options: { memoryBudgetBytes: budget } });
        assert.deepStrictEqual(output, pure, `seed ${seed}`);
        output.forEach((message, i) => {
          if (input.includes(pure[i]!)) assert.equal(message, pure[i], `seed ${seed}: an unmerged message is the same object (${i})`);
        });
        merged += counts.merged ?? 0;
      }
      assert.ok(merged > 20, `the generated inputs exercise the merge (${merged} merges)`);
    });
  }
});

test('rule meta', () => {
  assert.equal(mergeConsecutiveUsersRule.unit, 'buffered');
  assert.equal(mergeConsecutiveUsersRule.meta.name, 'merge-consecutive-users');
  assert.deepEqual(mergeConsecutiveUsersRule.meta.counters, ['merged']);
});
