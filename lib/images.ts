/**
 * Images: base64 checks, a header-only size probe, the within-limits test, the resize
 * search of spec/turns-images-policy.md §5.4 behind a small codec interface, and the
 * concurrency limit. No hygiene rule lives here; transforms/sanitize-images.ts uses it.
 *
 * Most images are within limits and never reach the codec: their size comes from the
 * base64 length and their dimensions from the PNG, JPEG, GIF or WebP header. Oversized
 * ones are decoded once (by sharp, fitted to the largest candidate side) and re-encoded
 * as JPEG from those pixels for each (side, quality) step until one fits.
 */
import pLimit, { type LimitFunction } from 'p-limit';

/** Largest estimated decoded size the stage accepts at all (§5.2 `MAX_IMAGE_INPUT_BYTES`). */
export const MAX_IMAGE_INPUT_BYTES = 10 * 1024 * 1024;
/** Pixel budget of the within-limits test and of decoding (§5.2). */
export const MAX_IMAGE_PIXELS = 25_000_000;
/** Sides tried after the first, before clamping to the max side (§5.2). */
export const RESIZE_SIDE_SEEDS: readonly number[] = Object.freeze([1800, 1600, 1400, 1200, 1000, 800]);
/** JPEG qualities tried for each side, best first (§5.2). */
export const JPEG_QUALITY_LADDER: readonly number[] = Object.freeze([85, 75, 65, 55, 45, 35]);

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

export interface ImageLimits {
  /** Longest side allowed, in pixels (`imageMaxDimensionPx`). */
  readonly maxDimensionPx: number;
  /** Largest decoded size allowed, in bytes (`imageMaxBytes`). */
  readonly maxBytes: number;
}

/** Why an image could not be kept or reduced; each is counted separately by the stage. */
export type ImageFailure = 'undecodable' | 'pixelLimit' | 'irreducible' | 'encodeFailed' | 'processorUnavailable';

/**
 * A failure of one image. Its `name` stays `Error` so that `String(error)`, which the
 * replacement text embeds (§5.3 step 8), reads `Error: Image could not be reduced below ...`
 * exactly as the reference's own search failure does.
 */
export class ImageError extends Error {
  readonly reason: ImageFailure;

  constructor(reason: ImageFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'Error';
    this.reason = reason;
  }
}

// ---------------------------------------------------------------------------------------
// Base64

/**
 * The reference's decoded-size estimate (§5.3 step 3): `floor(n*3/4) - padding`, where n counts
 * characters with a code above 32 and padding is 1 or 2 trailing `=` (trailing whitespace ignored).
 */
