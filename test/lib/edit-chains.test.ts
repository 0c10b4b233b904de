import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composedEdits } from '../../lib/edit-chains.ts';
import { recordEdits, removeBlock, setBlockField, setField } from '../../lib/message-edits.ts';
import { applySplices, splicesFor } from '../../lib/line-splice.ts';
import type { Message } from '../../lib/types.ts';

/** The composed edits applied to the root's line, which must be the final copy's JSON. */
function patched(message: Message): string | undefined {
  const composed = composedEdits(message);
  assert.ok(composed !== undefined, 'the chain should compose');
  const line = JSON.stringify(composed.root);
  const splices = splicesFor(line, composed.root, composed.edits);
  return splices === undefined ? undefined : applySplices(line, splices);
}

const assistant = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'a' },
    { type: 'toolCall', id: 'call-1', name: 'read', arguments: {} },
    { type: 'thinking', thinking: 'b' },
    { type: 'toolCall', id: 'call-2', name: 'bash', arguments: {} },
  ],
  timestamp: 1,
} as unknown as Message;

test('a tool result with details stripped, then its id rewritten: one scan gives the final copy', () => {
  const root = { role: 'toolResult', toolCallId: 'call|1', content: [{ type: 'text', text: 'ok' }], details: { diff: 'x' }, isError: false } as unknown as Message;
  const { details, ...rest } = root as unknown as Record<string, unknown>;
  const first = recordEdits(root, rest as unknown as Message, [setField('details', details, undefined)]);
  const second = recordEdits(first, { ...first, toolCallId: 'call1' } as Message, [setField('toolCallId', 'call|1', 'call1')]);
  const composed = composedEdits(second)!;
  assert.equal(composed.root, root);
  assert.equal(composed.edits.length, 2);
  assert.equal(patched(second), JSON.stringify(second));
});

test('a later block index is mapped past the blocks an earlier rule removed', () => {
  const content = assistant.content as unknown as Record<string, unknown>[];
  // Thinking dropped (blocks 0 and 2), then the second call's id (index 1 of the copy) rewritten.
  const first = recordEdits(assistant, { ...assistant, content: [content[1], content[3]] } as unknown as Message, [removeBlock(0, content[0]), removeBlock(2, content[2])]);
  const kept = first.content as unknown as Record<string, unknown>[];
  const second = recordEdits(first, { ...first, content: [kept[0], { ...kept[1], id: 'call2' }] } as unknown as Message, [setBlockField(1, 'id', 'call-2', 'call2')]);
  const composed = composedEdits(second)!;
  assert.ok(composed.edits.some((edit) => edit.kind === 'set-block-field' && edit.index === 3));
  assert.equal(patched(second), JSON.stringify(second));
});

test('a field set twice is one edit; a field set in a block removed later goes with the block', () => {
  const content = assistant.content as unknown as Record<string, unknown>[];
  const first = recordEdits(assistant, { ...assistant, content: [content[0], { ...content[1], id: 'x' }, content[2], content[3]], timestamp: 2 } as unknown as Message, [
    setBlockField(1, 'id', 'call-1', 'x'),
    setField('timestamp', 1, 2),
  ]);
  const firstContent = first.content as unknown as Record<string, unknown>[];
  const second = recordEdits(first, { ...first, content: [firstContent[0], firstContent[2], firstContent[3]], timestamp: 3 } as unknown as Message, [removeBlock(1, firstContent[1]), setField('timestamp', 2, 3)]);
  const composed = composedEdits(second)!;
  assert.deepEqual(
    composed.edits.map((edit) => edit.kind),
    ['set-field', 'remove-block'],
  );
  assert.equal(patched(second), JSON.stringify(second));
});

test('refused: a field removed and then set again (the copy holds it last), and content replaced whole', () => {
  const root = { role: 'user', content: 'hi', note: 'a', timestamp: 1 } as unknown as Message;
  const { note, ...rest } = root as unknown as Record<string, unknown>;
  const first = recordEdits(root, rest as unknown as Message, [setField('note', note, undefined)]);
  const second = recordEdits(first, { ...first, note: 'b' } as Message, [setField('note', undefined, 'b')]);
  assert.equal(composedEdits(second), undefined);
  const third = recordEdits(first, { ...first, content: 'there' } as Message, [setField('content', 'hi', 'there')]);
  assert.equal(composedEdits(third), undefined);
});

test('one derivation is returned as it is; none gives undefined; the walk stops where isRoot says', () => {
  const root = { role: 'user', content: 'hi', timestamp: 1 } as unknown as Message;
  assert.equal(composedEdits(root), undefined);
  const first = recordEdits(root, { ...root, timestamp: 2 } as Message, [setField('timestamp', 1, 2)]);
  const second = recordEdits(first, { ...first, timestamp: 3 } as Message, [setField('timestamp', 2, 3)]);
  assert.equal(composedEdits(first)!.root, root);
  const stopped = composedEdits(second, (message) => message === first)!;
  assert.equal(stopped.root, first);
  assert.deepEqual(stopped.edits, [setField('timestamp', 2, 3)]);
  assert.deepEqual(composedEdits(second)!.edits, [setField('timestamp', 1, 3)]);
});
