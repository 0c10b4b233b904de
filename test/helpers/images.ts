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
