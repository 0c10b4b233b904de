/** Test images made by sharp in the tests themselves. */
import sharp, { type Sharp } from 'sharp';

export /** A deterministic texture: a gradient under seeded noise of `grain` levels (0 = smooth, 255 = pure noise). */
function texture(width: number, height: number, options: { channels?: 3 | 4; grain?: number; seed?: number } = {}): Sharp {
  const channels = options.channels ?? 3;
  const grain = options.grain ?? 32;
  const pixels = Buffer.allocUnsafe(width * height * channels);
  let state = (options.seed ?? 1) >>> 0 || 1;
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const noise = grain === 0 ? 0 : (state >>> 0) % grain;
      pixels[i++] = ((x * 255) / width + noise) & 255;
      pixels[i++] = ((y * 255) / height + noise) & 255;
      pixels[i++] = (((x + y) * 127) / (width + height) + noise) & 255;
      if (channels === 4) pixels[i++] = 255 - (noise & 127);
    }
  }
  return sharp(pixels, { raw: { width, height, channels } });
}

// ---------------------------------------------------------------------------------------
// PNG bytes written by hand: headers that claim any size, chunks with valid CRCs

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

/** An IHDR chunk (default: 8-bit RGB). */
export function ihdr(width: number, height: number, depth = 8, colour = 2): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data[8] = depth;
  data[9] = colour;
  return pngChunk('IHDR', data);
}

/** A PNG signature and a valid IHDR chunk and nothing else: a header that claims any size. */
export function pngHeader(width: number, height: number): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height)]);
}
