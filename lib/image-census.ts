/**
 * Request-wide image limits (issue 29, item 3): the per-route numbers, and the census a pre-scan
 * takes of an input's images so the image stage knows the count and the bytes before it decides.
 *
 * Per route (policy `requestImageLimits`):
 * - Anthropic Messages: at most 8000 px a side, 2000 px once a request holds more than 20 images;
 *   a request within 32 MB ("Images and vision", platform.claude.com/docs/en/build-with-claude/vision:
 *   "If you submit more than 20 images in one API request, this limit is reduced to 2000x2000 px";
 *   request size limits: 32 MB for standard endpoints).
 * - Bedrock Converse: at most 20 images, each at most 3.75 MB and 8000 px a side (Converse API
 *   reference, ImageBlock: "You can include up to 20 images. Each image's size, height, and width
 *   must be no more than 3.75 MB, 8,000 px, and 8,000 px, respectively.").
 * - OpenAI (provider openai or azure-openai, chat completions or Responses): at most 500 images and
 *   50 MB of payload a request (OpenAI "Images and vision", image input requirements).
 *
 * The census is one number per image (its base64 length), in input order, and the length of
 * everything else: a few bytes an image, whatever the images hold.
 */
import { Buffer } from 'node:buffer';
import { isRecord } from './types.ts';

export interface RequestImageLimits {
  /** Images a request may carry; the oldest beyond it are replaced. */
  readonly maxCount: number | undefined;
  /** Bytes of the request body; the oldest images are replaced until the images fit in it. */
  readonly maxRequestBytes: number | undefined;
  /** The longest side of any image (8000 on Anthropic and Bedrock). */
  readonly maxDimensionPx: number | undefined;
  /** The decoded bytes of any image (Bedrock: 3.75 MB). */
  readonly maxImageBytes: number | undefined;
  /** More images than this in one request ... */
  readonly manyImages: number | undefined;
  /** ... and every image must be at most this many px a side (Anthropic: 20, 2000). */
  readonly manyImagesMaxDimensionPx: number | undefined;
}

const MB = 1000 * 1000;

export const ANTHROPIC_IMAGE_LIMITS: RequestImageLimits = Object.freeze({
  maxCount: undefined,
  maxRequestBytes: 32 * MB,
  maxDimensionPx: 8000,
  maxImageBytes: undefined,
  manyImages: 20,
  manyImagesMaxDimensionPx: 2000,
});

export const BEDROCK_IMAGE_LIMITS: RequestImageLimits = Object.freeze({
  maxCount: 20,
  maxRequestBytes: undefined,
  maxDimensionPx: 8000,
  maxImageBytes: 3.75 * MB,
  manyImages: undefined,
  manyImagesMaxDimensionPx: undefined,
});

export const OPENAI_IMAGE_LIMITS: RequestImageLimits = Object.freeze({
  maxCount: 500,
  maxRequestBytes: 50 * MB,
  maxDimensionPx: undefined,
  maxImageBytes: undefined,
  manyImages: undefined,
  manyImagesMaxDimensionPx: undefined,
});

/** Room left in a request for what the transcript does not hold (system prompt, tool definitions). */
export const REQUEST_HEADROOM_BYTES = 256 * 1024;

/** What a pre-scan learned about an input's images. */
export interface ImageCensus {
  /** The base64 length of each image block, in input order. */
  readonly imageChars: readonly number[];
  /** The UTF-8 bytes of everything else in the input (its JSON, newlines left out). */
  readonly otherBytes: number;
}

function isImageBlock(block: unknown): block is { type: 'image'; data?: unknown } {
  return isRecord(block) && block.type === 'image';
}

/** Adds the image blocks of one message to `chars`; returns their total length. */
export function collect(message: unknown, chars: number[]): number {
  // Role-less messages never reach the image stage (drop-role-less-messages), so they are not counted.
  if (!isRecord(message) || typeof message.role !== 'string' || message.role === '' || !Array.isArray(message.content)) return 0;
  let total = 0;
  for (const block of message.content) {
    if (!isImageBlock(block)) continue;
    const length = typeof block.data === 'string' ? block.data.length : 0;
    chars.push(length);
    total += length;
  }
  return total;
}

