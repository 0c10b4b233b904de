import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import sharp from 'sharp';
import { deflateSync } from 'node:zlib';
import {
  ImageError,
  JPEG_QUALITY_LADDER,
  MAX_IMAGE_INPUT_BYTES,
  canonicalizeBase64,
  createSharpCodec,
  BASE64_HEAD_BYTES,
  canonicalByteLength,
  canonicalHead,
  checkImageBase64,
  estimateBase64DecodedBytes,
  exceedsPixelLimit,
  fitInside,
  formatByteSize,
  imageLimiter,
  isWithinLimits,
  pixelLimitError,
  probeImageHeader,
  resizeSideGrid,
  resizeToFit,
  sharpCodec,
  sniffImageMimeType,
  type DecodedImage,
  type ImageCodec,
  type ImageSize,
} from '../../lib/images.ts';
import { pngChunk, pngHeader, texture } from '../helpers/images.ts';

const LIMITS = { maxDimensionPx: 1200, maxBytes: 5 * 1024 * 1024 };


describe('estimateBase64DecodedBytes', () => {
  const cases: Array<[string, string, number]> = [
    ['padded, two', 'aGVsbG8gd29ybGQ=', 11],
    ['padded, one', 'AAAAAA==', 4],
    ['unpadded', 'AAAAAA', 4],
    ['whitespace is not counted', ' AA AA\nAA ==\n', 4],
    ['padding behind trailing whitespace', 'AAAAAA=\n=\t', 4],
    ['empty', '', 0],
    ['only whitespace', ' \n\t', 0],
    ['junk still counts as characters', '----', 3],
  ];
  for (const [name, data, expected] of cases) {
    test(`${name}: ${JSON.stringify(data)} -> ${expected}`, () => assert.equal(estimateBase64DecodedBytes(data), expected));
  }
});

describe('canonicalizeBase64', () => {
  const cases: Array<[string, string, string | undefined]> = [
    ['canonical stays', 'aGVsbG8gd29ybGQ=', 'aGVsbG8gd29ybGQ='],
    ['whitespace and control characters are dropped', ' aGVs\r\nbG8g\td29y\x01bGQ= ', 'aGVsbG8gd29ybGQ='],
    ['missing padding is added (one)', 'aGVsbG8gd29ybGQ', 'aGVsbG8gd29ybGQ='],
    ['missing padding is added (two)', 'AAAAAA', 'AAAAAA=='],
    ['length 1 mod 4 is invalid', 'AAAAA', undefined],
    ['padding on a length not a multiple of 4 is invalid', 'AAAAAA=', undefined],
    ['three pad characters are invalid', 'AAAAA===', undefined],
    ['= in the middle is invalid', 'AA=AAAAA', undefined],
    ['URL-safe - is invalid', 'AA-A', undefined],
    ['URL-safe _ is invalid', 'AA_A', undefined],
    ['non-zero unused bits (two pad) are invalid', 'AB==', undefined],
    ['non-zero unused bits (one pad) are invalid', 'AAB=', undefined],
    ['non-zero unused bits (unpadded) are invalid', 'AAB', undefined],
    ['a quote is invalid', 'iVBORw0KGgo=" onerror="x', undefined],
    ['non-ASCII is invalid', 'AAAé', undefined],
  ];
  for (const [name, data, expected] of cases) {
    test(`${name}: ${JSON.stringify(data)}`, () => assert.equal(canonicalizeBase64(data), expected));
  }

  test('canonicalHead accepts exactly the strings canonicalizeBase64 leaves unchanged', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n';
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('base64')),
          fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }).map((chars) => chars.join('')),
          fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(60), fc.constantFrom(...alphabet)).map(([bytes, at, char]) => {
            const text = Buffer.from(bytes).toString('base64');
            const index = at % text.length;
            return text.slice(0, index) + char + text.slice(index + 1);
          }),
        ),
        (data) => {
          const head = canonicalHead(data);
          assert.equal(head !== undefined, canonicalizeBase64(data) === data, JSON.stringify(data));
          if (head !== undefined) {
            assert.deepEqual(head, Buffer.from(data, 'base64'));
            assert.equal(canonicalByteLength(data), head.length);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('canonicalHead checks every slice of a long string and returns the first bytes only', () => {
    const bytes = Buffer.alloc(BASE64_HEAD_BYTES * 3 + 7, 0x61);
    bytes[5] = 1;
    const data = bytes.toString('base64');
    assert.deepEqual(canonicalHead(data), bytes.subarray(0, BASE64_HEAD_BYTES));
    assert.equal(canonicalByteLength(data), bytes.length);
    const slice = (BASE64_HEAD_BYTES / 3) * 4;
    for (const at of [0, slice - 1, slice, 2 * slice + 5, data.length - 3]) {
      assert.equal(canonicalHead(data.slice(0, at) + '-' + data.slice(at + 1)), undefined, `junk at ${at}`);
    }
    // Padding that would be valid inside one slice, but not in the middle of the whole.
    const padded = Buffer.alloc(BASE64_HEAD_BYTES - 1).toString('base64');
    assert.equal(canonicalHead(padded + data), undefined);
    assert.deepEqual(canonicalHead(''), Buffer.alloc(0));
  });
});

