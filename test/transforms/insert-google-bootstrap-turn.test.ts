import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SESSION_BOOTSTRAP_TEXT,
  insertBootstrapTurn,
  insertGoogleBootstrapTurnRule,
  needsBootstrapTurn,
  sessionBootstrapTurn,
} from '../../transforms/insert-google-bootstrap-turn.ts';
import type { Message } from '../../lib/types.ts';
import { TEST_NOW, assistant, deepFreeze, text, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { generateTurns } from '../helpers/random-turns.ts';

const BOOT = { role: 'user', content: '(session bootstrap)', timestamp: TEST_NOW };

const cases: Array<{ name: string; input: Message[]; inserted: boolean }> = [
  { name: 'a history starting with an assistant gets the bootstrap turn first', input: [assistant([text('hello')], { timestamp: 1 }), user('q', { timestamp: 2 })], inserted: true },
  { name: 'a lone assistant', input: [assistant([text('a')])], inserted: true },
  { name: 'an assistant with string content still counts', input: [assistant('a')], inserted: true },
  { name: 'a user first: unchanged', input: [user('q'), assistant([text('a')])], inserted: false },
  { name: 'an existing bootstrap (trimmed text) is a user turn: unchanged', input: [user(' (session bootstrap) ', { timestamp: 1 }), assistant([text('a')])], inserted: false },
  { name: 'an array-content bootstrap is a user turn too: unchanged', input: [user([text('(session bootstrap)')]), assistant([text('a')])], inserted: false },
  { name: 'a toolResult first: unchanged', input: [toolResult('c', [text('ok')]), assistant([text('a')])], inserted: false },
  { name: 'an unknown role first: unchanged (oracle)', input: [{ role: 'custom', content: 'x' }, assistant([text('a')])], inserted: false },
  { name: 'a role-less object first: unchanged', input: [{ content: 'x' }, assistant([text('a')])], inserted: false },
  { name: 'only the first message counts', input: [user('q'), assistant([text('a')]), assistant([text('b')])], inserted: false },
  { name: 'empty input: nothing', input: [], inserted: false },
];

describe('core and stream', () => {
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const expected = c.inserted ? [BOOT, ...input] : input;
      const pure = insertBootstrapTurn(input, () => TEST_NOW);
      assert.deepStrictEqual(pure, expected);
      const { output, counts } = runRule(insertGoogleBootstrapTurnRule, input);
      assert.deepStrictEqual(output, expected);
      assert.deepStrictEqual(counts, c.inserted ? { inserted: 1 } : {});
      const offset = c.inserted ? 1 : 0;
      input.forEach((message, i) => assert.equal(output[i + offset], message, `message ${i} is the same object`));
    });
  }
});

test('idempotent: a second run inserts nothing', () => {
  const once = runRule(insertGoogleBootstrapTurnRule, deepFreeze([assistant([text('a')])])).output;
  const twice = runRule(insertGoogleBootstrapTurnRule, deepFreeze(once));
  assert.deepStrictEqual(twice.output, once);
  assert.deepStrictEqual(twice.counts, {});
});

test('the bootstrap turn: exact text, string content, the clock of the context, no other fields, fresh each time', () => {
  assert.equal(SESSION_BOOTSTRAP_TEXT, '(session bootstrap)');
  assert.deepStrictEqual(sessionBootstrapTurn(5), { role: 'user', content: '(session bootstrap)', timestamp: 5 });
  assert.notEqual(sessionBootstrapTurn(5), sessionBootstrapTurn(5));
  const { output } = runRule(insertGoogleBootstrapTurnRule, [assistant([text('a')])], { options: { now: () => 42 } });
  assert.equal(output[0]!.timestamp, 42);
});

test('needsBootstrapTurn', () => {
  assert.equal(needsBootstrapTurn(assistant([])), true);
  assert.equal(needsBootstrapTurn(user('x')), false);
  assert.equal(needsBootstrapTurn(undefined), false);
  assert.equal(needsBootstrapTurn(null), false);
});

test('stream equals the whole-array core on generated inputs', () => {
  let inserted = 0;
  for (let seed = 0; seed < 60; seed++) {
    const input = deepFreeze(generateTurns(seed));
    const { output, counts } = runRule(insertGoogleBootstrapTurnRule, input, { options: { memoryBudgetBytes: seed % 2 === 0 ? 1024 : undefined } });
    assert.deepStrictEqual(output, insertBootstrapTurn(input, () => TEST_NOW), `seed ${seed}`);
    inserted += counts.inserted ?? 0;
  }
  assert.ok(inserted > 5, `the inputs exercise the insertion (${inserted})`);
});

test('rule meta', () => {
  assert.equal(insertGoogleBootstrapTurnRule.unit, 'buffered');
  assert.equal(insertGoogleBootstrapTurnRule.meta.name, 'insert-google-bootstrap-turn');
  assert.deepEqual(insertGoogleBootstrapTurnRule.meta.counters, ['inserted']);
});
