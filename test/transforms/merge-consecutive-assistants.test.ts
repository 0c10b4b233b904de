import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeConsecutiveAssistants, mergeConsecutiveAssistantsRule } from '../../transforms/merge-consecutive-assistants.ts';
import { mergeAssistantTurns } from '../../transforms/merge-consecutive-turns.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { generateTurns } from '../helpers/random-turns.ts';

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
  /** Indexes of input messages that must come out as the same object, at these output indexes. */
  same?: Array<[input: number, output: number]>;
  merged: number;
}

const cases: Case[] = [
  {
    name: 'two assistants: content concatenated, other fields from the first, usage/stopReason/errorMessage from the second',
    input: [
      user('q'),
      assistant([text('a1')], { timestamp: 3, model: 'm1', provider: 'p1', usage: { input: 1 } }),
      assistant([text('a2')], { stopReason: 'toolUse', timestamp: 4, model: 'm2', usage: { input: 2 }, errorMessage: 'e2' }),
      user('next'),
    ],
    expected: [
      user('q'),
      { role: 'assistant', content: [text('a1'), text('a2')], stopReason: 'toolUse', timestamp: 3, model: 'm1', provider: 'p1', usage: { input: 2 }, errorMessage: 'e2' },
      user('next'),
    ],
    same: [[0, 0], [3, 2]],
    merged: 1,
  },
  {
    name: 'falsy usage, stopReason and errorMessage of the later turn do not override',
    input: [assistant([text('a')], { usage: { input: 1 }, errorMessage: 'e1' }), assistant([text('b')], { stopReason: '', usage: null, errorMessage: '' })],
    expected: [{ role: 'assistant', content: [text('a'), text('b')], stopReason: 'stop', usage: { input: 1 }, errorMessage: 'e1' }],
    merged: 1,
  },
  {
    name: 'string content on either side is dropped (E14)',
    input: [assistant('string content is lost'), assistant([text('kept')], { usage: { input: 9 } }), assistant('also lost')],
    expected: [{ role: 'assistant', content: [text('kept')], stopReason: 'stop', usage: { input: 9 } }],
    merged: 2,
  },
  {
    name: 'non-array content on both sides gives []',
    input: [{ role: 'assistant', stopReason: 'stop' }, { role: 'assistant', content: 5 }],
    expected: [{ role: 'assistant', stopReason: 'stop', content: [] }],
    merged: 1,
  },
  {
    name: 'a run of three: the last truthy override wins',
    input: [assistant([text('1')], { timestamp: 1 }), assistant([text('2')], { usage: { input: 2 } }), assistant([text('3')], { stopReason: 'length' })],
    expected: [{ role: 'assistant', content: [text('1'), text('2'), text('3')], stopReason: 'length', timestamp: 1, usage: { input: 2 } }],
    merged: 2,
  },
  {
    name: 'assistant, toolResult, assistant is not a run',
    input: [assistant([toolCall('c1')]), toolResult('c1', [text('ok')]), assistant([text('done')])],
    expected: [assistant([toolCall('c1')]), toolResult('c1', [text('ok')]), assistant([text('done')])],
    same: [[0, 0], [1, 1], [2, 2]],
    merged: 0,
  },
  {
    name: 'consecutive users are not merged by this rule',
    input: [user('a'), user('b'), assistant([text('x')])],
    expected: [user('a'), user('b'), assistant([text('x')])],
    same: [[0, 0], [1, 1], [2, 2]],
    merged: 0,
  },
  {
    name: 'role-less quirk: an assistant after a role-less object after an assistant merges into the role-less object',
    input: [assistant([text('a')], { timestamp: 2 }), { content: 'roleless', timestamp: 3 }, assistant([text('b')], { timestamp: 4 }), user('u')],
    expected: [assistant([text('a')], { timestamp: 2 }), { content: [text('b')], timestamp: 3, stopReason: 'stop' }, user('u')],
    same: [[0, 0], [3, 2]],
    merged: 1,
  },
  {
    name: 'role-less quirk: a falsy role counts as role-less',
    input: [assistant([text('a')]), { role: '', content: [text('r')] }, assistant([text('b')])],
    expected: [assistant([text('a')]), { role: '', content: [text('r'), text('b')], stopReason: 'stop' }],
    merged: 1,
  },
  {
    name: 'role-less object after a user: nothing merges into it',
    input: [user('u'), { content: [text('r')] }, assistant([text('a')]), assistant([text('b')])],
    expected: [user('u'), { content: [text('r')] }, { role: 'assistant', content: [text('a'), text('b')], stopReason: 'stop' }],
    same: [[0, 0], [1, 1]],
    merged: 1,
  },
  {
    name: 'an unknown role breaks the run',
    input: [assistant([text('a')]), { role: 'custom', content: 'c' }, assistant([text('b')])],
    expected: [assistant([text('a')]), { role: 'custom', content: 'c' }, assistant([text('b')])],
    same: [[0, 0], [1, 1], [2, 2]],
    merged: 0,
  },
  {
    name: 'a non-object between two assistants: the later one cannot merge into it',
    input: [assistant([text('a')]), null as unknown as Message, assistant([text('b')]), assistant([text('c')])],
    expected: [assistant([text('a')]), null as unknown as Message, { role: 'assistant', content: [text('b'), text('c')], stopReason: 'stop' }],
    same: [[0, 0]],
    merged: 1,
  },
  { name: 'empty input', input: [], expected: [], merged: 0 },
  {
    name: 'a single assistant at the end is the same object',
    input: [user('q'), assistant([text('a')])],
    expected: [user('q'), assistant([text('a')])],
    same: [[0, 0], [1, 1]],
    merged: 0,
  },
];

