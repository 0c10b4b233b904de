import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  MISSING_TOOL_RESULT_TEXT,
  RESPONSES_MISSING_TOOL_RESULT_TEXT,
  isSyntheticResult,
  normalizeResultToolName,
  pairedCallsOf,
  repairToolResultPairing,
  resultIdOf,
  ToolResultPairing,
} from '../../transforms/repair-tool-result-pairing.ts';
import type { Message } from '../../lib/types.ts';
import { ResultIdIndex } from '../../lib/result-index.ts';
import { recordInputLine } from '../../lib/input-lines.ts';
import { TEST_NOW, deepFreeze } from '../helpers/build.ts';

const now = (): number => TEST_NOW;
const call = (id: string, name = 'read'): Record<string, unknown> => ({ type: 'toolCall', id, name, arguments: { p: 1 } });
const A = (calls: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content: calls, stopReason: 'toolUse', ...extra });
const R = (id: string, text = 'ok', extra: Record<string, unknown> = {}): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, ...extra });
const U = (content: string): Message => ({ role: 'user', content });
const SYN = (id: string, text = MISSING_TOOL_RESULT_TEXT, name = 'read'): Message => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: name,
  content: [{ type: 'text', text }],
  details: { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' },
  isError: true,
  timestamp: TEST_NOW,
});

function repair(messages: Message[], options: { missingResultText?: string; memoryBudgetBytes?: number } = {}) {
  return repairToolResultPairing(deepFreeze(structuredClone(messages)), { now, ...options });
}

describe('shapes', () => {
  test('paired calls need toolCall/toolUse/functionCall with a non-empty string id, untrimmed', () => {
    const message = A([call(' a'), { type: 'tool_use', id: 'b', input: {} }, { type: 'toolUse', id: '', input: {} }, { type: 'functionCall', id: 'c' }, { type: 'text', text: 'x' }]);
    assert.deepEqual(pairedCallsOf(message), [{ id: ' a', name: 'read' }, { id: 'c', name: undefined }]);
    assert.equal(pairedCallsOf(U('x')), undefined);
    assert.equal(pairedCallsOf(A([{ type: 'text', text: 'no calls' }])), undefined);
  });

  test('the result id is the first non-blank id field, trimmed', () => {
    assert.equal(resultIdOf({ role: 'toolResult', toolCallId: '  ', toolUseId: ' x ', call_id: 'y' }), 'x');
    assert.equal(resultIdOf({ role: 'toolResult', call_id: 'y' }), 'y');
    assert.equal(resultIdOf({ role: 'toolResult', toolCallId: 5 }), undefined);
  });

  test('synthetic results are recognised by the marker or the exact default text, only with isError', () => {
    assert.equal(isSyntheticResult(SYN('a')), true);
    assert.equal(isSyntheticResult({ ...SYN('a'), details: undefined }), true);
    assert.equal(isSyntheticResult({ ...SYN('a', RESPONSES_MISSING_TOOL_RESULT_TEXT), details: undefined }), false);
    assert.equal(isSyntheticResult({ ...SYN('a'), isError: false }), false);
  });

  const names: Array<[string, unknown, unknown, unknown]> = [
    ['trimmed', ' read ', 'x', 'read'],
    ['kept', 'read', 'x', 'read'],
    ['blank takes the call name', '  ', ' exec ', 'exec'],
    ['missing takes the call name', undefined, 'exec', 'exec'],
    ['blank with a blank call name becomes unknown', ' ', ' ', 'unknown'],
    ['non-string stays', 7, undefined, 7],
  ];
  for (const [title, toolName, callName, expected] of names) {
    test(`result toolName: ${title}`, () => {
      const result: Message = { role: 'toolResult', toolCallId: 'a', ...(toolName === undefined ? {} : { toolName }) };
      assert.deepEqual(normalizeResultToolName(result, callName).toolName, expected);
    });
  }

  test('an unchanged toolName returns the same object', () => {
    const result = R('a');
    assert.equal(normalizeResultToolName(result, 'read'), result);
  });
});

