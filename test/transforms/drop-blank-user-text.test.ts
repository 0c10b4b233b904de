import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropBlankUserText, dropBlankUserTextRule, hasPersistedMediaFacts, isBlankTextBlock } from '../../transforms/drop-blank-user-text.ts';
import { dropBlankTextBlocks } from '../../transforms/drop-blank-text-blocks.ts';
import { annotateInterSessionProvenance } from '../../transforms/annotate-inter-session-provenance.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, fakeContext, image, text, toolResult, user } from '../helpers/build.ts';

const SAME = Symbol('same object');
const MEDIA = { __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } };

interface Case {
  name: string;
  input: Message;
  /** SAME: returned untouched; null: dropped. */
  expected: Message | null | typeof SAME;
}

const cases: Case[] = [
  {
    name: 'E11 blank user with media facts keeps content ""',
    input: { role: 'user', content: [{ type: 'text', text: '  ' }], timestamp: 1, __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } },
    expected: { role: 'user', content: '', timestamp: 1, __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } },
  },

  // String content.
  { name: 'non-blank string is untouched', input: user('q'), expected: SAME },
  { name: 'padded string is untouched (not trimmed)', input: user('  q  '), expected: SAME },
  { name: 'blank string is dropped', input: user('  '), expected: null },
  { name: 'empty string is dropped', input: user(''), expected: null },
  { name: 'newlines and tabs are blank', input: user('\n\t\r\n'), expected: null },
  { name: 'unicode whitespace is blank (JS trim)', input: user('\u00a0\u2003\ufeff'), expected: null },
  { name: 'blank string with media facts is kept verbatim', input: user('  ', MEDIA), expected: SAME },
  { name: 'E23 user text with runtime-context delimiters is untouched', input: user('q <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> stays in user turns', { timestamp: 1 }), expected: SAME },

  // Array content.
  { name: 'array without blank blocks is untouched', input: user([text('a'), image()]), expected: SAME },
  {
    name: 'blank text blocks are removed, others kept in order',
    input: user([text(' '), text('a'), text(''), image(), text('\n')], { timestamp: 3 }),
    expected: user([text('a'), image()], { timestamp: 3 }),
  },
  { name: 'all blank is dropped', input: user([text(' '), text('\n')]), expected: null },
  { name: 'empty array is dropped', input: user([]), expected: null },
  { name: 'empty array with media facts becomes ""', input: user([], MEDIA), expected: user('', MEDIA) },
  { name: 'all blank with media facts becomes ""', input: user([text(' '), text('')], MEDIA), expected: user('', MEDIA) },
  { name: 'partly blank with media facts keeps the array', input: user([text(' '), image()], MEDIA), expected: user([image()], MEDIA) },
  {
    name: 'non-string text, missing text and non-object entries are kept',
    input: user([null, 5, 'x', { type: 'text', text: 5 }, { type: 'text' }, { type: 'text', text: ' ' }] as never),
    expected: user([null, 5, 'x', { type: 'text', text: 5 }, { type: 'text' }] as never),
  },
  { name: 'blank input_text is not a text block', input: user([{ type: 'input_text', text: ' ' }]), expected: SAME },
  { name: 'a blank string entry is not a block', input: user([' '] as never), expected: SAME },
  {
    name: 'unknown block types are kept',
    input: user([{ type: 'image_url', url: 'x' }, text('')]),
    expected: user([{ type: 'image_url', url: 'x' }]),
  },
  {
    name: 'other fields survive the copy',
    input: user([text(''), text('k')], { timestamp: 9, provenance: { kind: 'inter_session' }, idempotencyKey: 'k1' }),
    expected: user([text('k')], { timestamp: 9, provenance: { kind: 'inter_session' }, idempotencyKey: 'k1' }),
  },

  // Other content shapes.
  { name: 'object content is untouched', input: user({ type: 'text', text: ' ' } as never), expected: SAME },
  { name: 'missing content is untouched', input: { role: 'user', timestamp: 1 }, expected: SAME },
  { name: 'number content is untouched', input: user(5 as never), expected: SAME },

  // Other roles.
  { name: 'assistant with blank text is untouched', input: assistant([text(' ')]), expected: SAME },
  { name: 'assistant with blank string is untouched', input: assistant(' '), expected: SAME },
  { name: 'toolResult with blank text is untouched', input: toolResult('c', [text(' ')]), expected: SAME },
  { name: 'toolResult with blank string is untouched', input: toolResult('c', ''), expected: SAME },
  { name: 'unknown role is untouched', input: { role: 'custom', content: ' ' }, expected: SAME },
  { name: 'missing role is untouched', input: { content: ' ' }, expected: SAME },
];

