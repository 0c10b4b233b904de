/**
 * The read pass's plan: the offset, length and type of each emitted line, in emission order,
 * packed as varints in 64 KiB byte blocks. Emitted lines mostly follow one another in the file,
 * so an offset is stored as its distance from where the previous line ended (usually a byte or
 * two), and the type rides in the length's low bits: about 4 bytes an entry, against 13 for the
 * Float64/Int32/Uint8 arrays a file over 4 GiB needed (13 MiB at 1M messages). Read once, front
 * to back, as the read pass does.
 *
 * A plan made `withLines` also carries each line's 1-based number in the file, as its distance
 * from the line after the previous one (a byte, nearly always 0): the read pass used to hold them
 * in an Int32Array of its own, 4 MB at 1M messages from its first message to its last.
 */
import { uint8s, type Blocks } from './growable.ts';

const TYPE_BITS = 4;
const TYPE_SPAN = 1 << TYPE_BITS;

/** Appends `value` (a whole number >= 0, up to 2^53) as a little-endian base-128 varint. */
function writeVarint(bytes: Blocks<Uint8Array>, value: number): void {
  // Division, not shifts: offsets of files over 2 GiB do not fit 32-bit operators.
  while (value >= 128) {
    bytes.push((value % 128) | 128);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
}

/** Zigzag: a value below the expected one (rare: a branch read back) gives a negative gap. */
const zigzag = (gap: number): number => (gap >= 0 ? gap * 2 : -gap * 2 - 1);
const unzigzag = (value: number): number => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

export class ReadPlanWriter {
  private readonly bytes = uint8s();
  private count = 0;
  private nextOffset = 0;
  private nextLine = 1;

  /** @param withLines whether each push gives its line's number in the file, for the cursor's `line` */
  constructor(private readonly withLines = false) {}

  /** Adds an emitted line: its byte offset and length (whole numbers >= 0), its entry type (0-15), and (withLines) its 1-based line number. */
  push(offset: number, length: number, type: number, line = 0): void {
    if (!(type >= 0 && type < TYPE_SPAN)) throw new RangeError(`entry type ${type} does not fit the read plan`);
    writeVarint(this.bytes, zigzag(offset - this.nextOffset));
    writeVarint(this.bytes, length * TYPE_SPAN + type);
    this.nextOffset = offset + length + 1;
    if (this.withLines) {
      writeVarint(this.bytes, zigzag(line - this.nextLine));
      this.nextLine = line + 1;
    }
    this.count++;
  }

  finish(): ReadPlanEntries {
    return new ReadPlanEntries(this.bytes, this.count, this.withLines);
  }
}

/** The packed plan; `cursor()` walks it. */
export class ReadPlanEntries {
  constructor(
    private readonly bytes: Blocks<Uint8Array>,
    readonly length: number,
    /** Whether the cursor gives each line's number in the file. */
    readonly withLines = false,
  ) {}

  /** Bytes held. */
  get byteLength(): number {
    return this.bytes.byteLength;
  }

  cursor(): ReadPlanCursor {
    return new ReadPlanCursor(this.bytes, this.length, this.withLines, false);
  }

  /**
   * The last walk: gives back each 64 KiB block once the walk has left it, so the plan shrinks as
   * the read pass goes on instead of holding about 4 MB to the end of a 1M-entry file, when the
   * rules hold the most. The plan cannot be walked again.
   */
  consume(): ReadPlanCursor {
    return new ReadPlanCursor(this.bytes, this.length, this.withLines, true);
  }
}

/** One walk over the plan: `next()` loads the next entry into offset, length, type and (a plan made withLines) line. */
export class ReadPlanCursor {
  offset = 0;
  length = 0;
  type = 0;
  /** The line's 1-based number in the file; 0 in a plan made without lines. */
  line = 0;
  private at = 0;
  private left: number;
  private nextOffset = 0;

  constructor(
    private readonly bytes: Blocks<Uint8Array>,
    count: number,
    private readonly withLines: boolean,
    private readonly releasing: boolean,
  ) {
    this.left = count;
  }

  /** False at the end of the plan. */
  next(): boolean {
    if (this.releasing) this.bytes.releaseBefore(this.at);
    if (this.left === 0) return false;
    this.left--;
    const gap = unzigzag(this.readVarint());
    const packed = this.readVarint();
    this.type = packed % TYPE_SPAN;
    this.length = (packed - this.type) / TYPE_SPAN;
    this.offset = this.nextOffset + gap;
    this.nextOffset = this.offset + this.length + 1;
    if (this.withLines) this.line += 1 + unzigzag(this.readVarint());
    return true;
  }

  private readVarint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.bytes.get(this.at++);
      value += (byte & 127) * scale;
      if (byte < 128) return value;
      scale *= 128;
    }
  }
}