describe('spec worked examples', () => {
  test('Ex 6: missing result synthesized, results in call order, interleaved user after them', () => {
    const { messages, counts } = repair([A([call('a'), call('b'), call('c')]), U('interjection'), R('c', 'C'), R('a', 'A')]);
    assert.deepEqual(messages, [A([call('a'), call('b'), call('c')]), R('a', 'A'), SYN('b'), R('c', 'C'), U('interjection')]);
    assert.equal(counts.synthesized, 1);
  });

  test('Ex 7: a provider id repeated in a later turn keeps its adjacent result', () => {
    const { messages } = repair([A([call('x')]), U('u'), A([call('x')]), R('x', 'second')]);
    assert.deepEqual(messages, [A([call('x')]), SYN('x'), U('u'), A([call('x')]), R('x', 'second')]);
  });

  test('Ex 8: a displaced result moves back across frames to its one unresolved owner', () => {
    const input = [A([call('a')]), U('u1'), A([call('b')]), R('b'), A([call('c')]), R('c'), U('u2'), R('a', 'late')];
    const { messages, counts } = repair(input);
    assert.deepEqual(messages, [A([call('a')]), R('a', 'late'), U('u1'), A([call('b')]), R('b'), A([call('c')]), R('c'), U('u2')]);
    assert.deepEqual(counts, { moved: 1 });
  });

  test('Ex 9: an ambiguous displaced result is dropped and both owners get synthetic results', () => {
    const input = [A([call('a')]), U('u'), A([call('a'), call('b')]), R('b'), A([call('c')]), R('c'), R('a', 'late')];
    const { messages, counts } = repair(input);
    assert.deepEqual(messages, [A([call('a')]), SYN('a'), U('u'), A([call('a'), call('b')]), SYN('a'), R('b'), A([call('c')]), R('c')]);
    assert.equal(counts.orphansDropped, 1);
    assert.equal(counts.synthesized, 2);
  });

  test('Ex 10: a later real result replaces an earlier synthetic; an extra real duplicate is dropped', () => {
    const stored = { ...SYN('a'), timestamp: 5 };
    const { messages, counts } = repair([A([call('a'), call('b')]), stored, R('b', 'b1'), R('a', 'real'), R('b', 'b2')]);
    assert.deepEqual(messages, [A([call('a'), call('b')]), R('a', 'real'), R('b', 'b1')]);
    assert.equal(counts.duplicatesDropped, 2);
  });

  test('Ex 11: a failed frame is removed with its results, the rest stays', () => {
    const failed = A([{ type: 'text', text: 'partial' }, call('a'), call('b')], { stopReason: 'error' });
    const { messages } = repair([U('q'), failed, R('a'), U('retry')]);
    assert.deepEqual(messages, [U('q'), U('retry')]);
  });

  test('Ex 13: OpenAI Responses gets the Codex-style "aborted" output', () => {
    const assistant = A([call('call_1|fc_1'), call('call_2|fc_2')]);
    const { messages } = repair([assistant, R('call_2|fc_2'), U('next')], { missingResultText: RESPONSES_MISSING_TOOL_RESULT_TEXT });
    assert.deepEqual(messages, [assistant, SYN('call_1|fc_1', 'aborted'), R('call_2|fc_2'), U('next')]);
  });

  test('Ex 14: a legacy result without any id adopts the single call id and is forced isError:true', () => {
    const legacy: Message = { role: 'toolResult', toolName: ' read ', content: [{ type: 'text', text: 'x' }], isError: false };
    const { messages } = repair([A([call('a')]), legacy]);
    assert.deepEqual(messages, [A([call('a')]), { role: 'toolResult', toolName: 'read', content: [{ type: 'text', text: 'x' }], isError: true, toolCallId: 'a' }]);
    assert.deepEqual(Object.keys(messages[1]!), ['role', 'toolName', 'content', 'isError', 'toolCallId']);
  });
});