describe('checkImageBase64 (steps 3-5 of §5.3, in order)', () => {
  test('canonical input: canonical string, length and first bytes', () => {
    const result = checkImageBase64('aGVsbG8=');
    assert.ok(result.ok);
    assert.deepEqual([result.canonical, result.byteLength, result.head.toString()], ['aGVsbG8=', 5, 'hello']);
  });

  test('non-canonical input is canonicalized', () => {
    const result = checkImageBase64('aGVs\nbG8');
    assert.ok(result.ok);
    assert.deepEqual([result.canonical, result.byteLength, result.head.toString()], ['aGVsbG8=', 5, 'hello']);
  });

  test('the input size limit is checked first, on the estimate, even for invalid base64', () => {
    assert.deepEqual(checkImageBase64('A-AA'.repeat(8), 20), { ok: false, failure: 'inputTooLarge' });
    assert.deepEqual(checkImageBase64('AAAA'.repeat(8), 23), { ok: false, failure: 'inputTooLarge' });
    assert.equal(checkImageBase64('AAAA'.repeat(8), 24).ok, true);
    assert.deepEqual(checkImageBase64('A'.repeat(Math.ceil((MAX_IMAGE_INPUT_BYTES * 4) / 3) + 8)), { ok: false, failure: 'inputTooLarge' });
  });

  test('then empty, then invalid', () => {
    assert.deepEqual(checkImageBase64(''), { ok: false, failure: 'empty' });
    assert.deepEqual(checkImageBase64(' \n '), { ok: false, failure: 'empty' });
    assert.deepEqual(checkImageBase64('not base64!'), { ok: false, failure: 'invalidBase64' });
  });
});

describe('sniffImageMimeType', () => {
  const cases: Array<[string, string | undefined]> = [
    ['/9j/4AAQ', 'image/jpeg'],
    ['iVBORw0KGgo=', 'image/png'],
    ['R0lGODlhAQAB', 'image/gif'],
    ['UklGRiQAAABXRUJQ', undefined],
    ['aGVsbG8=', undefined],
  ];
  for (const [data, expected] of cases) test(`${data} -> ${expected}`, () => assert.equal(sniffImageMimeType(data), expected));
});

