/**
 * sanitize-images (spec turns-images-policy.md §5, the image half of pass B §4.2, pipeline step 5).
 *
 * Invariant: every base64 `image` block in user, tool-result and assistant array content is
 * canonical base64 whose mimeType matches its first bytes (JPEG, PNG, GIF) and is within the
 * limits (longest side <= imageMaxDimensionPx, decoded size <= imageMaxBytes, <= 25,000,000
 * pixels), or has been replaced, one block for one block, by the text
 * `[session:history] omitted image payload: <why>` (or `[session:history] omitted empty image payload`).
 * Oversized images are re-encoded as JPEG by the resize search of §5.4. Runs before
 * drop-blank-text-blocks; images never produce blank text, so the split keeps pass B's result.
 *
 * Error prevented: providers reject replayed images over their size and dimension limits
 * ("image exceeds 5 MB maximum", "image dimensions exceed max allowed size") and invalid
 * base64 ("Could not process image"); oversized images also cost tokens on every call.
 *
 * Unit: message, asynchronous (a buffered rule). In-limits images are decided from the base64
 * length and the image header, synchronously; a message whose images are all decided so is
 * emitted at once when nothing is in flight. Images that need the codec (resize, or a format the
 * header probe does not know) run on a p-limit of `concurrency`; messages keep their order, and
 * the stage stops taking input while `concurrency` images are in flight (or its queue is long),
 * so memory is bounded by images in flight, not by the transcript. A bad image never fails the
 * stream: it becomes the replacement text and is counted.
 *
 * Counters: `kept` (unchanged), `canonicalized` (within limits; base64 or mimeType rewritten),
 * `resized`, `bytesBeforeResize`, `bytesAfterResize`, `omitted` (all replacements) and one
 * `omitted<Reason>` per cause: MissingData, Empty, InputTooLarge, InvalidBase64, Undecodable,
 * PixelLimit, Irreducible, EncodeFailed, ProcessorUnavailable.
 */
import { releasedLargeStrings } from '../lib/large-garbage.ts';
import { Unforkable } from '../lib/fork-state.ts';
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, ImageBlock, Message, TextBlock } from '../lib/types.ts';
import {
  ImageError,
  MAX_IMAGE_INPUT_BYTES,
  checkImageBase64,
  exceedsPixelLimit,
  formatByteSize,
  imageLimiter,
  isWithinLimits,
  pixelLimitError,
  probeImageHeader,
  resizeToFit,
  sharpCodec,
  sniffImageMimeType,
  type ImageCodec,
  type ImageFailure,
  type ImageLimits,
  type ImageSize,
} from '../lib/images.ts';
import { perImageLimits } from '../lib/image-census.ts';

/** The label of the replay pipeline's image pass (§5.1). */
export const IMAGE_LABEL = 'session:history';
/** The fixed start of every replacement text but the empty-payload one (§5.3, §5.5). */
export const OMITTED_IMAGE_PREFIX = `[${IMAGE_LABEL}] omitted image payload: `;
/** The replacement text of an empty payload (§5.3 step 4). */
export const OMITTED_EMPTY_IMAGE_TEXT = `[${IMAGE_LABEL}] omitted empty image payload`;

/**
 * Messages held for order before the stage stops taking input, whatever is in flight: a slow
 * image must not let the messages queued behind it grow with the transcript.
 */
export const MAX_QUEUED_MESSAGES = 1024;
/** Base64 characters of image data held in queued messages before the stage stops taking input. */
export const MAX_QUEUED_IMAGE_CHARS = 64 * 1024 * 1024;

export type OmitReason = 'missingData' | 'empty' | 'inputTooLarge' | 'invalidBase64' | ImageFailure;

/** What became of one image block. */
export type ImageOutcome =
  | { readonly kind: 'kept'; readonly block: ContentBlock }
  | { readonly kind: 'canonicalized'; readonly block: ImageBlock }
  | { readonly kind: 'resized'; readonly block: ImageBlock; readonly bytesIn: number; readonly bytesOut: number }
  | { readonly kind: 'omitted'; readonly block: TextBlock; readonly reason: OmitReason };

/** An image block whose fate needs the codec: a resize, or first a full probe (unknown header). */
export interface ImageJob {
  readonly kind: 'job';
  readonly block: ImageBlock;
  /** Canonical base64 of the image: decoded in full only when the job runs. */
  readonly canonical: string;
  /** The mimeType the block keeps if it turns out to be within limits (§5.3 step 6). */
  readonly mimeType: string;
  readonly byteLength: number;
  /** From the header probe; undefined when the header was not one the probe reads. */
  readonly size: ImageSize | undefined;
}

