/**
 * limit-request-images: our provider rule, on the routes whose provider limits a request's images
 * as a whole (policy `requestImageLimits`, lib/image-census.ts: Anthropic 32 MB a request and
 * 2000 px a side past 20 images; Bedrock 20 images; OpenAI 500 images and 50 MB).
 *
 * Images are checked one at a time by sanitize-images; this rule sees the request. With a census
 * of the input's images (option `imageCensus`, a pre-scan the file command, `check`, the
 * in-memory API and the pi extension take), it knows before the first message how many of the
 * oldest images the request cannot carry: the newest are kept while the count limit and the
 * request size allow (each image counted at most at the size sanitize-images leaves it, the rest
 * of the transcript and some headroom included), and each older image is replaced, one block for
 * one block, by the image stage's own placeholder text,
 * `[session:history] omitted image payload: over the request's image limit`.
 * The stricter per-image limits (Anthropic's 2000 px past 20 images, Bedrock's 3.75 MB) are
 * sanitize-images', which reads the same census.
 *
 * Memory: one number per image (the census) and a counter; nothing is held. Without a census the
 * rule changes nothing (a bare stream cannot know what comes later): only the per-image limits
 * apply then, the stricter ones where the count is unknown.
 *
 * Runs right before sanitize-images, so the images it replaces are never decoded. It counts the
 * image blocks of every message with a role, as the census does.
 *
 * Unit: buffered (a counter across messages, nothing held). Counters: `replaced`, `replacedChars`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { oldestToReplace, perImageLimits } from '../lib/image-census.ts';
import { OMITTED_IMAGE_PREFIX } from './sanitize-images.ts';

export const OVER_REQUEST_LIMIT_TEXT = `${OMITTED_IMAGE_PREFIX}over the request's image limit`;

/** The message with its images of index below `cutoff` (counted from `first`) replaced; the same object when none is. */
export function replaceOldImages(message: Message, first: number, cutoff: number): { message: Message; images: number; replaced: number; chars: number } {
  if (typeof message.role !== 'string' || message.role === '' || !Array.isArray(message.content)) return { message, images: 0, replaced: 0, chars: 0 };
  let index = first;
  let replaced = 0;
  let chars = 0;
  const content = (message.content as unknown[]).map((block) => {
    if (!isRecord(block) || block.type !== 'image') return block;
    const mine = index++;
    if (mine >= cutoff) return block;
    replaced++;
    chars += typeof block.data === 'string' ? block.data.length : 0;
    return { type: 'text', text: OVER_REQUEST_LIMIT_TEXT };
  });
  return { message: replaced === 0 ? message : ({ ...message, content } as Message), images: index - first, replaced, chars };
}

class RequestImageLimiter implements RuleProcessor {
  private seen = 0;

  constructor(
    private readonly cutoff: number,
    private readonly count: (counter: string, n?: number) => void,
  ) {}

  push(message: Message, emit: Emit): void {
    if (this.seen >= this.cutoff) {
      emit(message);
      return;
    }
    const out = replaceOldImages(message, this.seen, this.cutoff);
    this.seen += out.images;
    if (out.replaced > 0) {
      this.count('replaced', out.replaced);
      this.count('replacedChars', out.chars);
    }
    emit(out.message);
  }

  end(): void {}
}

/** How many of the oldest images the request cannot carry, for a policy and options (0 without a census). */
export function imagesToReplace(policy: TranscriptPolicy, options: ResolvedHygieneOptions): number {
  const limits = policy.requestImageLimits;
  const census = options.imageCensus;
  if (limits === undefined || census === undefined) return 0;
  const perImage = perImageLimits(limits, census.imageChars.length);
  const maxBytes = Math.min(options.imageMaxBytes, perImage.maxImageBytes ?? Infinity);
  return oldestToReplace(census, limits, Math.ceil((maxBytes * 4) / 3));
}

export function limitRequestImagesEnabled(policy: TranscriptPolicy): boolean {
  return policy.requestImageLimits !== undefined;
}

export const limitRequestImagesRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'limit-request-images',
    summary: 'Routes with request-wide image limits (Anthropic 32 MB; Bedrock 20 images; OpenAI 500 images, 50 MB), given a pre-scan census of the images: replaces the oldest images the request cannot carry with the image placeholder text, newest kept.',
    counters: ['replaced', 'replacedChars'],
  },
  create: (ctx: RuleContext) => new RequestImageLimiter(imagesToReplace(ctx.policy, ctx.options), ctx.count),
};