export function estimateBase64DecodedBytes(data: string): number {
  let effective = 0;
  for (let i = 0; i < data.length; i++) if (data.charCodeAt(i) > 32) effective++;
  if (effective === 0) return 0;
  let end = data.length - 1;
  while (end >= 0 && data.charCodeAt(end) <= 32) end--;
  let padding = 0;
  if (end >= 0 && data.charCodeAt(end) === 61) {
    padding = 1;
    end--;
    while (end >= 0 && data.charCodeAt(end) <= 32) end--;
    if (end >= 0 && data.charCodeAt(end) === 61) padding = 2;
  }
  return Math.max(0, Math.floor((effective * 3) / 4) - padding);
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;
const CONTROL_OR_SPACE = /[\x00-\x20]+/g;

/**
 * Canonical base64 (§5.3 step 5), or undefined when invalid: characters with a code up to 32
 * are dropped; only `A-Z a-z 0-9 + /` with at most two `=` at the end; a length of 1 mod 4 is
 * invalid; missing padding is added, but padding on a length that is not a multiple of 4 is
 * invalid; the unused bits of the last character must be zero. URL-safe `-`/`_` are invalid.
 */
export function canonicalizeBase64(data: string): string | undefined {
  const cleaned = data.replace(CONTROL_OR_SPACE, '');
  if (!BASE64_SHAPE.test(cleaned)) return undefined;
  const padding = cleaned.endsWith('==') ? 2 : cleaned.endsWith('=') ? 1 : 0;
  const body = cleaned.length - padding;
  const rest = body % 4;
  if (rest === 1) return undefined;
  if (padding > 0 && cleaned.length % 4 !== 0) return undefined;
  if (rest !== 0) {
    const last = BASE64_ALPHABET.indexOf(cleaned[body - 1]!);
    if ((last & (rest === 2 ? 0x0f : 0x03)) !== 0) return undefined;
  }
  return padding === 0 && rest !== 0 ? cleaned + '='.repeat(4 - rest) : cleaned;
}

/** Decoded bytes kept for the header probe: enough for PNG, GIF and WebP headers and nearly every JPEG's frame header. */
export const BASE64_HEAD_BYTES = 48 * 1024;
const SLICE_CHARS = (BASE64_HEAD_BYTES / 3) * 4;

/**
 * When `data` is already canonical base64 (what nearly every writer produces), its first
 * BASE64_HEAD_BYTES decoded bytes (all of them when shorter); else undefined. Node's decoder is
 * lenient (it skips junk and accepts URL-safe characters), so each 64 KB slice is decoded and
 * re-encoded: canonical base64 is the only string that re-encodes to itself, and only the last
 * slice may carry padding. Slices keep the garbage small (no second copy of a 5 MB string) and
 * are faster than one round trip: 4.9 ms for 5.6 MB here, against 10 ms for a whole-string round
 * trip, 28 ms for a validating regular expression, 22-32 ms for a character loop.
 */
export function canonicalHead(data: string): Buffer | undefined {
  if (data.length % 4 !== 0) return undefined;
  let head: Buffer | undefined;
  for (let at = 0; at < data.length; at += SLICE_CHARS) {
    const text = data.slice(at, at + SLICE_CHARS);
    const part = Buffer.from(text, 'base64');
    if (part.toString('base64') !== text) return undefined;
    if (at + SLICE_CHARS < data.length && part.length !== BASE64_HEAD_BYTES) return undefined;
    head ??= part;
  }
  return head ?? Buffer.alloc(0);
}

/** The exact decoded length of canonical base64. */
export function canonicalByteLength(canonical: string): number {
  const padding = canonical.endsWith('==') ? 2 : canonical.endsWith('=') ? 1 : 0;
  return (canonical.length / 4) * 3 - padding;
}

export type CheckedBase64 =
  | { readonly ok: true; readonly canonical: string; readonly byteLength: number; readonly head: Buffer }
  | { readonly ok: false; readonly failure: 'inputTooLarge' | 'empty' | 'invalidBase64' };

/**
 * Steps 3 to 5 of §5.3 in the reference's order (input size estimate, empty payload, canonical
 * base64). On success: the canonical string, its decoded length, and its first decoded bytes
 * (for the header probe; the whole image is decoded only if it goes to the codec). Canonical
 * input takes the fast path; anything else (whitespace, missing padding, junk) the exact one.
 */
export function checkImageBase64(data: string, maxInputBytes = MAX_IMAGE_INPUT_BYTES): CheckedBase64 {
  // The estimate of canonical data is its exact length: skip even the fast path when that is over the limit.
  if (Math.floor((data.length * 3) / 4) - 2 <= maxInputBytes) {
    const head = canonicalHead(data);
    if (head !== undefined) {
      const byteLength = canonicalByteLength(data);
      if (byteLength > maxInputBytes) return { ok: false, failure: 'inputTooLarge' };
      if (data.length === 0) return { ok: false, failure: 'empty' };
      return { ok: true, canonical: data, byteLength, head };
    }
  }
  if (estimateBase64DecodedBytes(data) > maxInputBytes) return { ok: false, failure: 'inputTooLarge' };
  if (data.trim() === '') return { ok: false, failure: 'empty' };
  const canonical = canonicalizeBase64(data);
  if (canonical === undefined) return { ok: false, failure: 'invalidBase64' };
  const head = Buffer.from(canonical.slice(0, SLICE_CHARS), 'base64');
  return { ok: true, canonical, byteLength: canonicalByteLength(canonical), head };
}

/** The MIME type the canonical data's first characters prove (§5.3 step 6): JPEG, PNG or GIF only. */
export function sniffImageMimeType(canonical: string): string | undefined {
  if (canonical.startsWith('/9j/')) return 'image/jpeg';
  if (canonical.startsWith('iVBOR')) return 'image/png';
  if (canonical.startsWith('R0lGOD')) return 'image/gif';
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Header probe

export interface ImageHeader extends ImageSize {
  readonly format: 'png' | 'jpeg' | 'gif' | 'webp';
  /** EXIF orientation (1-8) when the header has one; width and height are already swapped for 5-8. */
  readonly orientation?: number;
}

function u16be(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}

function u16le(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}

function u24le(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function u32le(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

function ascii(b: Uint8Array, at: number, text: string): boolean {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

function sized(format: ImageHeader['format'], width: number, height: number, orientation?: number): ImageHeader | undefined {
  if (!(width > 0 && height > 0)) return undefined;
  const swap = orientation !== undefined && orientation >= 5 && orientation <= 8;
  const size = swap ? { width: height, height: width } : { width, height };
  return orientation === undefined ? { format, ...size } : { format, ...size, orientation };
}

function probePng(b: Uint8Array): ImageHeader | undefined {
  // Signature, then the IHDR chunk: length (4), "IHDR", width (4), height (4).
  if (b.length < 24 || b[0] !== 0x89 || !ascii(b, 1, 'PNG\r\n\x1a\n') || !ascii(b, 12, 'IHDR')) return undefined;
  return sized('png', u32be(b, 16), u32be(b, 20));
}

function probeGif(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 10 || !(ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return undefined;
  return sized('gif', u16le(b, 6), u16le(b, 8));
}

function probeWebp(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return undefined;
  if (ascii(b, 12, 'VP8 ')) {
    // Lossy: frame tag (3 bytes) at 20, start code 9d 01 2a, then 14-bit width and height.
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return undefined;
    return sized('webp', u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (ascii(b, 12, 'VP8L')) {
    // Lossless: signature 0x2f, then width-1 and height-1 in 14 bits each.
    if (b[20] !== 0x2f) return undefined;
    const bits = u32le(b, 21);
    return sized('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (ascii(b, 12, 'VP8X')) {
    // Extended: flags (4 bytes) at 20, then canvas width-1 and height-1 in 24 bits each.
    return sized('webp', u24le(b, 24) + 1, u24le(b, 27) + 1);
  }
  return undefined;
}

/** EXIF orientation from an APP1 segment's payload (starting at "Exif\0\0"), or undefined. */
function exifOrientation(b: Uint8Array, start: number, end: number): number | undefined {
  if (!ascii(b, start, 'Exif\0\0')) return undefined;
  const tiff = start + 6;
  if (tiff + 8 > end) return undefined;
  const little = b[tiff] === 0x49 && b[tiff + 1] === 0x49;
  if (!little && !(b[tiff] === 0x4d && b[tiff + 1] === 0x4d)) return undefined;
  const read16 = (at: number): number => (little ? u16le(b, at) : u16be(b, at));
  const read32 = (at: number): number => (little ? u32le(b, at) : u32be(b, at));
  const ifd = tiff + read32(tiff + 4);
  if (ifd + 2 > end) return undefined;
  const entries = read16(ifd);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > end) return undefined;
    if (read16(entry) === 0x0112) {
      const value = read16(entry + 8);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

function isStartOfFrame(marker: number): boolean {
  // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function probeJpeg(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let orientation: number | undefined;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    let marker = b[at + 1]!;
    while (marker === 0xff && at + 2 < b.length) marker = b[++at + 1]!; // fill bytes
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2; // standalone markers carry no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image or start of scan before any frame header
    if (at + 4 > b.length) return undefined;
    const length = u16be(b, at + 2);
    if (length < 2) return undefined;
    const payload = at + 4;
    const end = Math.min(b.length, at + 2 + length);
    if (isStartOfFrame(marker)) {
      if (payload + 5 > b.length) return undefined;
      return sized('jpeg', u16be(b, payload + 3), u16be(b, payload + 1), orientation);
    }
    if (marker === 0xe1 && orientation === undefined) orientation = exifOrientation(b, payload, end);
    at += 2 + length;
  }
  return undefined;
}

/**
 * Dimensions from a PNG, JPEG, GIF or WebP header without decoding any pixels (width and
 * height as displayed: swapped for JPEG EXIF orientations 5-8). Undefined when the data is
 * none of these, or its header is unreadable or claims a zero side.
 */
export function probeImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  switch (bytes[0]) {
    case 0x89:
      return probePng(bytes);
    case 0xff:
      return probeJpeg(bytes);
    case 0x47: // G
      return probeGif(bytes);
    case 0x52: // R
      return probeWebp(bytes);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------
// Limits and the resize search

/** True when the pixel count alone forbids decoding (a decompression bomb, or just too big). */
export function exceedsPixelLimit(size: ImageSize): boolean {
  return size.width * size.height > MAX_IMAGE_PIXELS;
}

export function pixelLimitError(size: ImageSize): ImageError {
  return new ImageError(
    'pixelLimit',
    `Image dimensions exceed the 25,000,000 pixel input limit: ${size.width}x${size.height} (${size.width * size.height} pixels)`,
  );
}

/** The within-limits test of §5.4: such an image is kept as it is, never decoded. */
export function isWithinLimits(size: ImageSize | undefined, byteLength: number, limits: ImageLimits): boolean {
  if (size === undefined || !(size.width > 0 && size.height > 0)) return false;
  return (
    byteLength <= limits.maxBytes &&
    size.width <= limits.maxDimensionPx &&
    size.height <= limits.maxDimensionPx &&
    size.width * size.height <= MAX_IMAGE_PIXELS
  );
}

/**
 * The sides the search tries, largest first (§5.4): the smaller of the max side and the
 * image's longer side, then the seeds, all clamped to the max side, de-duplicated.
 */
export function resizeSideGrid(maxDimensionPx: number, size?: ImageSize): number[] {
  const longest = size === undefined ? maxDimensionPx : Math.max(size.width, size.height);
  const start = Math.min(maxDimensionPx, longest);
  const sides = [start, ...RESIZE_SIDE_SEEDS].map((side) => Math.min(side, maxDimensionPx)).filter((side) => side > 0);
  return [...new Set(sides)].sort((a, b) => b - a);
}

/** The size with its longer side fitted to `side`, aspect ratio kept (rounded, at least 1), never enlarged. */
export function fitInside(size: ImageSize, side: number): ImageSize {
  const longest = Math.max(size.width, size.height);
  if (longest <= side) return { width: size.width, height: size.height };
  const scale = side / longest;
  return {
    width: size.width >= size.height ? side : Math.max(1, Math.round(size.width * scale)),
    height: size.height > size.width ? side : Math.max(1, Math.round(size.height * scale)),
  };
}

/** 1024-based, as the reference prints sizes: `512B`, `19.5KB`, `10.00MB`. */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)}MB`;
}

/** Pixels decoded once, re-encoded at several sizes and qualities. */
export interface DecodedImage {
  /** The whole image as displayed (after EXIF orientation), as the library read it. */
  readonly source: ImageSize;
  /** The size of the decoded pixels (the source fitted to the side asked for). */
  readonly width: number;
  readonly height: number;
  /** A baseline JPEG of the decoded pixels scaled to `size` (never larger than the decoded size), metadata stripped. */
  encodeJpeg(size: ImageSize, quality: number): Promise<Buffer>;
}

/** What the search needs from an image library; unit tests inject a fake. */
export interface ImageCodec {
  /** The full library probe (§5.4): display dimensions of formats the header probe does not know. */
  probe(bytes: Buffer): Promise<ImageSize>;
  /** Decodes once, fitted to `side` (never enlarged); refuses images over the pixel limit before decoding. */
  decode(bytes: Buffer, side: number): Promise<DecodedImage>;
}

export interface ResizeResult {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly side: number;
  readonly quality: number;
}

function sameSize(a: ImageSize, b: ImageSize): boolean {
  return a.width === b.width && a.height === b.height;
}

/**
 * The resize search of §5.4: for each side of the grid (largest first) and each quality of
 * the ladder, a JPEG of the image fitted to that side; the first one of at most `maxBytes`
 * wins. The image is decoded once, at the first (largest) side; a side whose fitted size
 * equals the previous side's (a small image under a larger grid side) would give the same
 * bytes and is skipped. Throws `Image could not be reduced below <max> (got <smallest>)`
 * when nothing fits.
 */
export async function resizeToFit(bytes: Buffer, size: ImageSize, limits: ImageLimits, codec: ImageCodec): Promise<ResizeResult> {
  const sides = resizeSideGrid(limits.maxDimensionPx, size);
  const decoded = await codec.decode(bytes, sides[0]!);
  let smallest = Number.POSITIVE_INFINITY;
  let previous: ImageSize | undefined;
  for (const side of sides) {
    const target = fitInside(decoded.source, side);
    if (previous !== undefined && sameSize(previous, target)) continue;
    previous = target;
    for (const quality of JPEG_QUALITY_LADDER) {
      const data = await decoded.encodeJpeg(target, quality);
      if (data.length <= limits.maxBytes) return { data, width: target.width, height: target.height, side, quality };
      smallest = Math.min(smallest, data.length);
    }
  }
  throw new ImageError('irreducible', `Image could not be reduced below ${formatByteSize(limits.maxBytes)} (got ${formatByteSize(smallest)})`);
}

// ---------------------------------------------------------------------------------------
// sharp

type Sharp = typeof import('sharp').default;

let loadingSharp: Promise<Sharp> | undefined;

/**
 * sharp, loaded on first use: a transcript without oversized images never loads the native
 * library, and a host where it cannot load still passes in-limits images (§5.4: they never
 * touch the processor) while the others get the replacement text.
 *
 * libvips' operation cache is turned off (process-wide): it only pays when the same operation
 * runs again on the same input, which never happens here (every image is new, each raster is
 * encoded once per quality), and it kept 30-50 MB of pixels alive. Measured on the image bench
 * (bench/images.ts, 100 images, width 1): peak RSS 380-437 MB with the cache, 336-384 without.
 */
function loadSharp(): Promise<Sharp> {
  loadingSharp ??= import('sharp').then(
    (module) => {
      module.default.cache(false);
      return module.default;
    },
    (error: unknown) => {
      // sharp is an optional dependency: say so rather than print a module path.
      const missing = (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_MODULE_NOT_FOUND';
      const reason = missing ? 'sharp is not installed (an optional dependency: npm install sharp)' : error instanceof Error ? error.message : String(error);
      throw new ImageError('processorUnavailable', `Image processor unavailable: ${reason}`, { cause: error });
    },
  );
  return loadingSharp;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function decodeFailure(error: unknown): ImageError {
  const message = describe(error);
  if (/pixel limit/i.test(message)) return new ImageError('pixelLimit', `Image exceeds the 25,000,000 pixel input limit: ${message}`, { cause: error });
  return new ImageError('undecodable', `Unable to decode image: ${message}`, { cause: error });
}

const UNKNOWN_DIMENSIONS = 'Unable to determine image dimensions; refusing to process';

async function displaySize(sharp: Sharp, bytes: Buffer): Promise<ImageSize> {
  let metadata;
  try {
    // Only the header is read here, so sharp's own pixel limit is lifted: the caller applies ours,
    // with a message that says so, before anything is decoded.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new ImageError('undecodable', UNKNOWN_DIMENSIONS, { cause: error });
  }
  const width = metadata.autoOrient?.width ?? metadata.width;
  const height = metadata.autoOrient?.height ?? metadata.height;
  if (!(width > 0 && height > 0)) throw new ImageError('undecodable', UNKNOWN_DIMENSIONS);
  return { width, height };
}

type RawChannels = 1 | 2 | 3 | 4;

class SharpImage implements DecodedImage {
  /** The last scaled copy: every quality of one side encodes the same pixels, so scale once per side. */
  private scaled: { size: ImageSize; pixels: Buffer } | undefined;

  constructor(
    private readonly sharp: Sharp,
    readonly source: ImageSize,
    private readonly pixels: Buffer,
    readonly width: number,
    readonly height: number,
    private readonly channels: RawChannels,
  ) {}

  private raw(size: ImageSize): { raw: { width: number; height: number; channels: RawChannels } } {
    return { raw: { width: size.width, height: size.height, channels: this.channels } };
  }

  private async pixelsAt(size: ImageSize): Promise<Buffer> {
    if (size.width === this.width && size.height === this.height) return this.pixels;
    if (this.scaled === undefined || !sameSize(this.scaled.size, size)) {
      const pixels = await this.sharp(this.pixels, this.raw(this)).resize(size.width, size.height, { fit: 'fill' }).raw().toBuffer();
      this.scaled = { size, pixels };
    }
    return this.scaled.pixels;
  }

  async encodeJpeg(size: ImageSize, quality: number): Promise<Buffer> {
    const target = size.width <= this.width && size.height <= this.height ? size : { width: this.width, height: this.height };
    try {
      const pixels = await this.pixelsAt(target);
      return await this.sharp(pixels, this.raw(target)).jpeg({ quality }).toBuffer();
    } catch (error) {
      throw new ImageError('encodeFailed', `Unable to encode JPEG: ${describe(error)}`, { cause: error });
    }
  }
}

/**
 * The sharp codec. Decoding refuses images over the pixel limit twice: from the library's
 * header read before any pixel is decoded, and through sharp's `limitInputPixels`. Pixels are
 * auto-oriented (EXIF), flattened on white (JPEG has no alpha) and converted to 8-bit sRGB.
 * sharp's own thread setting is left alone (DESIGN.md: it gains nothing; images in flight are
 * bounded by the stage, and sharp runs each on a libuv pool thread).
 */
export function createSharpCodec(): ImageCodec {
  return {
    async probe(bytes) {
      return displaySize(await loadSharp(), bytes);
    },
    async decode(bytes, side) {
      const sharp = await loadSharp();
      const source = await displaySize(sharp, bytes);
      if (exceedsPixelLimit(source)) throw pixelLimitError(source);
      const target = fitInside(source, side);
      let pipeline = sharp(bytes, { autoOrient: true, limitInputPixels: MAX_IMAGE_PIXELS });
      if (!sameSize(source, target)) pipeline = pipeline.resize(target.width, target.height, { fit: 'fill' });
      let result;
      try {
        result = await pipeline.flatten({ background: '#ffffff' }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
      } catch (error) {
        throw decodeFailure(error);
      }
      const { data, info } = result;
      return new SharpImage(sharp, source, data, info.width, info.height, info.channels as RawChannels);
    },
  };
}

let defaultCodec: ImageCodec | undefined;

/** The process-wide sharp codec (stateless; sharp itself is loaded on first use). */
export function sharpCodec(): ImageCodec {
  defaultCodec ??= createSharpCodec();
  return defaultCodec;
}

// ---------------------------------------------------------------------------------------
// Concurrency

const limiters = new Map<number, LimitFunction>();

/**
 * The p-limit limiter of a width, shared by every image stage in the process: several
 * pipelines in one process (a batch export) together keep at most `width` images on libuv's
 * threadpool, so file reads are never starved (DESIGN.md, Images). Each stage separately
 * stops reading input while `width` of its own images are in flight, so this queue stays short.
 */
export function imageLimiter(width: number): LimitFunction {
  let limit = limiters.get(width);
  if (limit === undefined) {
    limit = pLimit(width);
    limiters.set(width, limit);
  }
  return limit;
}