/** An object with `type: "image"`: the blocks §5.3 looks at (anything else is copied unchanged). */
export function isImageTypeBlock(block: unknown): block is ImageBlock {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'image';
}

/**
 * Whether the message has image blocks where pass B looks (user, tool-result and assistant
 * array content). The cheap check every message goes through: no image, no work.
 */
export function hasImageBlocks(message: Message): boolean {
  const role = message.role;
  if (role !== 'user' && role !== 'toolResult' && role !== 'assistant') return false;
  const content = message.content;
  if (!Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) if (isImageTypeBlock(content[i])) return true;
  return false;
}

function omitted(reason: OmitReason, why: string): ImageOutcome {
  return { kind: 'omitted', reason, block: { type: 'text', text: OMITTED_IMAGE_PREFIX + why } };
}

/** The replacement for a failed job: our own error text after the fixed prefix (§5.3 step 8). */
export function omittedForError(error: unknown): ImageOutcome {
  const reason: OmitReason = error instanceof ImageError ? error.reason : 'undecodable';
  return omitted(reason, String(error));
}

function passed(block: ImageBlock, canonical: string, mimeType: string): ImageOutcome {
  if (canonical === block.data && mimeType === block.mimeType) return { kind: 'kept', block };
  return { kind: 'canonicalized', block: { ...block, data: canonical, mimeType } };
}

/**
 * The synchronous part of §5.3 for one image block: steps 2 to 6, the header probe and the
 * within-limits test of §5.4, and the pixel limit checked from the header before anything is
 * decoded. Returns the outcome when that decides it, or the job the codec must finish.
 */
export function prepareImageBlock(block: ImageBlock, limits: ImageLimits): ImageOutcome | ImageJob {
  const { data, mimeType } = block;
  if (typeof data !== 'string' || typeof mimeType !== 'string') return omitted('missingData', 'missing data or mimeType');
  const checked = checkImageBase64(data, MAX_IMAGE_INPUT_BYTES);
  if (!checked.ok) {
    switch (checked.failure) {
      case 'inputTooLarge':
        return omitted('inputTooLarge', `image exceeds input size limit (${formatByteSize(MAX_IMAGE_INPUT_BYTES)})`);
      case 'empty':
        return { kind: 'omitted', reason: 'empty', block: { type: 'text', text: OMITTED_EMPTY_IMAGE_TEXT } };
      case 'invalidBase64':
        return omitted('invalidBase64', 'invalid base64');
    }
  }
  const { canonical, byteLength, head } = checked;
  const kept = sniffImageMimeType(canonical) ?? mimeType;
  // A JPEG whose frame header sits behind large metadata segments needs more than the head.
  const header = probeImageHeader(head) ?? (head.length < byteLength ? probeImageHeader(Buffer.from(canonical, 'base64')) : undefined);
  if (header !== undefined) {
    if (isWithinLimits(header, byteLength, limits)) return passed(block, canonical, kept);
    if (exceedsPixelLimit(header)) return omittedForError(pixelLimitError(header));
  }
  const size = header === undefined ? undefined : { width: header.width, height: header.height };
  return { kind: 'job', block, canonical, mimeType: kept, byteLength, size };
}

/**
 * The asynchronous part: the full library probe when the header was unknown (then the same
 * within-limits test), and the resize search. Never rejects: failures become the replacement text.
 */
export async function finishImageJob(job: ImageJob, limits: ImageLimits, codec: ImageCodec): Promise<ImageOutcome> {
  try {
    const bytes = Buffer.from(job.canonical, 'base64');
    let size = job.size;
    if (size === undefined) {
      size = await codec.probe(bytes);
      if (isWithinLimits(size, job.byteLength, limits)) return passed(job.block, job.canonical, job.mimeType);
      if (exceedsPixelLimit(size)) throw pixelLimitError(size);
    }
    const result = await resizeToFit(bytes, size, limits, codec);
    return {
      kind: 'resized',
      block: { ...job.block, data: result.data.toString('base64'), mimeType: 'image/jpeg' },
      bytesIn: job.byteLength,
      bytesOut: result.data.length,
    };
  } catch (error) {
    return omittedForError(error);
  }
}

/** §5.3 for one block, start to end (blocks that are not images come back unchanged). */
export async function sanitizeImageBlock(block: unknown, limits: ImageLimits, codec: ImageCodec = sharpCodec()): Promise<ImageOutcome> {
  if (!isImageTypeBlock(block)) return { kind: 'kept', block: block as ContentBlock };
  const prepared = prepareImageBlock(block, limits);
  return prepared.kind === 'job' ? finishImageJob(prepared, limits, codec) : prepared;
}

