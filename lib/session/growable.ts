/**
 * Typed arrays that grow in fixed blocks: the session index keeps a few numbers per entry in
 * these instead of one object per entry (spec/session-file.md §12.1). Blocks, not one array
 * that doubles: growing never copies, and there is no doubling slack (measured on a 1M-entry
 * index: 23 bytes an entry against up to 2.5 times that with doubling and its copies).
 */
type TypedArray = Int32Array | Uint32Array | Float64Array | Uint8Array;

/** Values a block holds: 2^16. */
export const BLOCK_SHIFT = 16;
const SHIFT = BLOCK_SHIFT;
const BLOCK = 1 << SHIFT;
const MASK = BLOCK - 1;

/** A column of int32 values by index, however it is kept (Blocks<Int32Array>, or step-blocks.ts' StepBlocks). */
export interface Int32Column {
  readonly length: number;
  push(value: number): number;
  get(index: number): number;
  set(index: number, value: number): void;
  releaseBefore(index: number): void;
  readonly byteLength: number;
}

export class Blocks<T extends TypedArray> {
  /** Undefined below `released`: blocks given back by releaseBefore. */
  private readonly blocks: Array<T | undefined> = [];
  private released = 0;
  length = 0;

  constructor(
    private readonly make: (size: number) => T,
    private readonly fill = 0,
  ) {}

  push(value: number): number {
    const index = this.length;
    const block = index >>> SHIFT;
    if (block === this.blocks.length) this.blocks.push(this.allocate());
    this.blocks[block]![index & MASK] = value;
    return this.length++;
  }

  get(index: number): number {
    return this.blocks[index >>> SHIFT]![index & MASK]!;
  }

  set(index: number, value: number): void {
    this.blocks[index >>> SHIFT]![index & MASK] = value;
  }

  /** Makes `index` addressable (new slots hold the fill value). */
  reserve(index: number): void {
    while (this.blocks.length <= index >>> SHIFT) this.blocks.push(this.allocate());
    if (index >= this.length) this.length = index + 1;
  }

  /**
   * Gives back every block that holds only indices below `index`, for a walk that never goes
   * back (the read plan's, which would otherwise hold about 4 bytes an entry to its end). Their
   * indices can no longer be read or written.
   */
  releaseBefore(index: number): void {
    const below = index >= this.length ? this.blocks.length : index >>> SHIFT;
    for (; this.released < below; this.released++) this.blocks[this.released] = undefined;
  }

  /** Bytes held. */
  get byteLength(): number {
    let bytes = 0;
    for (const block of this.blocks) bytes += block?.byteLength ?? 0;
    return bytes;
  }

  private allocate(): T {
    const array = this.make(BLOCK);
    if (this.fill !== 0) array.fill(this.fill);
    return array;
  }
}

export const int32s = (fill = 0): Blocks<Int32Array> => new Blocks((n) => new Int32Array(n), fill);
export const uint32s = (): Blocks<Uint32Array> => new Blocks((n) => new Uint32Array(n));
export const float64s = (): Blocks<Float64Array> => new Blocks((n) => new Float64Array(n));
export const uint8s = (): Blocks<Uint8Array> => new Blocks((n) => new Uint8Array(n));

const HIGH = 2 ** 32;

/** The position of the last of the ascending `sorted` that is at most `value` (0 when none is). */
export function lastAtMost(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (sorted[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Byte offsets (whole numbers up to 2^53): the low 32 bits in 4-byte blocks, and the high part
 * only where it changes from one push to the next, which for a file read front to back is once
 * every 4 GiB. 4 bytes an entry, not a Float64Array's 8 (4 MiB at 1M entries).
 */
export class OffsetBlocks {
  private readonly low = uint32s();
  /** Indices where the high part changes, and its value from there on. */
  private readonly changedAt: number[] = [0];
  private readonly highs: number[] = [0];

  get length(): number {
    return this.low.length;
  }

  push(value: number): number {
    const high = Math.floor(value / HIGH);
    const index = this.low.push(value - high * HIGH);
    if (high !== this.highs[this.highs.length - 1]) {
      this.changedAt.push(index);
      this.highs.push(high);
    }
    return index;
  }

  get(index: number): number {
    let at = this.changedAt.length - 1;
    // Nearly always the first or the last change: a short walk back, not a search.
    while (this.changedAt[at]! > index) at--;
    return this.highs[at]! * HIGH + this.low.get(index);
  }

  /** As Blocks.releaseBefore: the offsets below `index` can no longer be read. */
  releaseBefore(index: number): void {
    this.low.releaseBefore(index);
  }

  /** Bytes held. */
  get byteLength(): number {
    return this.low.byteLength + this.changedAt.length * 16;
  }
}

/**
 * Numbers that are pushed in increasing order and mostly step with the index (a session's line
 * number per entry: entry i is on line i + c, with c changing only at a header, a blank or torn
 * line, a line that makes no entry). Kept as the points where `value - index` changes: a few
 * numbers for a whole file, where a block per 65,536 entries took 4 bytes an entry (4 MiB at 1M
 * entries, at the index pass's peak). Exact for any input; a file where every line breaks the
 * step costs two numbers per change.
 */
export class SteppedNumbers {
  /** Indices where the step changes, and `value - index` from there on. */
  private readonly changedAt: number[] = [];
  private readonly offsets: number[] = [];
  length = 0;

  push(value: number): number {
    const index = this.length++;
    const offset = value - index;
    if (this.offsets.length === 0 || this.offsets[this.offsets.length - 1] !== offset) {
      this.changedAt.push(index);
      this.offsets.push(offset);
    }
    return index;
  }

  get(index: number): number {
    return index + this.offsets[lastAtMost(this.changedAt, index)]!;
  }

  /** Bytes held (about). */
  get byteLength(): number {
    return this.changedAt.length * 16;
  }
}