describe('edge cases', () => {
  test('results before any call are orphans; messages before the first frame stream through', () => {
    const { messages, counts } = repair([U('a'), R('x'), U('b')]);
    assert.deepEqual(messages, [U('a'), U('b')]);
    assert.equal(counts.orphansDropped, 1);
  });

  test('a result never moves forward: one before its call is an orphan and the call gets a synthetic', () => {
    const { messages } = repair([U('q'), A([call('z')]), R('z'), R('late'), A([call('late')])]);
    assert.deepEqual(messages, [U('q'), A([call('z')]), R('z'), A([call('late')]), SYN('late')]);
  });

  test('a legacy result is not adopted when the frame has two calls or the names differ', () => {
    const idless: Message = { role: 'toolResult', toolName: 'exec', content: [] };
    assert.deepEqual(repair([A([call('a'), call('b')]), idless]).messages, [A([call('a'), call('b')]), SYN('a'), SYN('b')]);
    assert.deepEqual(repair([A([call('a', 'read')]), idless]).messages, [A([call('a', 'read')]), SYN('a')]);
  });

  test("a failed frame's unanswered call makes a late result ambiguous (spec E1)", () => {
    const input = [A([call('a')]), U('u'), A([call('a')], { stopReason: 'aborted' }), U('v'), A([call('b')]), R('b'), R('a', 'late')];
    const { messages } = repair(input);
    assert.deepEqual(messages, [A([call('a')]), SYN('a'), U('u'), U('v'), A([call('b')]), R('b')]);
  });

  test('a synthetic result in the input is kept when no real result comes', () => {
    const stored = { ...SYN('a'), timestamp: 5 };
    assert.deepEqual(repair([A([call('a')]), stored, U('u')]).messages, [A([call('a')]), stored, U('u')]);
  });

  test('a displaced real result replaces an earlier frame\'s synthetic', () => {
    const stored = { ...SYN('a'), timestamp: 5 };
    const { messages, counts } = repair([A([call('a')]), stored, U('u'), A([call('b')]), R('b'), R('a', 'real')]);
    assert.deepEqual(messages, [A([call('a')]), R('a', 'real'), U('u'), A([call('b')]), R('b')]);
    assert.equal(counts.duplicatesDropped, 1);
    assert.equal(counts.moved, 1);
  });

  test('messages that need no repair are emitted as the same objects', () => {
    const input = [U('q'), A([call('a')]), R('a'), { role: 'assistant', content: [{ type: 'text', text: 'done' }] }];
    const out = repairToolResultPairing(input, { now }).messages;
    assert.equal(out.length, input.length);
    out.forEach((message, i) => assert.equal(message, input[i]));
  });
});