function capitalized(reason: OmitReason): string {
  return reason[0]!.toUpperCase() + reason.slice(1);
}

const OMIT_REASONS: readonly OmitReason[] = [
  'missingData',
  'empty',
  'inputTooLarge',
  'invalidBase64',
  'undecodable',
  'pixelLimit',
  'irreducible',
  'encodeFailed',
  'processorUnavailable',
];

function record(ctx: RuleContext, outcome: ImageOutcome): void {
  switch (outcome.kind) {
    case 'kept':
    case 'canonicalized':
      ctx.count(outcome.kind);
      return;
    case 'resized':
      ctx.count('resized');
      ctx.count('bytesBeforeResize', outcome.bytesIn);
      ctx.count('bytesAfterResize', outcome.bytesOut);
      return;
    case 'omitted':
      ctx.count('omitted');
      ctx.count(`omitted${capitalized(outcome.reason)}`);
      return;
  }
}

/** Base64 characters of image data in a content array (what a queued message holds). */
function imageChars(blocks: readonly unknown[]): number {
  let chars = 0;
  for (const block of blocks) {
    if (isImageTypeBlock(block) && typeof block.data === 'string') chars += block.data.length;
  }
  return chars;
}

/** One message held for order. */
interface Entry {
  /** The output message; its content array is filled in as jobs finish. */
  readonly out: Message;
  /** Jobs still running. */
  waiting: number;
  /** Image characters this entry holds, for the queue budget. */
  chars: number;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A rejection nobody waits for (the runner stopped first) must not surface as unhandled.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

export interface SanitizeImagesRuleInit {
  /** The image library (default: sharp). Tests inject a fake. */
  codec?: ImageCodec;
  /** Default MAX_QUEUED_MESSAGES. */
  maxQueuedMessages?: number;
  /** Default MAX_QUEUED_IMAGE_CHARS. */
  maxQueuedImageChars?: number;
}

function createProcessor(ctx: RuleContext, init: SanitizeImagesRuleInit): RuleProcessor {
  const codec = init.codec ?? sharpCodec();
  const maxQueuedMessages = init.maxQueuedMessages ?? MAX_QUEUED_MESSAGES;
  const maxQueuedImageChars = init.maxQueuedImageChars ?? MAX_QUEUED_IMAGE_CHARS;
  // The route's request-wide rule may set stricter per-image limits (lib/image-census.ts).
  const routeLimits = ctx.policy.requestImageLimits === undefined ? undefined : perImageLimits(ctx.policy.requestImageLimits, ctx.options.imageCensus?.imageChars.length);
  const limits: ImageLimits = {
    maxDimensionPx: Math.min(ctx.options.imageMaxDimensionPx, routeLimits?.maxDimensionPx ?? Infinity),
    maxBytes: Math.min(ctx.options.imageMaxBytes, Math.floor(routeLimits?.maxImageBytes ?? Infinity)),
  };
  const width = ctx.options.concurrency;
  const limit = imageLimiter(width);
  const queue: Entry[] = [];
  let inFlight = 0;
  let heldChars = 0;
  let failed = false;
  let failure: unknown;
  let disposed = false;
  let emitTo: Emit | undefined;
  let waiter: Deferred | undefined;
  let ender: Deferred | undefined;

  const blocked = (): boolean =>
    inFlight >= width || queue.length >= maxQueuedMessages || (queue.length > 0 && heldChars >= maxQueuedImageChars);

  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    failure = error;
    queue.length = 0;
    heldChars = 0;
    waiter?.reject(error);
    ender?.reject(error);
    waiter = ender = undefined;
  };

  // Emits every finished message at the head of the queue. Runs from job callbacks, so what
  // emit throws (a later rule failing) is caught here and handed to ready()/end().
  const drain = (): void => {
    while (!failed && queue.length > 0 && queue[0]!.waiting === 0) {
      const entry = queue.shift()!;
      heldChars -= entry.chars;
      try {
        emitTo!(entry.out);
      } catch (error) {
        fail(error);
        return;
      }
    }
    if (queue.length === 0 && ender !== undefined) {
      ender.resolve();
      ender = undefined;
    }
    if (waiter !== undefined && !blocked()) {
      waiter.resolve();
      waiter = undefined;
    }
  };