/** Whether any message with a role holds an image block (a census is only worth taking then). */
export function hasImages(messages: readonly unknown[]): boolean {
  return messages.some((message) => isRecord(message) && typeof message.role === 'string' && Array.isArray(message.content) && message.content.some(isImageBlock));
}

/** The census of a message list held in memory, when it holds images (undefined otherwise: nothing to limit). */
export function imageCensusIfImages(messages: readonly unknown[]): ImageCensus | undefined {
  return hasImages(messages) ? imageCensusOf(messages) : undefined;
}

/** The census of a message list held in memory. */
export function imageCensusOf(messages: readonly unknown[]): ImageCensus {
  const imageChars: number[] = [];
  let otherBytes = 0;
  for (const message of messages) {
    const images = collect(message, imageChars);
    otherBytes += Math.max(0, Buffer.byteLength(JSON.stringify(message) ?? '', 'utf8') - images);
  }
  return { imageChars, otherBytes };
}

/** Bytes that mark a line worth parsing for the census: every image block has `"type":"image"`. */
const IMAGE_KEY = Buffer.from('"image"', 'latin1');

/** Adds the image blocks of one JSONL line (a message, an entry, or a JSON array of them); returns their length. */
function collectLine(line: string, chars: number[]): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 0;
  }
  const messages = Array.isArray(parsed) ? parsed : [isRecord(parsed) && isRecord(parsed.message) ? parsed.message : parsed];
  let images = 0;
  for (const message of messages) images += collect(message, chars);
  return images;
}

/**
 * The census of a JSONL file, taken by the input scan (lib/result-index.ts, scanInputFile) over the
 * bytes it reads anyway: only lines holding `"image"` are parsed; every other byte just counts.
 * (Its own read of the file, a line at a time, cost a third of the anthropic route's time.)
 */
export class ImageCensusScan {
  private readonly imageChars: number[] = [];
  private bytes = 0;
  private images = 0;

  /** Whole lines, `newlines` of them ended by a newline. */
  add(buffer: Buffer, newlines: number): void {
    this.bytes += buffer.length - newlines;
    for (let at = buffer.indexOf(IMAGE_KEY); at >= 0; ) {
      const start = buffer.lastIndexOf(10, at) + 1;
      let end = buffer.indexOf(10, at);
      if (end < 0) end = buffer.length;
      this.images += collectLine(buffer.toString('utf8', start, end), this.imageChars);
      at = buffer.indexOf(IMAGE_KEY, end);
    }
  }

  result(): ImageCensus {
    return { imageChars: this.imageChars, otherBytes: Math.max(0, this.bytes - this.images) };
  }
}

/** The stricter per-image limits a route's request-wide rule sets, given how many images it carries. */
export function perImageLimits(limits: RequestImageLimits, imageCount: number | undefined): { maxDimensionPx: number | undefined; maxImageBytes: number | undefined } {
  let maxDimensionPx = limits.maxDimensionPx;
  // Without a census the count is unknown: the stricter limit, which is always safe.
  const many = limits.manyImages !== undefined && (imageCount === undefined || imageCount > limits.manyImages);
  if (many && limits.manyImagesMaxDimensionPx !== undefined) maxDimensionPx = Math.min(maxDimensionPx ?? Infinity, limits.manyImagesMaxDimensionPx);
  return { maxDimensionPx, maxImageBytes: limits.maxImageBytes };
}

/**
 * How many of the oldest images to replace so the newest fit: the count limit, then the request
 * size (each image at most `maxImageChars` of base64 once the image stage has run).
 */
export function oldestToReplace(census: ImageCensus, limits: RequestImageLimits, maxImageChars: number): number {
  const sizes = census.imageChars;
  let keep = 0;
  let bytes = census.otherBytes + REQUEST_HEADROOM_BYTES;
  for (let i = sizes.length - 1; i >= 0; i--) {
    if (limits.maxCount !== undefined && keep >= limits.maxCount) break;
    const size = Math.min(sizes[i]!, maxImageChars);
    if (limits.maxRequestBytes !== undefined && bytes + size > limits.maxRequestBytes) break;
    bytes += size;
    keep++;
  }
  return sizes.length - keep;
}
