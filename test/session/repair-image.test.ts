import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalBase64Prefix, hasImageSignature, isCorruptedImageBlock } from '../../lib/session/repair-image.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString('base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64');
const image = (data: string, mime: Record<string, unknown> = { mimeType: 'image/png' }): Record<string, unknown> => ({ type: 'image', data, ...mime });

test('canonical base64 (Errata 4): padding optional, characters up to U+0020 skipped, zero pad bits', () => {
  assert.deepEqual([...canonicalBase64Prefix('AQID', 3)!], [1, 2, 3]);
  assert.deepEqual([...canonicalBase64Prefix('AQ', 3)!], [1]);
  assert.deepEqual([...canonicalBase64Prefix('AQI', 3)!], [1, 2]);
  assert.deepEqual([...canonicalBase64Prefix('A Q\tI\u0001D\n', 3)!], [1, 2, 3]);
  assert.deepEqual([...canonicalBase64Prefix('AQ==', 3)!], [1]);
  for (const bad of ['A', 'AQ=', 'AQID=', 'A===', 'AR==', 'AQJ', 'AQ==AQ', 'AQ-_', 'AQ=I', 'AQIDA']) {
    assert.equal(canonicalBase64Prefix(bad, 3), undefined, bad);
  }
  assert.deepEqual([...canonicalBase64Prefix('', 3)!], []);
});

test('image signatures: PNG, JPEG, WebP, GIF, BMP, HEIC/HEIF by major or compatible brand', () => {
  const ascii = (s: string): number[] => [...Buffer.from(s, 'latin1')];
  assert.ok(hasImageSignature(Buffer.from(PNG, 'base64')));
  assert.ok(hasImageSignature(Uint8Array.from([0xff, 0xd8, 0xff])));
  assert.ok(hasImageSignature(Uint8Array.from([...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBP')])));
  assert.ok(hasImageSignature(Uint8Array.from(ascii('GIF89a'))));
  assert.ok(hasImageSignature(Uint8Array.from(ascii('BM'))));
  assert.ok(hasImageSignature(Uint8Array.from([0, 0, 0, 24, ...ascii('ftypheic'), 0, 0, 0, 0])));
  assert.ok(hasImageSignature(Uint8Array.from([0, 0, 0, 24, ...ascii('ftypisom'), 0, 0, 0, 0, ...ascii('mif1')])));
  assert.ok(!hasImageSignature(Uint8Array.from([0, 0, 0, 24, ...ascii('ftypavif'), 0, 0, 0, 0])));
  assert.ok(!hasImageSignature(Uint8Array.from([0, 0])));
});

test('which blocks are corrupted images (§9.3 step 5, §11.2)', () => {
  assert.equal(isCorruptedImageBlock(image('AA==')), true, 'canonical, but not an image');
  assert.equal(isCorruptedImageBlock(image('@@not base64@@', { mimeType: 'image/jpeg' })), true);
  assert.equal(isCorruptedImageBlock(image(PNG)), false);
  assert.equal(isCorruptedImageBlock(image(JPEG, { media_type: ' IMAGE/JPEG ' })), false);
  assert.equal(isCorruptedImageBlock(image(PNG + 'é')), true, 'a character above U+007F');
  assert.equal(isCorruptedImageBlock(image('AA==', { mimeType: 'text/plain' })), false, 'not an image mime type');
  assert.equal(isCorruptedImageBlock(image('AA==', { mimeType: 'text/plain', mediaType: 'image/png' })), true);
  assert.equal(isCorruptedImageBlock({ type: 'image', data: 5, mimeType: 'image/png' }), false);
  assert.equal(isCorruptedImageBlock({ type: 'text', text: 'AA==' }), false);
  assert.equal(isCorruptedImageBlock(null), false);
  assert.equal(isCorruptedImageBlock([image('AA==')]), false);
});