describe('bounded memory', () => {
  /** A long session whose first call is answered only at the very end, with noise frames in between. */
  function longSession(frames: number): Message[] {
    const out: Message[] = [U('start'), A([call('first')])];
    for (let i = 0; i < frames; i++) {
      out.push(U(`question ${i} ${'x'.repeat(200)}`), A([call(`c${i}`), call(`d${i}`)]), R(`d${i}`, `d ${i}`), R(`c${i}`, `c ${i}`));
      if (i % 97 === 0) out.push(R(`missing-${i}`));
    }
    out.push(R('first', 'finally'));
    return out;
  }

  test('a 1 KiB budget gives the same output as 1 GiB, spills, and leaves no file behind', () => {
    const before = new Set(readdirSync(tmpdir()));
    const input = longSession(2000);
    const large = repair(input, { memoryBudgetBytes: 1024 ** 3 });
    const small = repair(input, { memoryBudgetBytes: 1024 });
    assert.deepEqual(small.messages, large.messages);
    assert.equal(large.messages[2]!.content instanceof Array && (large.messages[2]!.content[0] as { text: string }).text, 'finally');
    assert.ok((small.counts.spilledEntries ?? 0) > 1000, `spilled ${small.counts.spilledEntries}`);
    assert.equal(large.counts.spilledEntries, undefined);
    const leftovers = readdirSync(tmpdir()).filter((name) => !before.has(name) && name.startsWith('transcript-hygiene-'));
    assert.deepEqual(leftovers, []);
  });

  /** Streams `input` through a pairing (with input lines and the index when given); returns the output, counts and the pairing. */
  function pairWith(input: Message[], resultIndex?: ResultIdIndex) {
    const counts: Record<string, number> = {};
    const out: Message[] = [];
    const pairing = new ToolResultPairing({
      missingResultText: MISSING_TOOL_RESULT_TEXT,
      memoryBudgetBytes: 1024 ** 3,
      now,
      count: (counter, n = 1) => void (counts[counter] = (counts[counter] ?? 0) + n),
      resultIndex,
    });
    const emit = (message: Message): void => void out.push(message);
    input.forEach((message, i) => {
      const copy = structuredClone(message);
      if (resultIndex !== undefined) recordInputLine(copy, i + 1);
      pairing.push(copy, emit);
    });
    pairing.end(emit);
    pairing.dispose();
    return { out, counts, pairing: pairing as unknown as { unresolvedById: Map<string, unknown>; failedUnresolvedById: Map<string, unknown> } };
  }

  /** Frames whose calls are all answered, after one failed frame whose calls never are. */
  const afterFailedFrame = (frames: number): Message[] => {
    const input: Message[] = [U('q'), A([call('lost-1'), call('lost-2')], { stopReason: 'error' })];
    for (let i = 0; i < frames; i++) input.push(U(`q${i}`), A([call(`c${i}`)]), R(`c${i}`));
    return input;
  };

  test("a closed failed frame's unanswered calls move out of the open calls' map, which empties again", () => {
    const { out, pairing } = pairWith(afterFailedFrame(50));
    assert.equal(out.length, 1 + 50 * 3);
    // Had they stayed, the map would never empty and would churn in the old generation for the whole run.
    assert.equal(pairing.unresolvedById.size, 0);
    assert.deepEqual([...pairing.failedUnresolvedById.keys()], ['lost-1', 'lost-2']);
  });

  test("a failed frame's unanswered call still claims a late result after it moved (spec E1, several frames on)", () => {
    const input = [A([call('a')]), U('u'), A([call('a')], { stopReason: 'aborted' }), ...afterFailedFrame(3).slice(2), R('a', 'late')];
    const { out, counts } = pairWith(input);
    assert.deepEqual(out.slice(0, 2), [A([call('a')]), SYN('a')]);
    assert.equal(counts.orphansDropped, 1);
    assert.equal(counts.moved, undefined);
    // With the failed frame's call the only owner left, the late result moves to it and leaves with its frame.
    const single = pairWith([A([call('a')], { stopReason: 'aborted' }), ...afterFailedFrame(3).slice(2), R('a', 'late')]);
    assert.equal(single.counts.moved, 1);
    assert.equal(single.out.some((message) => message.toolCallId === 'a'), false);
  });

  test('with a result index, a failed call that no later line answers is forgotten, and one that a later line answers is kept', () => {
    const input = [...afterFailedFrame(3), R('lost-2', 'late')];
    const index = new ResultIdIndex();
    input.forEach((message, i) => {
      if (message.role === 'toolResult') index.record(message.toolCallId as string, i + 1);
    });
    const { out, counts, pairing } = pairWith(input, index);
    assert.deepEqual([...pairing.failedUnresolvedById.keys()], []);
    assert.equal(counts.moved, 1);
    assert.equal(out.length, 1 + 3 * 3);
    const withoutIndex = pairWith(input);
    assert.deepEqual(withoutIndex.out, out);
    assert.deepEqual([...withoutIndex.pairing.failedUnresolvedById.keys()], ['lost-1']);
  });

  test('with everything answered, frames stream out and nothing is held', () => {
    const input: Message[] = [];
    for (let i = 0; i < 500; i++) input.push(U(`q${i}`), A([call(`c${i}`)]), R(`c${i}`));
    const { messages, counts } = repair(input, { memoryBudgetBytes: 1024 });
    assert.deepEqual(messages, input);
    assert.equal(counts.spilledEntries, undefined);
  });
});