for (const c of cases) {
  test(`dropBlankUserText: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = dropBlankUserText(input);
    if (c.expected === SAME) assert.equal(out, input);
    else if (c.expected === null) assert.equal(out, null);
    else {
      assert.notEqual(out, input);
      assert.deepEqual(out, c.expected);
      assert.equal(dropBlankUserText(out!), out, 'idempotent');
    }
  });
}

test('dropBlankUserText: kept blocks keep their identity', () => {
  const a = text('a');
  const img = image();
  const out = dropBlankUserText(deepFreeze(user([a, text(' '), img])));
  assert.ok(out && Array.isArray(out.content));
  assert.equal(out.content[0], a);
  assert.equal(out.content[1], img);
});

const mediaCases: { name: string; media: unknown; expected: boolean }[] = [
  { name: 'path', media: [{ path: 'media/a.png' }], expected: true },
  { name: 'padded path', media: [{ path: ' a ' }], expected: true },
  { name: 'url', media: [{ url: 'http://x' }], expected: true },
  { name: 'contentType', media: [{ contentType: 'image/png' }], expected: true },
  { name: 'kind image', media: [{ kind: 'image' }], expected: true },
  { name: 'kind that is a truthy non-string', media: [{ kind: 5 }], expected: true },
  { name: 'kind blank but non-empty', media: [{ kind: ' ' }], expected: true },
  { name: 'kind unknown', media: [{ kind: 'unknown' }], expected: false },
  { name: 'kind empty', media: [{ kind: '' }], expected: false },
  { name: 'kind null', media: [{ kind: null }], expected: false },
  { name: 'kind 0', media: [{ kind: 0 }], expected: false },
  { name: 'kind false', media: [{ kind: false }], expected: false },
  { name: 'blank path and empty url', media: [{ path: '  ' }, { url: '' }], expected: false },
  { name: 'non-string path', media: [{ path: 5 }], expected: false },
  { name: 'object url', media: [{ url: {} }], expected: false },
  { name: 'blank contentType', media: [{ contentType: ' ' }], expected: false },
  { name: 'non-string contentType', media: [{ contentType: true }], expected: false },
  { name: 'entry with no facts', media: [{ other: 1 }], expected: false },
  { name: 'null and string entries', media: [null, 'a/b.png'], expected: false },
  { name: 'second entry has facts', media: [{ kind: 'unknown' }, { path: 'p' }], expected: true },
  { name: 'empty array', media: [], expected: false },
  { name: 'media object instead of array', media: { path: 'a' }, expected: false },
];

for (const c of mediaCases) {
  test(`hasPersistedMediaFacts: ${c.name}`, () => {
    assert.equal(hasPersistedMediaFacts(user(' ', { __openclaw: { media: c.media } })), c.expected);
  });
}

test('hasPersistedMediaFacts: no __openclaw, or not an object', () => {
  assert.equal(hasPersistedMediaFacts(user(' ')), false);
  assert.equal(hasPersistedMediaFacts(user(' ', { __openclaw: 'x' })), false);
  assert.equal(hasPersistedMediaFacts(user(' ', { __openclaw: null })), false);
  assert.equal(hasPersistedMediaFacts(user(' ', { __openclaw: [] })), false);
});

test('isBlankTextBlock', () => {
  assert.equal(isBlankTextBlock(text(' ')), true);
  assert.equal(isBlankTextBlock(text('')), true);
  assert.equal(isBlankTextBlock(text('x')), false);
  assert.equal(isBlankTextBlock({ type: 'text' }), false);
  assert.equal(isBlankTextBlock({ type: 'output_text', text: ' ' }), false);
  assert.equal(isBlankTextBlock(' '), false);
  assert.equal(isBlankTextBlock(null), false);
});

test('E8 user and assistant blanks through annotation, pass A and pass B', () => {
  const input: Message[] = [
    { role: 'user', content: 'q', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'text', text: '  ' }], stopReason: 'stop', timestamp: 2 },
    { role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: '\n' }], timestamp: 3 },
    { role: 'user', content: '  ', timestamp: 4 },
    { role: 'assistant', content: [{ type: 'text', text: '' }, { type: 'text', text: 'real' }], stopReason: 'stop', timestamp: 5 },
  ];
  const out: Message[] = [];
  for (const m of deepFreeze(input)) {
    const a = dropBlankUserText(annotateInterSessionProvenance(m));
    const b = a && dropBlankTextBlocks(a);
    if (b) out.push(b);
  }
  assert.deepEqual(out, [
    { role: 'user', content: 'q', timestamp: 1 },
    { role: 'assistant', content: [{ type: 'text', text: 'real' }], stopReason: 'stop', timestamp: 5 },
  ]);
});

test('E11 end to end: pass B leaves the media-only turn alone', () => {
  const input: Message[] = deepFreeze([
    { role: 'user', content: [{ type: 'text', text: '  ' }], timestamp: 1, __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } },
    { role: 'assistant', content: [{ type: 'text', text: 'nice pic' }], stopReason: 'stop', timestamp: 2 },
  ]);
  const out = input.map((m) => {
    const a = dropBlankUserText(m);
    return a && dropBlankTextBlocks(a);
  });
  assert.deepEqual(out, [
    { role: 'user', content: '', timestamp: 1, __openclaw: { media: [{ path: 'media/a.png', contentType: 'image/png' }] } },
    { role: 'assistant', content: [{ type: 'text', text: 'nice pic' }], stopReason: 'stop', timestamp: 2 },
  ]);
  assert.equal(out[1], input[1]);
});

test('rule: meta', () => {
  assert.equal(dropBlankUserTextRule.unit, 'message');
  assert.equal(dropBlankUserTextRule.meta.name, 'drop-blank-user-text');
  assert.deepEqual(dropBlankUserTextRule.meta.counters, ['droppedTurns', 'droppedBlocks']);
});

const ruleCases: { name: string; input: Message; counts: Record<string, number>; result: 'same' | 'null' | 'changed' }[] = [
  { name: 'untouched: no count', input: user('q'), counts: {}, result: 'same' },
  { name: 'blank string dropped', input: user(' '), counts: { droppedTurns: 1 }, result: 'null' },
  { name: 'all-blank array dropped (blocks not counted)', input: user([text(' '), text('')]), counts: { droppedTurns: 1 }, result: 'null' },
  { name: 'two blank blocks removed', input: user([text(' '), text('a'), text('')]), counts: { droppedBlocks: 2 }, result: 'changed' },
  { name: 'all blank with media: blocks counted', input: user([text(' '), text('')], MEDIA), counts: { droppedBlocks: 2 }, result: 'changed' },
  { name: 'empty array with media: changed, nothing counted', input: user([], MEDIA), counts: {}, result: 'changed' },
  { name: 'assistant: untouched', input: assistant([text(' ')]), counts: {}, result: 'same' },
];

for (const c of ruleCases) {
  test(`rule: ${c.name}`, () => {
    const ctx = fakeContext();
    const input = deepFreeze(structuredClone(c.input));
    const out = dropBlankUserTextRule.apply(input, ctx);
    if (c.result === 'same') assert.equal(out, input);
    else if (c.result === 'null') assert.equal(out, null);
    else assert.deepEqual(out, dropBlankUserText(input));
    assert.deepEqual(ctx.counts, c.counts);
  });
}
