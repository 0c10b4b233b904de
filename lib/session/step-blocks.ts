/**
 * Int32 values that mostly step with their index (value = index + c), kept in 64K-value blocks
 * like growable.ts' Blocks, except that a block that has filled up is kept as its runs of one
 * step each (where each run starts, and its c) instead of as its 256 KiB array, when it has few.
 *
 * The session index has two such columns: the stored parent of each entry (entry i's parent is
 * the name of entry i - 1 when a session is appended to front to back) and the entry of each
 * name (names are made in file order, each entry's own as it is read). Both stand at the index
 * pass's end beside everything else, 8 bytes an entry (8 MB at 1M entries). As runs they take a
 * few KB for a session written in order: a name that is not an entry's (a `leaf` record's, a
 * parent never seen) moves every later name by one and starts a new run, and a branch or a name
 * with no entry is a run of one value between two.
 *
 * The block being filled is always an array. set() on a block kept as runs records the value off
 * them, and turns the block back into an array when too many are.
 */
import { BLOCK_SHIFT, lastAtMost, type Int32Column } from './growable.ts';

const BLOCK = 1 << BLOCK_SHIFT;
const MASK = BLOCK - 1;
/** Runs a block may have and still be kept as runs: 16 bytes each, 32 KiB at most against the array's 256. */
export const MAX_RUNS = 2048;
/** Values set off its runs a block kept as runs may have before it is an array again (a Map of 1,024 costs about 40 KiB). */
export const MAX_OFF_RUNS = 1024;

export class StepBlocks implements Int32Column {
  /** Per block: its array, or undefined when it is kept as runs or was released. */
  private readonly arrays: Array<Int32Array | undefined> = [];
  /** Per block kept as runs: where each run starts in the block, ascending from 0, and its value - index. */
  private readonly runStarts: Array<number[] | undefined> = [];
  private readonly runSteps: Array<number[] | undefined> = [];
  /** Per block kept as runs: values set off them since, by index. */
  private readonly offRuns: Array<Map<number, number> | undefined> = [];
  private released = 0;
  length = 0;

  /** @param fill the value of a slot that was pushed as that and never set (as Blocks' fill) */
  constructor(private readonly fill = 0) {}

  push(value: number): number {
    const index = this.length;
    const block = index >>> BLOCK_SHIFT;
    if (block === this.arrays.length) {
      // The array of a block kept as runs holds the next block: no garbage, and no second array at the pass's end.
      const freed = block > 0 ? this.settle(block - 1) : undefined;
      this.arrays.push(freed === undefined ? this.allocate() : freed.fill(this.fill));
      this.runStarts.push(undefined);
      this.runSteps.push(undefined);
      this.offRuns.push(undefined);
    }
    this.arrays[block]![index & MASK] = value;
    return this.length++;
  }

  get(index: number): number {
    const block = index >>> BLOCK_SHIFT;
    const array = this.arrays[block];
    if (array !== undefined) return array[index & MASK]!;
    const off = this.offRuns[block];
    if (off !== undefined) {
      const value = off.get(index);
      if (value !== undefined) return value;
    }
    return this.onRuns(block, index);
  }

  set(index: number, value: number): void {
    const block = index >>> BLOCK_SHIFT;
    const array = this.arrays[block];
    if (array !== undefined) {
      array[index & MASK] = value;
      return;
    }
    const onRuns = this.onRuns(block, index);
    let off = this.offRuns[block];
    if (value === onRuns) {
      off?.delete(index);
      return;
    }
    if (off === undefined) this.offRuns[block] = off = new Map();
    off.set(index, value);
    if (off.size > MAX_OFF_RUNS) this.unsettle(block);
  }

  /** Gives back every block wholly below `index` (see Blocks.releaseBefore); their values can no longer be read or written. */
  releaseBefore(index: number): void {
    const below = index >= this.length ? this.arrays.length : index >>> BLOCK_SHIFT;
    for (; this.released < below; this.released++) {
      this.arrays[this.released] = undefined;
      this.runStarts[this.released] = undefined;
      this.runSteps[this.released] = undefined;
      this.offRuns[this.released] = undefined;
    }
  }

  /** Bytes held: the arrays, 16 bytes a run and about 16 a value set off the runs. */
  get byteLength(): number {
    let bytes = 0;
    for (let block = 0; block < this.arrays.length; block++) {
      bytes += this.arrays[block]?.byteLength ?? ((this.runStarts[block]?.length ?? 0) + (this.offRuns[block]?.size ?? 0)) * 16;
    }
    return bytes;
  }

  /** Blocks kept as runs (for tests). */
  get blocksAsRuns(): number {
    let count = 0;
    for (const starts of this.runStarts) if (starts !== undefined) count++;
    return count;
  }

  /** The value the runs of a block give for an index. */
  private onRuns(block: number, index: number): number {
    const starts = this.runStarts[block];
    if (starts === undefined) throw new RangeError(`StepBlocks: index ${index} was released or never pushed`);
    const steps = this.runSteps[block]!;
    return index + steps[starts.length === 1 ? 0 : lastAtMost(starts, index & MASK)]!;
  }

  /** A full block: kept as its runs, if it has few; returns its array then. */
  private settle(block: number): Int32Array | undefined {
    const array = this.arrays[block];
    if (array === undefined) return undefined;
    const first = block * BLOCK;
    const starts: number[] = [];
    const steps: number[] = [];
    let previous = Number.NaN;
    for (let i = 0; i < BLOCK; i++) {
      const step = array[i]! - (first + i);
      if (step === previous) continue;
      if (starts.length === MAX_RUNS) return undefined;
      starts.push(i);
      steps.push(step);
      previous = step;
    }
    this.arrays[block] = undefined;
    this.runStarts[block] = starts;
    this.runSteps[block] = steps;
    return array;
  }

  /** Back to an array: too many values were set off the block's runs. */
  private unsettle(block: number): void {
    const first = block * BLOCK;
    const array = new Int32Array(BLOCK);
    for (let i = 0; i < BLOCK; i++) array[i] = this.onRuns(block, first + i);
    for (const [index, value] of this.offRuns[block] ?? []) array[index - first] = value;
    this.arrays[block] = array;
    this.runStarts[block] = undefined;
    this.runSteps[block] = undefined;
    this.offRuns[block] = undefined;
  }

  private allocate(): Int32Array {
    const array = new Int32Array(BLOCK);
    if (this.fill !== 0) array.fill(this.fill);
    return array;
  }
}
