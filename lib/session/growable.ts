/**
 * Typed arrays that grow in fixed blocks: the session index keeps a few numbers per entry in
 * these instead of one object per entry (spec/session-file.md §12.1). Blocks, not one array
 * that doubles: growing never copies, and there is no doubling slack (measured on a 1M-entry
 * index: 23 bytes an entry against up to 2.5 times that with doubling and its copies).
 */
type TypedArray = Int32Array | Uint32Array | Float64Array | Uint8Array;

const SHIFT = 16;
const BLOCK = 1 << SHIFT;
const MASK = BLOCK - 1;

export class Blocks<T extends TypedArray> {
  private readonly blocks: T[] = [];
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

  /** Bytes held. */
  get byteLength(): number {
    let bytes = 0;
    for (const block of this.blocks) bytes += block.byteLength;
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

  /** Bytes held. */
  get byteLength(): number {
    return this.low.byteLength + this.changedAt.length * 16;
  }
}