  const settle = (entry: Entry, index: number, job: ImageJob, outcome: ImageOutcome): void => {
    inFlight--;
    if (disposed || failed) return;
    record(ctx, outcome);
    const after = (outcome.block as ImageBlock).data;
    const before = (job.block.data as string).length;
    // The input line and the old data are garbage now; the output line will be soon.
    releasedLargeStrings(2 * before + (typeof after === 'string' ? after.length : 0));
    const delta = (typeof after === 'string' ? after.length : 0) - before;
    entry.chars += delta;
    heldChars += delta;
    (entry.out.content as unknown[])[index] = outcome.block;
    entry.waiting--;
    drain();
  };

  const start = (entry: Entry, index: number, job: ImageJob): void => {
    inFlight++;
    limit(() => (disposed || failed ? undefined : finishImageJob(job, limits, codec))).then(
      (outcome) => {
        if (outcome === undefined) inFlight--;
        else settle(entry, index, job, outcome);
      },
      /* c8 ignore next -- finishImageJob never rejects; kept so a bug cannot stall the stream */
      (error: unknown) => settle(entry, index, job, omittedForError(error)),
    );
  };

  // Queues a finished message behind unfinished ones, or emits it now when nothing is ahead.
  const hold = (message: Message, emit: Emit, chars: number): void => {
    if (queue.length === 0) {
      emit(message);
      return;
    }
    queue.push({ out: message, waiting: 0, chars });
    heldChars += chars;
  };

  return {
    push(message, emit) {
      if (failed) throw failure;
      emitTo = emit;
      if (!hasImageBlocks(message)) {
        hold(message, emit, 0);
        return;
      }
      const content = message.content as unknown[];
      let blocks: unknown[] | undefined;
      let jobs: Array<[number, ImageJob]> | undefined;
      for (let i = 0; i < content.length; i++) {
        const block = content[i];
        if (!isImageTypeBlock(block)) continue;
        const prepared = prepareImageBlock(block, limits);
        if (prepared.kind === 'job') {
          (jobs ??= []).push([i, prepared]);
          continue;
        }
        record(ctx, prepared);
        if (prepared.block !== block) (blocks ??= content.slice())[i] = prepared.block;
      }
      if (jobs === undefined) {
        const chars = imageChars(blocks ?? content);
        // Images decided without decoding still leave their input line behind as garbage.
        releasedLargeStrings(chars);
        const out = blocks === undefined ? message : { ...message, content: blocks as ContentBlock[] };
        hold(out, emit, queue.length === 0 ? 0 : chars);
        return;
      }
      // The output object now, so the input message is not held; job slots are filled as jobs finish.
      const entry: Entry = { out: { ...message, content: (blocks ?? content.slice()) as ContentBlock[] }, waiting: jobs.length, chars: imageChars(blocks ?? content) };
      queue.push(entry);
      heldChars += entry.chars;
      for (const [index, job] of jobs) start(entry, index, job);
    },
    ready() {
      if (failed) return Promise.reject(failure);
      if (!blocked()) return undefined;
      waiter ??= deferred();
      return waiter.promise;
    },
    end(emit) {
      emitTo = emit;
      if (failed) return Promise.reject(failure);
      if (queue.length === 0) return undefined;
      ender ??= deferred();
      return ender.promise;
    },
    dispose() {
      disposed = true;
      queue.length = 0;
      heldChars = 0;
      waiter = ender = undefined;
    },
    fork(forkCtx) {
      // Idle (nothing queued, nothing in flight), the processor holds no state a fresh one lacks.
      if (queue.length > 0 || inFlight > 0 || failed || disposed) throw new Unforkable('sanitize-images has work in flight');
      return createProcessor(forkCtx, init);
    },
  };
}

/** The rule with an injected codec or queue bounds (tests); the pipeline uses `sanitizeImagesRule`. */
export function createSanitizeImagesRule(init: SanitizeImagesRuleInit = {}): BufferedRule {
  return {
    unit: 'buffered',
    meta: {
      name: 'sanitize-images',
      summary:
        'Keeps base64 images within limits (max side, 5 MiB, 25 MP): in-limits images pass untouched (base64 canonicalized, mimeType from the data), oversized ones are re-encoded as JPEG, undecodable ones become "[session:history] omitted image payload: ..." text.',
      counters: ['kept', 'canonicalized', 'resized', 'bytesBeforeResize', 'bytesAfterResize', 'omitted', ...OMIT_REASONS.map((reason) => `omitted${capitalized(reason)}`)],
    },
    create(ctx) {
      return createProcessor(ctx, init);
    },
  };
}

export const sanitizeImagesRule: BufferedRule = createSanitizeImagesRule();
