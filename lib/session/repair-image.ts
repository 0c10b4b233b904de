/**
 * The repair's corrupted-image test (spec/session-file.md §9.3 step 5, Errata 4): an inline
 * image block whose `data` is not canonical base64, or holds a character above U+007F, or does
 * not decode to a known image signature (PNG, JPEG, WebP, GIF, BMP, HEIC/HEIF `ftyp`).
 *
 * Canonical base64: the standard alphabet only, every character up to U+0020 skipped, at most
 * two `=` and only at the end, missing padding accepted (length mod 4 of 2 or 3), and zero pad
 * bits. Only the first 96 bytes are decoded (HEIF's compatible brands can sit that far in).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** Decodes the first `want` bytes of canonical base64, or undefined when `data` is not canonical. */
export function canonicalBase64Prefix(data: string, want: number): Uint8Array | undefined {
  // Significant characters (skipping everything up to U+0020) and trailing padding.
  let count = 0;
  let padding = 0;
  const head: number[] = [];
  const headChars = Math.ceil(want / 3) * 4;
  let last = -1;
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    if (code <= 0x20) continue;
    if (code === 0x3d /* = */) {
      padding++;
      if (padding > 2) return undefined;
      continue;
    }
    if (padding > 0) return undefined; // data after padding
    const value = code < 128 ? VALUE[code]! : -1;
    if (value < 0) return undefined;
    if (head.length < headChars) head.push(value);
    last = value;
    count++;
  }
  const rest = count % 4;
  if (rest === 1) return undefined;
  if (padding > 0 && (count + padding) % 4 !== 0) return undefined;
  // Zero pad bits in the last character.
  if (rest === 2 && (last & 0x0f) !== 0) return undefined;
  if (rest === 3 && (last & 0x03) !== 0) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i + 1 < head.length && bytes.length < want; i += 4) {
    const a = head[i]!;
    const b = head[i + 1]!;
    const c = head[i + 2];
    const d = head[i + 3];
    bytes.push(((a << 2) | (b >> 4)) & 0xff);
    if (c !== undefined) bytes.push(((b << 4) | (c >> 2)) & 0xff);
    if (d !== undefined) bytes.push(((c! << 6) | d) & 0xff);
  }
  return Uint8Array.from(bytes.slice(0, want));
}

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heis', 'heim', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1']);
/** The signature is looked for in the first 128 base64 characters: 96 bytes. */
const SNIFF_BYTES = 96;

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** An ISO-BMFF `ftyp` box whose major brand, or a compatible brand, is a HEIC or HEIF one. */
function isHeif(b: Uint8Array): boolean {
  if (b.length < 12 || ascii(b, 4, 8) !== 'ftyp') return false;
  const brands = [ascii(b, 8, 12)];
  for (let at = 16; at + 4 <= b.length; at += 4) brands.push(ascii(b, at, at + 4));
  return brands.some((brand) => HEIC_BRANDS.has(brand) || HEIF_BRANDS.has(brand));
}

/** Whether the first bytes are a PNG, JPEG, WebP, GIF, BMP or HEIC/HEIF signature. */
export function hasImageSignature(bytes: Uint8Array): boolean {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return true;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return true;
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return true;
  if (b.length >= 6 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return true;
  if (b.length >= 2 && b[0] === 0x42 && b[1] === 0x4d) return true;
  return isHeif(b);
}

function isImageMimeType(value: unknown): boolean {
  return typeof value === 'string' && /^image\//i.test(value.trim());
}

/** §9.3 step 5: whether a content block is an inline image whose payload is corrupted. */
export function isCorruptedImageBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return false;
  const record = block as Record<string, unknown>;
  if (record.type !== 'image' || typeof record.data !== 'string') return false;
  if (![record.mimeType, record.mediaType, record.media_type].some(isImageMimeType)) return false;
  const data = record.data;
  for (let i = 0; i < data.length; i++) if (data.charCodeAt(i) > 0x7f) return true;
  const head = canonicalBase64Prefix(data, SNIFF_BYTES);
  return head === undefined || !hasImageSignature(head);
}
