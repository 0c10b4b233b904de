import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_CONTENT_PLACEHOLDER, dropBlankTextBlocks, dropBlankTextBlocksRule } from '../../transforms/drop-blank-text-blocks.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, fakeContext, image, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';

const SAME = Symbol('same object');
const PH = [{ type: 'text', text: '[empty content omitted]' }];

interface Case {
  name: string;
  input: Message;
  /** SAME: returned untouched; null: dropped. */
  expected: Message | null | typeof SAME;
}

const cases: Case[] = [
  // E9 (the tool results; the user and assistant turns are untouched).
  {
    name: 'E9 blank tool result text becomes the placeholder',
    input: { role: 'toolResult', toolCallId: 'call_a', toolName: 'read', content: [{ type: 'text', text: '  ' }], timestamp: 3 },
    expected: { role: 'toolResult', toolCallId: 'call_a', toolName: 'read', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 3 },
  },
  {
    name: 'E9 string tool result content is discarded',
    input: { role: 'toolResult', toolCallId: 'call_b', toolName: 'read', content: 'string result', timestamp: 4 },
    expected: { role: 'toolResult', toolCallId: 'call_b', toolName: 'read', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 4 },
  },
  // E10 (sanitizeSessionMessagesImages called directly), one case per message.
  {
    name: 'E10 user with one blank block gets the placeholder',
    input: { role: 'user', content: [{ type: 'text', text: ' ' }], timestamp: 1 },
    expected: { role: 'user', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 1 },
  },
  {
    name: 'E10 user with [] gets the placeholder',
    input: { role: 'user', content: [], timestamp: 2 },
    expected: { role: 'user', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 2 },
  },
  {
    name: 'E10 tool result with [] gets the placeholder',
    input: { role: 'toolResult', toolCallId: 'c', toolName: 'x', content: [], timestamp: 3 },
    expected: { role: 'toolResult', toolCallId: 'c', toolName: 'x', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 3 },
  },
  {
    name: 'E10 blank assistant is dropped',
    input: { role: 'assistant', content: [{ type: 'text', text: ' ' }], stopReason: 'stop', timestamp: 4 },
    expected: null,
  },
  {
    name: 'E10 blank assistant with providerReplay is kept with content []',
    input: { role: 'assistant', content: [{ type: 'text', text: ' ' }], stopReason: 'stop', timestamp: 5, providerReplay: { id: 'rs_1' } },
    expected: { role: 'assistant', content: [], stopReason: 'stop', timestamp: 5, providerReplay: { id: 'rs_1' } },
  },

  // toolResult.
  { name: 'toolResult without blank blocks is untouched', input: toolResult('c', [text('ok'), image()]), expected: SAME },
  { name: 'toolResult holding the placeholder text is untouched', input: toolResult('c', [text(EMPTY_CONTENT_PLACEHOLDER)]), expected: SAME },
  {
    name: 'toolResult blank blocks removed, others kept',
    input: toolResult('c', [text(''), text('ok'), text(' \n')], { isError: true, details: { x: 1 } }),
    expected: toolResult('c', [text('ok')], { isError: true, details: { x: 1 } }),
  },
  { name: 'toolResult with blank string content', input: toolResult('c', '   '), expected: toolResult('c', PH) },
  { name: 'toolResult with missing content', input: { role: 'toolResult', toolCallId: 'c' }, expected: { role: 'toolResult', toolCallId: 'c', content: PH } },
  { name: 'toolResult with object content', input: toolResult('c', { type: 'text', text: 'x' } as never), expected: toolResult('c', PH) },
  { name: 'toolResult with unicode-blank text', input: toolResult('c', [text('\u00a0\n')]), expected: toolResult('c', PH) },
  {
    name: 'toolResult: non-object entries, non-string text and unknown types are kept',
    input: toolResult('c', [null, 5, 'x', { type: 'text', text: 5 }, { type: 'text' }, text(' '), { type: 'weird' }] as never),
    expected: toolResult('c', [null, 5, 'x', { type: 'text', text: 5 }, { type: 'text' }, { type: 'weird' }] as never),
  },
  { name: 'toolResult: blank input_text is not a text block', input: toolResult('c', [{ type: 'input_text', text: ' ' }]), expected: SAME },
  { name: 'toolResult: a blank string entry is not a block', input: toolResult('c', [' '] as never), expected: SAME },

  // user.
  { name: 'user string is untouched', input: user('q'), expected: SAME },
  { name: 'blank user string is untouched (pass A owns it)', input: user('  '), expected: SAME },
  { name: 'user array without blank blocks is untouched', input: user([text('q'), image()]), expected: SAME },
  { name: 'user blank blocks removed', input: user([text('q'), text(' ')], { timestamp: 1 }), expected: user([text('q')], { timestamp: 1 }) },
  { name: 'user all blank gets the placeholder', input: user([text(' '), text('')]), expected: user(PH) },
  { name: 'user unknown block kept', input: user([{ type: 'image_url', url: 'u' }, text('')]), expected: user([{ type: 'image_url', url: 'u' }]) },
  { name: 'user missing content is untouched', input: { role: 'user' }, expected: SAME },

  // assistant.
  { name: 'assistant without blank blocks is untouched', input: assistant([text('a'), toolCall('c1')]), expected: SAME },
  { name: 'assistant blank text removed, thinking kept', input: assistant([text(' '), thinking('x', 'sig')]), expected: assistant([thinking('x', 'sig')]) },
  { name: 'assistant blank text removed, unknown block kept', input: assistant([{ type: 'weird' }, text('')]), expected: assistant([{ type: 'weird' }]) },
  { name: 'assistant null entry kept', input: assistant([null, text('')] as never), expected: assistant([null] as never) },
  { name: 'assistant [] without providerReplay is dropped', input: assistant([]), expected: null },
  { name: 'assistant [] with providerReplay is untouched', input: assistant([], { providerReplay: { id: 'rs' } }), expected: SAME },
  { name: 'assistant: falsy providerReplay 0 does not keep it', input: assistant([text(' ')], { providerReplay: 0 }), expected: null },
  { name: 'assistant: falsy providerReplay "" does not keep it', input: assistant([text(' ')], { providerReplay: '' }), expected: null },
  { name: 'assistant: truthy string providerReplay keeps it', input: assistant([text(' ')], { providerReplay: 'x' }), expected: assistant([], { providerReplay: 'x' }) },
  { name: 'assistant error turn emptied is dropped too', input: assistant([text(' ')], { stopReason: 'error' }), expected: null },
  { name: 'assistant string content is untouched', input: assistant(' '), expected: SAME },
  { name: 'assistant missing content is untouched', input: { role: 'assistant', stopReason: 'stop' }, expected: SAME },

  // Everything else.
  { name: 'unknown role with blank text is untouched', input: { role: 'custom', content: [text(' ')] }, expected: SAME },
  { name: 'compactionSummary with empty content is untouched', input: { role: 'compactionSummary', content: '' }, expected: SAME },
  { name: 'missing role is untouched', input: { content: [text(' ')] }, expected: SAME },
];

