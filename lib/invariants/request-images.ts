/**
 * Request-wide image limits (policy `requestImageLimits`, the numbers and their sources in
 * lib/image-census.ts): how many images one request may carry, how large it may be, and the
 * stricter side limit Anthropic sets once a request holds more than 20 images. Read over the
 * messages the runtime sends (turns.ts): images in user, tool result and assistant content alike.
 */
import { probeImageHeader } from '../images.ts';
import { REQUEST_HEADROOM_BYTES } from '../image-census.ts';
import type { InvariantFamily, InvariantRule, Violation } from './types.ts';
import type { ReplayView } from './turns.ts';

interface SentImage {
  readonly index: number;
  readonly block: number;
  readonly data: string;
}

function imagesOf(view: ReplayView): SentImage[] {
  const images: SentImage[] = [];
  for (const turn of view.turns) {
    for (const entry of turn.entries) {
      const content = entry.message.content;
      if (!Array.isArray(content)) continue;
      content.forEach((block: unknown, at: number) => {
        if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'image') {
          const data = (block as { data?: unknown }).data;
          images.push({ index: entry.index, block: at, data: typeof data === 'string' ? data : '' });
        }
      });
    }
  }
  return images;
}

function requestBytes(view: ReplayView): number {
  let bytes = REQUEST_HEADROOM_BYTES;
  for (const turn of view.turns) for (const entry of turn.entries) bytes += (JSON.stringify(entry.message) ?? '').length;
  return bytes;
}

export function requestImagesRule(family: InvariantFamily): InvariantRule {
  const id = `${family}/request-images`;
  const push = (out: Violation[], image: SentImage | undefined, message: string): void => {
    out.push({ rule: id, family, index: image?.index ?? 0, ...(image === undefined ? {} : { block: image.block }), message });
  };
  return {
    id,
    family,
    summary: 'The request\'s images as a whole: at most the provider\'s count (Bedrock 20, OpenAI 500), within its request size (Anthropic 32 MB, OpenAI 50 MB), and at most 2000 px a side on Anthropic past 20 images.',
    source:
      'Anthropic "Images and vision": "If you submit more than 20 images in one API request, this limit is reduced to 2000x2000 px", 32 MB request size limit; Bedrock Converse ImageBlock: "You can include up to 20 images. Each image\'s size, height, and width must be no more than 3.75 MB, 8,000 px, and 8,000 px"; OpenAI "Images and vision": up to 500 images and 50 MB a request.',
    check: (view, context, out) => {
      const limits = context.policy.requestImageLimits;
      if (limits === undefined) return;
      const images = imagesOf(view);
      if (limits.maxCount !== undefined && images.length > limits.maxCount) {
        for (const image of images.slice(0, images.length - limits.maxCount)) push(out, image, `the request carries ${images.length} images; at most ${limits.maxCount} are allowed`);
      }
      if (limits.maxRequestBytes !== undefined && images.length > 0) {
        const bytes = requestBytes(view);
        if (bytes > limits.maxRequestBytes) push(out, images[0], `the request is about ${bytes} bytes with its images; the limit is ${limits.maxRequestBytes}`);
      }
      const many = limits.manyImages !== undefined && images.length > limits.manyImages;
      const side = many && limits.manyImagesMaxDimensionPx !== undefined ? limits.manyImagesMaxDimensionPx : limits.maxDimensionPx;
      if (side === undefined) return;
      for (const image of images) {
        const header = probeImageHeader(Buffer.from(image.data, 'base64'));
        if (header === undefined || Math.max(header.width, header.height) <= side) continue;
        push(out, image, `an image is ${header.width}x${header.height} px; at most ${side} px a side${many ? ` when a request holds more than ${limits.manyImages} images` : ''}`);
      }
    },
  };
}

export const REQUEST_IMAGES_RULES: Readonly<Record<InvariantFamily, InvariantRule>> = Object.freeze({
  anthropic: requestImagesRule('anthropic'),
  bedrock: requestImagesRule('bedrock'),
  gemini: requestImagesRule('gemini'),
  'openai-responses': requestImagesRule('openai-responses'),
  'chat-completions': requestImagesRule('chat-completions'),
  mistral: requestImagesRule('mistral'),
});
