/**
 * How a rule says what it changed in a message, without knowing how messages are written.
 *
 * A rule that returns an edited copy may record, against the copy, the original it came from
 * and the edits that turn one into the other: a top-level field set or removed, a field of a
 * content block set (an id mapped), a content block removed. It must record every difference or none.
 * The output side (lib/jsonl.ts) reads the record and decides: when the original still has its
 * input line it patches those bytes (byte splices located by lib/line-splice.ts), otherwise (or when an edit cannot be patched) it
 * stringifies the copy. A copy with no record is always stringified; recording is never
 * required for correctness, only for speed.
 *
 * A record is a hidden field of the copy (lib/hidden-field.ts), so it goes when the copy does and
 * neither JSON.stringify nor a spread (`{ ...copy }`) carries it. Not a WeakMap: V8's young-
 * generation collector keeps the values of WeakMap entries alive (here the original message
 * and its line), so with a WeakMap every edited message and its original were promoted to the
 * old generation: 40% of all allocation on a mixed-provider session, and a quarter of the run
 * spent collecting it.
 */
import type { Message } from './types.ts';
import { hiddenField } from './hidden-field.ts';

/** One change from the original to the copy. Block indexes are positions in the original's `content`. */
export type MessageEdit =
  | { readonly kind: 'set-field'; readonly field: string; readonly from: unknown; readonly to: unknown }
  | { readonly kind: 'set-block-field'; readonly index: number; readonly field: string; readonly from: unknown; readonly to: unknown }
  | { readonly kind: 'remove-block'; readonly index: number; readonly block: unknown };

/** The copy is `from` with `edits` applied (in any order: they never touch the same value). */
export interface Derivation {
  readonly from: Message;
  readonly edits: readonly MessageEdit[];
}

const DERIVATION = hiddenField<Derivation>();

/** A top-level field of the message set from `from` (undefined when it was absent) to `to` (undefined: the field removed). */
export function setField(field: string, from: unknown, to: unknown): MessageEdit {
  return { kind: 'set-field', field, from, to };
}

/** A field of the content block at `index` set (a call id mapped, for one); `to` undefined removes it. */
export function setBlockField(index: number, field: string, from: unknown, to: unknown): MessageEdit {
  return { kind: 'set-block-field', index, field, from, to };
}

/** The content block at `index` (whose value was `block`) removed. */
export function removeBlock(index: number, block: unknown): MessageEdit {
  return { kind: 'remove-block', index, block };
}

/**
 * Records that `edited` is `original` with exactly `edits` applied and nothing else changed.
 * Returns `edited`, so a rule can `return recordEdits(message, copy, edits)`.
 */
export function recordEdits<T extends Message>(original: Message, edited: T, edits: readonly MessageEdit[]): T {
  if (edits.length > 0 && edited !== original) {
    const derivation: Derivation = { from: original, edits };
    DERIVATION.set(edited, derivation);
  }
  return edited;
}

/** What the rule that made `message` recorded about it, if anything. */
export function derivationOf(message: Message): Derivation | undefined {
  return DERIVATION.get(message);
}
