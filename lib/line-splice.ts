/**
 * Recorded edits (lib/message-edits.ts) applied to a message's JSON line as byte splices.
 *
 * A small string-aware scanner walks the line's top-level members and, when an edit needs it,
 * the elements of `content` and the members of one block. It never decodes a value: a string is
 * skipped by searching for its closing quote (indexOf, then counting the backslashes before it),
 * so a tool result's large text costs a search, not a walk. Each edit then becomes a splice at
 * the place the scan found:
 * - a field set: its value's text replaced by JSON.stringify of the new value; a field set to
 *   `undefined` (removed) is cut out with one adjacent comma;
 * - a field of a block set (an id mapped) or removed: the same, inside that block;
 * - a block removed: cut out with one adjacent comma (the one after it when a kept block
 *   follows, else the one before it), so a run of removals never shares a comma.
 *
 * On a line as JSON.stringify writes it, the result is byte for byte JSON.stringify of the copy
 * (test/differential/patched-lines.test.ts holds the two equal); on any other line it keeps that
 * line's own spacing. Undefined means "stringify instead": a field added (its place in the key
 * order is the copy's, not the line's), a key that occurs twice, a string whose text is not the
 * one recorded, or anything the scanner does not recognize.
 */
import type { Message } from './types.ts';
import type { MessageEdit } from './message-edits.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** A value's text: [start, end) in the line. */
interface Span {
  start: number;
  end: number;
}

