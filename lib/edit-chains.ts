/**
 * One list of edits for a message that several rules edited in turn.
 *
 * A copy made from a copy records its edits against the copy before it (lib/message-edits.ts):
 * a tool result whose `details` one rule stripped and whose `toolCallId` another rewrote is two
 * derivations deep, and patching them one at a time scans and rebuilds the line twice (on the
 * bench's mixed workload, 30% of patched lines). Composed here into edits against the first
 * message, the line is scanned once.
 *
 * The composition is exact or refused (undefined: the caller then patches step by step):
 * - a later block index is mapped back past the blocks earlier edits removed;
 * - a field set twice becomes one edit from the first value to the last;
 * - a field set in a block that a later edit removes is dropped with the block;
 * - refused: an edit of `content` as a whole, and a field set again after an earlier edit
 *   removed it (the copy then holds it last, where a splice would keep it in place).
 */
import { derivationOf, removeBlock, setBlockField, setField, type MessageEdit } from './message-edits.ts';
import type { Message } from './types.ts';

export interface ComposedEdits {
  /** The first message of the chain (no derivation of its own). */
  readonly root: Message;
  readonly edits: readonly MessageEdit[];
}

/**
 * The derivations behind `message` as one list of edits against their first message, or against
 * the first one `isRoot` accepts on the way; undefined when it has no derivation or they do not
 * compose.
 */
export function composedEdits(message: Message, isRoot: (message: Message) => boolean = () => false): ComposedEdits | undefined {
  const chain: (readonly MessageEdit[])[] = [];
  let root = message;
  for (let derivation = derivationOf(root); derivation !== undefined && (root === message || !isRoot(root)); derivation = derivationOf(root)) {
    chain.push(derivation.edits);
    root = derivation.from;
  }
  if (chain.length === 0) return undefined;
  if (chain.length === 1) return { root, edits: chain[0]! };
  const composer = new Composer();
  for (let i = chain.length - 1; i >= 0; i--) if (!composer.add(chain[i]!)) return undefined;
  return { root, edits: composer.edits() };
}

class Composer {
  /** Top-level fields: the value in the root, and the value now. */
  private readonly fields = new Map<string, { from: unknown; to: unknown }>();
  /** Block fields by the block's index in the root, then by field. */
  private readonly blockFields = new Map<number, Map<string, { from: unknown; to: unknown }>>();
  /** Root indexes of the blocks removed, ascending. */
  private readonly removed: number[] = [];
  private readonly removedBlocks = new Map<number, unknown>();

  /** Adds one derivation's edits (against the copy the edits so far make); false when they do not compose. */
  add(edits: readonly MessageEdit[]): boolean {
    // Indexes of one derivation all refer to the copy before it: map them before recording its removals.
    const removals: number[] = [];
    for (const edit of edits) {
      if (edit.kind === 'set-field') {
        if (edit.field === 'content') return false;
        if (!compose(this.fields, edit.field, edit.from, edit.to)) return false;
        continue;
      }
      if (this.fields.has('content')) return false;
      const index = this.rootIndex(edit.index);
      if (edit.kind === 'remove-block') {
        removals.push(index);
        this.removedBlocks.set(index, edit.block);
        continue;
      }
      let fields = this.blockFields.get(index);
      if (fields === undefined) this.blockFields.set(index, (fields = new Map()));
      if (!compose(fields, edit.field, edit.from, edit.to)) return false;
    }
    for (const index of removals) {
      this.blockFields.delete(index);
      this.removed.splice(insertionPoint(this.removed, index), 0, index);
    }
    return true;
  }

  edits(): MessageEdit[] {
    const out: MessageEdit[] = [];
    for (const [field, { from, to }] of this.fields) out.push(setField(field, from, to));
    for (const [index, fields] of this.blockFields) for (const [field, { from, to }] of fields) out.push(setBlockField(index, field, from, to));
    for (const index of this.removed) out.push(removeBlock(index, this.removedBlocks.get(index)));
    return out;
  }

  /** The root index of the block at `index` of the current copy (the index-th block not removed). */
  private rootIndex(index: number): number {
    let root = index;
    for (const gone of this.removed) {
      if (gone <= root) root++;
      else break;
    }
    return root;
  }
}

/** Records a field set from `from` to `to` on top of what `fields` holds; false when that is not one splice. */
function compose(fields: Map<string, { from: unknown; to: unknown }>, field: string, from: unknown, to: unknown): boolean {
  const earlier = fields.get(field);
  if (earlier === undefined) {
    fields.set(field, { from, to });
    return true;
  }
  // Removed, then set again: the copy holds the field last, not where the line has it.
  if (earlier.to === undefined && to !== undefined) return false;
  earlier.to = to;
  return true;
}

/** Where `value` goes in the ascending `sorted`. */
function insertionPoint(sorted: readonly number[], value: number): number {
  let at = 0;
  while (at < sorted.length && sorted[at]! < value) at++;
  return at;
}