describe('probeImageHeader', () => {
  const images: Record<string, Buffer> = {};
  before(async () => {
    images.png = await texture(300, 200).png().toBuffer();
    images.jpeg = await texture(300, 200).jpeg().toBuffer();
    images.progressive = await texture(300, 200).jpeg({ progressive: true }).toBuffer();
    images.gif = await texture(300, 200, { grain: 0 }).gif().toBuffer();
    images.webp = await texture(300, 200).webp().toBuffer();
    images.lossless = await texture(300, 200).webp({ lossless: true }).toBuffer();
    images.alpha = await texture(300, 200, { channels: 4 }).webp().toBuffer();
    images.oriented = await texture(300, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    images.mirrored = await texture(300, 200).jpeg().withMetadata({ orientation: 2 }).toBuffer();
  });

  const expected: Array<[string, string, number, number]> = [
    ['png', 'png', 300, 200],
    ['jpeg', 'jpeg', 300, 200],
    ['progressive', 'jpeg', 300, 200],
    ['gif', 'gif', 300, 200],
    ['webp', 'webp', 300, 200],
    ['lossless', 'webp', 300, 200],
    ['alpha', 'webp', 300, 200],
    ['oriented', 'jpeg', 200, 300],
    ['mirrored', 'jpeg', 300, 200],
  ];
  for (const [name, format, width, height] of expected) {
    test(`${name}: ${format} ${width}x${height}, as sharp reads it`, async () => {
      const header = probeImageHeader(images[name]!);
      assert.ok(header, name);
      assert.equal(header.format, format);
      assert.deepEqual([header.width, header.height], [width, height]);
      const metadata = await sharp(images[name]!).metadata();
      assert.deepEqual([header.width, header.height], [metadata.autoOrient.width, metadata.autoOrient.height]);
    });
  }

  test('EXIF orientation is reported', () => {
    assert.equal(probeImageHeader(images.oriented!)?.orientation, 6);
    assert.equal(probeImageHeader(images.jpeg!)?.orientation, undefined);
  });

  test('reads only the first bytes: the header alone is enough', () => {
    assert.deepEqual(probeImageHeader(images.png!.subarray(0, 24)), { format: 'png', width: 300, height: 200 });
    assert.deepEqual(probeImageHeader(images.gif!.subarray(0, 10)), { format: 'gif', width: 300, height: 200 });
    assert.deepEqual(probeImageHeader(images.webp!.subarray(0, 30)), { format: 'webp', width: 300, height: 200 });
  });

  test('unreadable headers give undefined (the caller falls back to the library probe)', () => {
    const broken: Array<[string, Uint8Array]> = [
      ['empty', new Uint8Array()],
      ['text', Buffer.from('hello world')],
      ['cut PNG', images.png!.subarray(0, 20)],
      ['cut JPEG', images.jpeg!.subarray(0, 100)],
      ['cut GIF', images.gif!.subarray(0, 8)],
      ['cut WebP', images.webp!.subarray(0, 20)],
      ['JPEG without a frame header', Buffer.from([0xff, 0xd8, 0xff, 0xd9, 0, 0])],
      ['JPEG with a bad segment', Buffer.from([0xff, 0xd8, 0x00, 0x00, 0, 0])],
      ['PNG claiming a zero side', pngHeader(0, 10)],
      ['TIFF', Buffer.from('II*\0\x08\0\0\0', 'latin1')],
      ['RIFF that is not WebP', Buffer.from('RIFF\0\0\0\0WAVEfmt                  ', 'latin1')],
    ];
    for (const [name, bytes] of broken) assert.equal(probeImageHeader(bytes), undefined, name);
  });

  test('a header claiming a huge image is read as is (no decoding)', () => {
    assert.deepEqual(probeImageHeader(pngHeader(20000, 20000)), { format: 'png', width: 20000, height: 20000 });
  });
});

describe('limits', () => {
  const cases: Array<[string, ImageSize | undefined, number, boolean]> = [
    ['small', { width: 100, height: 80 }, 22505, true],
    ['exactly at every limit', { width: 1200, height: 1200 }, LIMITS.maxBytes, true],
    ['one byte over', { width: 1200, height: 1200 }, LIMITS.maxBytes + 1, false],
    ['wide', { width: 1201, height: 10 }, 100, false],
    ['tall', { width: 10, height: 1201 }, 100, false],
    ['unknown size', undefined, 100, false],
    ['zero side', { width: 0, height: 10 }, 100, false],
  ];
  for (const [name, size, bytes, within] of cases) {
    test(`isWithinLimits: ${name} -> ${within}`, () => assert.equal(isWithinLimits(size, bytes, LIMITS), within));
  }

  test('the pixel limit applies even under a larger max side', () => {
    const large = { maxDimensionPx: 10000, maxBytes: LIMITS.maxBytes };
    assert.equal(isWithinLimits({ width: 5000, height: 5000 }, 100, large), true);
    assert.equal(isWithinLimits({ width: 5001, height: 5000 }, 100, large), false);
    assert.equal(exceedsPixelLimit({ width: 5000, height: 5000 }), false);
    assert.equal(exceedsPixelLimit({ width: 6000, height: 5000 }), true);
  });

  test('pixel-limit error text', () => {
    const error = pixelLimitError({ width: 6000, height: 5000 });
    assert.ok(error instanceof ImageError);
    assert.equal(error.reason, 'pixelLimit');
    assert.equal(String(error), 'Error: Image dimensions exceed the 25,000,000 pixel input limit: 6000x5000 (30000000 pixels)');
  });
});

describe('resizeSideGrid (§5.4 examples)', () => {
  const cases: Array<[number, ImageSize | undefined, number[]]> = [
    [1200, { width: 2400, height: 1600 }, [1200, 1000, 800]],
    [1200, { width: 1100, height: 1100 }, [1200, 1100, 1000, 800]],
    [640, { width: 2400, height: 1600 }, [640]],
    [2000, { width: 3000, height: 100 }, [2000, 1800, 1600, 1400, 1200, 1000, 800]],
    [1200, undefined, [1200, 1000, 800]],
    [1, { width: 100, height: 80 }, [1]],
  ];
  for (const [max, size, sides] of cases) {
    test(`max ${max}, image ${size ? `${size.width}x${size.height}` : 'unknown'} -> [${sides.join(', ')}]`, () => {
      assert.deepEqual(resizeSideGrid(max, size), sides);
    });
  }
});

describe('fitInside (§5.6 dimensions)', () => {
  const cases: Array<[ImageSize, number, ImageSize]> = [
    [{ width: 2400, height: 1600 }, 1200, { width: 1200, height: 800 }],
    [{ width: 1300, height: 500 }, 1200, { width: 1200, height: 462 }],
    [{ width: 100, height: 3000 }, 1200, { width: 40, height: 1200 }],
    [{ width: 2400, height: 1600 }, 640, { width: 640, height: 427 }],
    [{ width: 100, height: 3000 }, 640, { width: 21, height: 640 }],
    [{ width: 100, height: 5000 }, 1200, { width: 24, height: 1200 }],
    [{ width: 1100, height: 1100 }, 1200, { width: 1100, height: 1100 }],
    [{ width: 100, height: 80 }, 1, { width: 1, height: 1 }],
    [{ width: 3000, height: 1 }, 800, { width: 800, height: 1 }],
  ];
  for (const [size, side, fitted] of cases) {
    test(`${size.width}x${size.height} in ${side} -> ${fitted.width}x${fitted.height}`, () => assert.deepEqual(fitInside(size, side), fitted));
  }
});

describe('formatByteSize', () => {
  const cases: Array<[number, string]> = [
    [512, '512B'],
    [19_968, '19.5KB'],
    [58_778, '57.4KB'],
    [10_485_760, '10.00MB'],
    [5_242_880, '5.00MB'],
  ];
  for (const [bytes, text] of cases) test(`${bytes} -> ${text}`, () => assert.equal(formatByteSize(bytes), text));
});

/** A codec that decodes nothing: JPEG sizes come from `sizeOf(width, height, quality)`. */
function fakeCodec(sizeOf: (size: ImageSize, quality: number) => number, source: ImageSize) {
  const calls: string[] = [];
  const codec: ImageCodec = {
    async probe() {
      calls.push('probe');
      return source;
    },
    async decode(_bytes, side) {
      calls.push(`decode ${side}`);
      const decoded = fitInside(source, side);
      const image: DecodedImage = {
        source,
        ...decoded,
        async encodeJpeg(size, quality) {
          calls.push(`${size.width}x${size.height} q${quality}`);
          return Buffer.alloc(sizeOf(size, quality));
        },
      };
      return image;
    },
  };
  return { codec, calls };
}

describe('resizeToFit (the §5.4 search)', () => {
  test('decodes once, then steps quality down for each side, largest side first; the first fit wins', async () => {
    const source = { width: 2400, height: 1600 };
    const { codec, calls } = fakeCodec((size, quality) => (size.width >= 1000 ? 10_000 : quality <= 65 ? 500 : 900), source);
    const result = await resizeToFit(Buffer.alloc(1), source, { maxDimensionPx: 1200, maxBytes: 600 }, codec);
    assert.deepEqual(calls, [
      'decode 1200',
      ...JPEG_QUALITY_LADDER.map((q) => `1200x800 q${q}`),
      ...JPEG_QUALITY_LADDER.map((q) => `1000x667 q${q}`),
      '800x533 q85',
      '800x533 q75',
      '800x533 q65',
    ]);
    assert.deepEqual({ width: result.width, height: result.height, side: result.side, quality: result.quality, bytes: result.data.length }, { width: 800, height: 533, side: 800, quality: 65, bytes: 500 });
  });

  test('stops at the first candidate when it fits', async () => {
    const source = { width: 1200, height: 1200 };
    const { codec, calls } = fakeCodec(() => 100, source);
    const result = await resizeToFit(Buffer.alloc(1), source, LIMITS, codec);
    assert.deepEqual(calls, ['decode 1200', '1200x1200 q85']);
    assert.equal(result.quality, 85);
  });

  test('a side that fits the image as it is (never enlarged) is tried once, not once per grid side', async () => {
    const source = { width: 1100, height: 1100 };
    const { codec, calls } = fakeCodec(() => 10_000, source);
    await assert.rejects(resizeToFit(Buffer.alloc(1), source, { maxDimensionPx: 1200, maxBytes: 100 }, codec));
    const sizes = calls.filter((call) => call.includes('x')).map((call) => call.split(' ')[0]);
    assert.deepEqual([...new Set(sizes)], ['1100x1100', '1000x1000', '800x800']);
    assert.equal(sizes.length, 3 * JPEG_QUALITY_LADDER.length);
  });

  test('nothing fits: the reference\'s message, with the smallest size reached', async () => {
    const source = { width: 1100, height: 1100 };
    const { codec } = fakeCodec((size, quality) => 58_778 + size.width + quality, source);
    await assert.rejects(resizeToFit(Buffer.alloc(1), source, { maxDimensionPx: 512, maxBytes: 20_000 }, codec), (error: unknown) => {
      assert.ok(error instanceof ImageError);
      assert.equal(error.reason, 'irreducible');
      assert.equal(String(error), 'Error: Image could not be reduced below 19.5KB (got 57.9KB)');
      return true;
    });
  });

  test('a decode failure ends the search', async () => {
    const codec: ImageCodec = {
      probe: async () => ({ width: 1, height: 1 }),
      decode: async () => {
        throw new ImageError('processorUnavailable', 'Image processor unavailable for resizeToJpeg');
      },
    };
    await assert.rejects(resizeToFit(Buffer.alloc(1), { width: 3000, height: 2000 }, LIMITS, codec), /processor unavailable/);
  });
});

describe('the sharp codec', () => {
  const codec = createSharpCodec();

  test('sharpCodec() is one shared instance', () => assert.equal(sharpCodec(), sharpCodec()));

  test('probe reads formats the header probe does not know (TIFF)', async () => {
    const tiff = await texture(320, 240).tiff().toBuffer();
    assert.equal(probeImageHeader(tiff), undefined);
    assert.deepEqual(await codec.probe(tiff), { width: 320, height: 240 });
  });

  test('probe refuses what is not an image', async () => {
    await assert.rejects(codec.probe(Buffer.from('hello world')), (error: unknown) => {
      assert.ok(error instanceof ImageError);
      assert.equal(error.reason, 'undecodable');
      assert.equal(String(error), 'Error: Unable to determine image dimensions; refusing to process');
      return true;
    });
  });

  test('decode fits the image to the side once; encodeJpeg scales those pixels for smaller sides', async () => {
    const png = await texture(2400, 1600).png().toBuffer();
    const decoded = await codec.decode(png, 1200);
    assert.deepEqual([decoded.source.width, decoded.source.height, decoded.width, decoded.height], [2400, 1600, 1200, 800]);
    for (const [size, quality] of [[{ width: 1200, height: 800 }, 85], [{ width: 1200, height: 800 }, 35], [{ width: 800, height: 533 }, 85]] as const) {
      const jpeg = await decoded.encodeJpeg(size, quality);
      const metadata = await sharp(jpeg).metadata();
      assert.deepEqual([metadata.format, metadata.width, metadata.height, metadata.exif], ['jpeg', size.width, size.height, undefined]);
    }
    const larger = await decoded.encodeJpeg({ width: 2400, height: 1600 }, 85);
    assert.equal((await sharp(larger).metadata()).width, 1200, 'never larger than the decoded pixels');
  });

  test('decode never enlarges, applies EXIF orientation and flattens alpha', async () => {
    const oriented = await texture(300, 200, { channels: 4 }).png().toBuffer();
    const small = await codec.decode(oriented, 1200);
    assert.deepEqual([small.width, small.height], [300, 200]);
    const jpeg = await texture(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const rotated = await codec.decode(jpeg, 100);
    assert.deepEqual([rotated.source.width, rotated.source.height, rotated.width, rotated.height], [200, 400, 50, 100]);
    const out = await sharp(await rotated.encodeJpeg({ width: 50, height: 100 }, 85)).metadata();
    assert.deepEqual([out.width, out.height, out.orientation, out.channels], [50, 100, undefined, 3]);
  });

  test('decode refuses corrupt and truncated data', async () => {
    const jpeg = await texture(2000, 1500).jpeg().toBuffer();
    for (const bytes of [jpeg.subarray(0, jpeg.length >> 1), Buffer.concat([pngHeader(2000, 2000), Buffer.alloc(100, 7)])]) {
      await assert.rejects(codec.decode(bytes, 1200), (error: unknown) => {
        assert.ok(error instanceof ImageError);
        assert.equal(error.reason, 'undecodable');
        return true;
      });
    }
  });

  test('decode refuses an image over the pixel limit before decoding it', async () => {
    const idat = pngChunk('IDAT', deflateSync(Buffer.alloc(2501)));
    const bomb = Buffer.concat([pngHeader(20000, 20000), idat, pngChunk('IEND', Buffer.alloc(0))]);
    await assert.rejects(codec.decode(bomb, 1200), (error: unknown) => {
      assert.ok(error instanceof ImageError);
      assert.equal(error.reason, 'pixelLimit');
      return true;
    });
  });
});

describe('imageLimiter', () => {
  test('one shared limiter per width', () => {
    assert.equal(imageLimiter(3), imageLimiter(3));
    assert.notEqual(imageLimiter(3), imageLimiter(2));
    assert.equal(imageLimiter(2).concurrency, 2);
  });
});