/** One member of an object: where its key is and where its value is. */
interface Member extends Span {
  /** Where the key's opening quote is (a removal cuts from here). */
  keyStart: number;
  /** Just past the key's closing quote. */
  keyEnd: number;
  /** The key decoded, only when it holds an escape (any other key is its text between the quotes, compared in place). */
  escapedKey: string | undefined;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(s: string, i: number): number {
  while (isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** Just past the string whose opening quote is at `at`; -1 when it does not end. */
function skipString(s: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = s.indexOf('"', from);
    if (quote < 0) return -1;
    let b = quote - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    // An even number of backslashes before it: the quote is not escaped.
    if (((quote - 1 - b) & 1) === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the value that starts at `at` (no space before it); -1 when the text is not JSON the scanner knows. */
function skipValue(s: string, at: number): number {
  const c = s.charCodeAt(at);
  if (c === QUOTE) return skipString(s, at);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    let i = at;
    const n = s.length;
    while (i < n) {
      const d = s.charCodeAt(i);
      if (d === QUOTE) {
        i = skipString(s, i);
        if (i < 0) return -1;
        continue;
      }
      if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  const n = s.length;
  while (i < n) {
    const d = s.charCodeAt(i);
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
    i++;
  }
  return i > at ? i : -1;
}

/** The members of the object whose `{` is at `at`, in order; undefined when it is not an object the scanner knows. */
function membersOf(s: string, at: number): Member[] | undefined {
  if (s.charCodeAt(at) !== OPEN_BRACE) return undefined;
  const members: Member[] = [];
  let i = skipSpace(s, at + 1);
  if (s.charCodeAt(i) === CLOSE_BRACE) return members;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyStart = i;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0) return undefined;
    // No key string is made: keys are compared where they are (hasKey).
    const escapedKey = hasBackslash(s, keyStart + 1, keyEnd - 1) ? (JSON.parse(s.slice(keyStart, keyEnd)) as string) : undefined;
    i = skipSpace(s, keyEnd);
    if (s.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(s, i + 1);
    const end = skipValue(s, start);
    if (end < 0) return undefined;
    members.push({ keyStart, keyEnd, escapedKey, start, end });
    i = skipSpace(s, end);
    const c = s.charCodeAt(i);
    if (c === CLOSE_BRACE) return members;
    if (c !== COMMA) return undefined;
    i = skipSpace(s, i + 1);
  }
}

/** The elements of the array whose `[` is at `at`, in order; undefined when it is not an array the scanner knows. */
function elementsOf(s: string, at: number): Span[] | undefined {
  if (s.charCodeAt(at) !== OPEN_BRACKET) return undefined;
  const elements: Span[] = [];
  let i = skipSpace(s, at + 1);
  if (s.charCodeAt(i) === CLOSE_BRACKET) return elements;
  for (;;) {
    const end = skipValue(s, i);
    if (end < 0) return undefined;
    elements.push({ start: i, end });
    i = skipSpace(s, end);
    const c = s.charCodeAt(i);
    if (c === CLOSE_BRACKET) return elements;
    if (c !== COMMA) return undefined;
    i = skipSpace(s, i + 1);
  }
}

/** The one member named `key`; null when absent, undefined when it occurs more than once. */
function memberNamed(s: string, members: readonly Member[], key: string): Member | null | undefined {
  let found: Member | null = null;
  for (const member of members) {
    if (!hasKey(s, member, key)) continue;
    if (found !== null) return undefined;
    found = member;
  }
  return found;
}

/** Keys are short: a loop, not a search that could run on past the key. */
function hasBackslash(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

function hasKey(s: string, member: Member, key: string): boolean {
  if (member.escapedKey !== undefined) return member.escapedKey === key;
  return member.keyEnd - member.keyStart === key.length + 2 && s.startsWith(key, member.keyStart + 1);
}

/** A replacement of [start, end) of the line by `text`. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * The splices that remove the items at `removed` from a list (an array's elements, or an
 * object's members from their keys on), each run of them with one comma: the one after it when
 * an item follows, else the one before it.
 */
function removeRuns(items: readonly Span[], removed: ReadonlySet<number>, splices: Splice[]): void {
  for (let i = 0; i < items.length; ) {
    if (!removed.has(i)) {
      i++;
      continue;
    }
    let last = i;
    while (removed.has(last + 1)) last++;
    const next = items[last + 1];
    const previous = items[i - 1];
    if (next !== undefined) splices.push({ start: startOf(items[i]!), end: startOf(next), text: '' });
    else if (previous !== undefined) splices.push({ start: previous.end, end: items[last]!.end, text: '' });
    else splices.push({ start: startOf(items[i]!), end: items[last]!.end, text: '' });
    i = last + 1;
  }
}

/** Where removing an item cuts from: a member from its key on, an element from its start. */
function startOf(item: Span): number {
  return (item as Partial<Member>).keyStart ?? item.start;
}

function byStart(a: Splice, b: Splice): number {
  return a.start - b.start;
}

/** The spans of `original`'s content blocks in `line`, or undefined when they cannot be told apart. */
function contentBlockSpans(line: string, topMembers: readonly Member[], original: Message): Span[] | undefined {
  const content = memberNamed(line, topMembers, 'content');
  if (content === null || content === undefined) return undefined;
  const blocks = elementsOf(line, content.start);
  const expected = Array.isArray(original.content) ? original.content.length : -1;
  return blocks !== undefined && blocks.length === expected ? blocks : undefined;
}

/** Whether the value at `member` is `text` as JSON.stringify writes it. */
function holdsString(s: string, member: Span, text: string): boolean {
  // Without a backslash the text is written as it is, between quotes (a line that parsed holds no raw control characters).
  if (text.indexOf('\\') < 0 && member.end - member.start === text.length + 2 && s.charCodeAt(member.start) === QUOTE) {
    return s.startsWith(text, member.start + 1);
  }
  const written = JSON.stringify(text);
  return member.end - member.start === written.length && s.startsWith(written, member.start);
}

/** An object's members and which of them the edits remove. */
class ObjectEdits {
  removed: Set<number> | undefined;
  constructor(readonly members: Member[]) {}

  /**
   * Records the splice for one field set to `to` (removed when undefined); false when it cannot
   * be a splice.
   */
  set(s: string, field: string, from: unknown, to: unknown, splices: Splice[]): boolean {
    const member = memberNamed(s, this.members, field);
    if (member === undefined) return false;
    // An absent field removed is no change (JSON.stringify leaves out an undefined value); one added is not a splice.
    if (member === null) return to === undefined && from === undefined;
    // A recorded string must be the text the line holds (its escapes as JSON.stringify writes them).
    if (typeof from === 'string' && !holdsString(s, member, from)) return false;
    if (to === undefined) {
      (this.removed ??= new Set()).add(this.members.indexOf(member));
      return true;
    }
    const text = JSON.stringify(to) as string | undefined;
    if (text === undefined) return false;
    splices.push({ start: member.start, end: member.end, text });
    return true;
  }

  finish(splices: Splice[]): void {
    if (this.removed === undefined) return;
    removeRuns(this.members, this.removed, splices);
  }
}

/** `line` with `splices` (from splicesFor: in order, not overlapping) made. */
export function applySplices(line: string, splices: readonly Splice[]): string {
  if (splices.length === 0) return line;
  let out = '';
  let cursor = 0;
  for (const splice of splices) {
    out += line.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  return out + line.slice(cursor);
}

/**
 * The splices that make `edits` to `line`, in order and not overlapping (none: the line as it
 * is), or undefined when they cannot all be splices. A writer can then write the line's pieces
 * and the new texts without building the patched line (lib/jsonl.ts JsonlWriter).
 */
export function splicesFor(line: string, original: Message, edits: readonly MessageEdit[]): Splice[] | undefined {
  if (edits.length === 0) return undefined;
  const topMembers = membersOf(line, skipSpace(line, 0));
  if (topMembers === undefined) return undefined;
  const top = new ObjectEdits(topMembers);
  const splices: Splice[] = [];
  // Not closures: under tsx (the bench, the tests) every function made per call is also named per call.
  let blocks: Span[] | undefined;
  const blockEdits = new Map<number, ObjectEdits>();
  let removed: Set<number> | undefined;
  for (const edit of edits) {
    if (edit.kind === 'set-field') {
      if (!top.set(line, edit.field, edit.from, edit.to, splices)) return undefined;
      continue;
    }
    const spans = (blocks ??= contentBlockSpans(line, topMembers, original));
    if (spans === undefined || edit.index < 0 || edit.index >= spans.length) return undefined;
    if (edit.kind === 'remove-block') {
      (removed ??= new Set()).add(edit.index);
      continue;
    }
    let block = blockEdits.get(edit.index);
    if (block === undefined) {
      const members = membersOf(line, spans[edit.index]!.start);
      if (members === undefined) return undefined;
      block = new ObjectEdits(members);
      blockEdits.set(edit.index, block);
    }
    if (!block.set(line, edit.field, edit.from, edit.to, splices)) return undefined;
  }
  top.finish(splices);
  for (const block of blockEdits.values()) block.finish(splices);
  if (removed !== undefined) removeRuns(blocks!, removed, splices);
  splices.sort(byStart);
  let cursor = 0;
  for (const splice of splices) {
    if (splice.start < cursor) return undefined; // edits that overlap (a field of a removed block)
    cursor = splice.end;
  }
  return splices;
}