describe('core and stream', () => {
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const pure = mergeConsecutiveAssistants(input);
      assert.deepStrictEqual(pure, c.expected);
      const { output, counts } = runRule(mergeConsecutiveAssistantsRule, input);
      assert.deepStrictEqual(output, c.expected);
      assert.deepStrictEqual(counts, c.merged > 0 ? { merged: c.merged } : {});
      for (const [i, o] of c.same ?? []) {
        assert.equal(pure[o], input[i], `pure: input ${i} is output ${o}`);
        assert.equal(output[o], input[i], `stream: input ${i} is output ${o}`);
      }
    });
  }
});

test('merge keeps the first turn key order and appends new override keys in the order they first appear', () => {
  const a = deepFreeze({ role: 'assistant', content: [text('a')], timestamp: 1 });
  const b = deepFreeze({ role: 'assistant', content: [text('b')], stopReason: 'stop' });
  const c = deepFreeze({ role: 'assistant', content: [text('c')], usage: { input: 3 } });
  const pairwise = mergeAssistantTurns(mergeAssistantTurns(a, b), c);
  const { output } = runRule(mergeConsecutiveAssistantsRule, [a, b, c]);
  assert.deepEqual(Object.keys(pairwise), ['role', 'content', 'timestamp', 'stopReason', 'usage']);
  assert.equal(JSON.stringify(output[0]), JSON.stringify(pairwise));
});

test('merged content reuses the blocks and never the input arrays', () => {
  const first = text('a');
  const second = text('b');
  const input = deepFreeze([assistant([first]), assistant([second])]);
  const { output } = runRule(mergeConsecutiveAssistantsRule, input);
  const content = output[0]!.content as unknown[];
  assert.equal(content[0], first);
  assert.equal(content[1], second);
  assert.notEqual(content, input[0]!.content);
});

test('idempotent: a second pass changes nothing (so one rule serves both validators)', () => {
  for (let seed = 0; seed < 60; seed++) {
    const once = mergeConsecutiveAssistants(deepFreeze(generateTurns(seed, { nonObjects: true })));
    const twice = mergeConsecutiveAssistants(deepFreeze(once));
    assert.deepStrictEqual(twice, once, `seed ${seed}`);
    twice.forEach((message, i) => assert.equal(message, once[i], `seed ${seed}: message ${i} is the same object`));
  }
});

describe('stream equals the whole-array core on generated inputs', () => {
  for (const budget of [undefined, 1024]) {
    test(`memoryBudgetBytes ${budget ?? 'default'}`, () => {
      let merged = 0;
      for (let seed = 0; seed < 60; seed++) {
        const input = deepFreeze(generateTurns(seed, { nonObjects: true }));
        const pure = mergeConsecutiveAssistants(input);
        const { output, counts } = runRule(mergeConsecutiveAssistantsRule, input, { options: { memoryBudgetBytes: budget } });
        assert.deepStrictEqual(output, pure, `seed ${seed}`);
        output.forEach((message, i) => {
          if (input.includes(pure[i]!)) assert.equal(message, pure[i], `seed ${seed}: an unmerged message is the same object (${i})`);
        });
        assert.equal(output.length + (counts.merged ?? 0), input.length, `seed ${seed}: every message is emitted or merged`);
        merged += counts.merged ?? 0;
      }
      assert.ok(merged > 20, `the generated inputs exercise the merge (${merged} merges)`);
    });
  }
});

test('rule meta', () => {
  assert.equal(mergeConsecutiveAssistantsRule.unit, 'buffered');
  assert.equal(mergeConsecutiveAssistantsRule.meta.name, 'merge-consecutive-assistants');
  assert.deepEqual(mergeConsecutiveAssistantsRule.meta.counters, ['merged', 'reasoningRefilled']);
});