for (const c of cases) {
  test(`dropBlankTextBlocks: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = dropBlankTextBlocks(input);
    if (c.expected === SAME) assert.equal(out, input);
    else if (c.expected === null) assert.equal(out, null);
    else {
      assert.notEqual(out, input);
      assert.deepEqual(out, c.expected);
      assert.equal(dropBlankTextBlocks(out!), out, 'idempotent');
    }
  });
}

test('dropBlankTextBlocks: kept blocks keep their identity', () => {
  const ok = text('ok');
  const img = image();
  const out = dropBlankTextBlocks(deepFreeze(toolResult('c', [text(' '), ok, img])));
  assert.ok(out && Array.isArray(out.content));
  assert.equal(out.content[0], ok);
  assert.equal(out.content[1], img);
});

test('dropBlankTextBlocks: each placeholder is a fresh object', () => {
  const a = dropBlankTextBlocks(toolResult('a', []));
  const b = dropBlankTextBlocks(toolResult('b', []));
  assert.ok(a && b);
  assert.notEqual(a.content, b.content);
  assert.notEqual((a.content as unknown[])[0], (b.content as unknown[])[0]);
});

test('E9 whole transcript: user and assistant untouched, both results get the placeholder', () => {
  const input: Message[] = deepFreeze([
    { role: 'user', content: 'q', timestamp: 1 },
    {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 'call_a', name: 'read', arguments: {} },
        { type: 'toolCall', id: 'call_b', name: 'read', arguments: {} },
      ],
      stopReason: 'toolUse',
      timestamp: 2,
    },
    { role: 'toolResult', toolCallId: 'call_a', toolName: 'read', content: [{ type: 'text', text: '  ' }], timestamp: 3 },
    { role: 'toolResult', toolCallId: 'call_b', toolName: 'read', content: 'string result', timestamp: 4 },
  ]);
  const out = input.map((m) => dropBlankTextBlocks(m));
  assert.equal(out[0], input[0]);
  assert.equal(out[1], input[1]);
  assert.deepEqual(out, [
    { role: 'user', content: 'q', timestamp: 1 },
    {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 'call_a', name: 'read', arguments: {} },
        { type: 'toolCall', id: 'call_b', name: 'read', arguments: {} },
      ],
      stopReason: 'toolUse',
      timestamp: 2,
    },
    { role: 'toolResult', toolCallId: 'call_a', toolName: 'read', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 3 },
    { role: 'toolResult', toolCallId: 'call_b', toolName: 'read', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 4 },
  ]);
});

test('E10 whole list', () => {
  const input: Message[] = [
    { role: 'user', content: [{ type: 'text', text: ' ' }], timestamp: 1 },
    { role: 'user', content: [], timestamp: 2 },
    { role: 'toolResult', toolCallId: 'c', toolName: 'x', content: [], timestamp: 3 },
    { role: 'assistant', content: [{ type: 'text', text: ' ' }], stopReason: 'stop', timestamp: 4 },
    { role: 'assistant', content: [{ type: 'text', text: ' ' }], stopReason: 'stop', timestamp: 5, providerReplay: { id: 'rs_1' } },
  ];
  const out = deepFreeze(input).map((m) => dropBlankTextBlocks(m)).filter((m) => m !== null);
  assert.deepEqual(out, [
    { role: 'user', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 1 },
    { role: 'user', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 2 },
    { role: 'toolResult', toolCallId: 'c', toolName: 'x', content: [{ type: 'text', text: '[empty content omitted]' }], timestamp: 3 },
    { role: 'assistant', content: [], stopReason: 'stop', timestamp: 5, providerReplay: { id: 'rs_1' } },
  ]);
});

test('rule: meta', () => {
  assert.equal(dropBlankTextBlocksRule.unit, 'message');
  assert.equal(dropBlankTextBlocksRule.meta.name, 'drop-blank-text-blocks');
  assert.deepEqual(dropBlankTextBlocksRule.meta.counters, ['droppedBlocks', 'placeholders', 'droppedTurns']);
});

const ruleCases: { name: string; input: Message; counts: Record<string, number>; result: 'same' | 'null' | 'changed' }[] = [
  { name: 'untouched: no count', input: toolResult('c', [text('ok')]), counts: {}, result: 'same' },
  { name: 'blank blocks removed', input: user([text(' '), text('q'), text('')]), counts: { droppedBlocks: 2 }, result: 'changed' },
  { name: 'emptied tool result', input: toolResult('c', [text(' '), text('')]), counts: { droppedBlocks: 2, placeholders: 1 }, result: 'changed' },
  { name: 'string tool result', input: toolResult('c', 'text'), counts: { placeholders: 1 }, result: 'changed' },
  { name: 'empty tool result', input: toolResult('c', []), counts: { placeholders: 1 }, result: 'changed' },
  { name: 'emptied assistant dropped', input: assistant([text(' ')]), counts: { droppedTurns: 1 }, result: 'null' },
  { name: 'emptied assistant with providerReplay', input: assistant([text(' ')], { providerReplay: true }), counts: { droppedBlocks: 1 }, result: 'changed' },
];

for (const c of ruleCases) {
  test(`rule: ${c.name}`, () => {
    const ctx = fakeContext();
    const input = deepFreeze(structuredClone(c.input));
    const out = dropBlankTextBlocksRule.apply(input, ctx);
    if (c.result === 'same') assert.equal(out, input);
    else if (c.result === 'null') assert.equal(out, null);
    else assert.deepEqual(out, dropBlankTextBlocks(input));
    assert.deepEqual(ctx.counts, c.counts);
  });
}

test('rule: counters do not leak between calls', () => {
  const ctx = fakeContext();
  dropBlankTextBlocksRule.apply(toolResult('c', [text(' ')]), ctx);
  dropBlankTextBlocksRule.apply(toolResult('c', [text('ok')]), ctx);
  dropBlankTextBlocksRule.apply(user([text(' '), text('x')]), ctx);
  assert.deepEqual(ctx.counts, { droppedBlocks: 2, placeholders: 1 });
});
