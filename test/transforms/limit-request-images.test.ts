import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { OVER_REQUEST_LIMIT_TEXT, imagesToReplace, limitRequestImagesRule, replaceOldImages } from '../../transforms/limit-request-images.ts';
import { ANTHROPIC_IMAGE_LIMITS, BEDROCK_IMAGE_LIMITS, OPENAI_IMAGE_LIMITS, imageCensusOf, oldestToReplace, perImageLimits } from '../../lib/image-census.ts';
import { scanInputFile } from '../../lib/result-index.ts';
import { readSessionMessages } from '../../lib/session/read.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { hygieneOutput } from '../../lib/invariants/check-command.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { texture } from '../helpers/images.ts';
import { piModel, piPayload } from '../helpers/pi-payload.ts';
import { runCli } from '../helpers/run-cli.ts';

const BEDROCK = { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
const ANTHROPIC = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };

async function jpegData(width: number, height: number): Promise<string> {
  return (await texture(width, height).jpeg({ quality: 80 }).toBuffer()).toString('base64');
}

/** `n` user turns, each with one image and its number, answered each time. */
function screenshots(n: number, data: string): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    out.push(user([text(`shot ${i}`), { type: 'image', data, mimeType: 'image/jpeg' }]));
    out.push(assistant([text(`seen ${i}`)]));
  }
  return deepFreeze(out);
}

test('the numbers per route', () => {
  assert.equal(resolveTranscriptPolicy(ANTHROPIC).requestImageLimits, ANTHROPIC_IMAGE_LIMITS);
  assert.equal(resolveTranscriptPolicy(BEDROCK).requestImageLimits, BEDROCK_IMAGE_LIMITS);
  assert.equal(resolveTranscriptPolicy({ provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' }).requestImageLimits, OPENAI_IMAGE_LIMITS);
  assert.equal(resolveTranscriptPolicy({ provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }).requestImageLimits, undefined);
  assert.deepEqual(perImageLimits(ANTHROPIC_IMAGE_LIMITS, 20), { maxDimensionPx: 8000, maxImageBytes: undefined });
  assert.deepEqual(perImageLimits(ANTHROPIC_IMAGE_LIMITS, 21), { maxDimensionPx: 2000, maxImageBytes: undefined });
  assert.deepEqual(perImageLimits(ANTHROPIC_IMAGE_LIMITS, undefined), { maxDimensionPx: 2000, maxImageBytes: undefined });
  assert.deepEqual(perImageLimits(BEDROCK_IMAGE_LIMITS, 3), { maxDimensionPx: 8000, maxImageBytes: 3_750_000 });
});

test('oldestToReplace: the count limit, then the request size, newest kept', () => {
  const census = { imageChars: Array.from({ length: 25 }, () => 1000), otherBytes: 0 };
  assert.equal(oldestToReplace(census, BEDROCK_IMAGE_LIMITS, 10_000_000), 5);
  assert.equal(oldestToReplace({ imageChars: [1000, 1000], otherBytes: 0 }, BEDROCK_IMAGE_LIMITS, 10_000_000), 0);
  const big = { imageChars: Array.from({ length: 10 }, () => 6_000_000), otherBytes: 1_000_000 };
  // 32 MB minus 1 MB of text and the headroom: five 6 MB images fit, not six.
  assert.equal(oldestToReplace(big, ANTHROPIC_IMAGE_LIMITS, 10_000_000), 5);
  // Each image counted at most at the size the image stage leaves it.
  assert.equal(oldestToReplace(big, ANTHROPIC_IMAGE_LIMITS, 1_000_000), 0);
});

test('replaceOldImages: one block for one block, counted from where the stream is', () => {
  const message = deepFreeze(user([{ type: 'image', data: 'AAAA', mimeType: 'image/png' }, text('x'), { type: 'image', data: 'BBBB', mimeType: 'image/png' }]));
  const out = replaceOldImages(message, 4, 6);
  assert.deepEqual(out.message.content, [text(OVER_REQUEST_LIMIT_TEXT), text('x'), text(OVER_REQUEST_LIMIT_TEXT)]);
  assert.deepEqual([out.images, out.replaced, out.chars], [2, 2, 8]);
  assert.equal(replaceOldImages(message, 6, 6).message, message);
});

test('rule: without a census nothing changes; with one, the oldest go and are counted', async () => {
  const input = screenshots(23, await jpegData(32, 32));
  const without = runRule(limitRequestImagesRule, input, { policy: { requestImageLimits: BEDROCK_IMAGE_LIMITS }, options: BEDROCK });
  assert.deepEqual(without.counts, {});
  const census = imageCensusOf(input);
  assert.equal(imagesToReplace(resolveTranscriptPolicy(BEDROCK), resolveHygieneOptions({ ...BEDROCK, imageCensus: census })), 3);
  const { output, counts } = runRule(limitRequestImagesRule, input, { policy: { requestImageLimits: BEDROCK_IMAGE_LIMITS }, options: { ...BEDROCK, imageCensus: census } });
  assert.equal(counts.replaced, 3);
  assert.deepEqual((output[4]!.content as unknown[])[1], text(OVER_REQUEST_LIMIT_TEXT));
  assert.equal(output[6], input[6], 'the fourth image on is kept as it came');
});

test('Bedrock through the pipeline, check and pi-ai\'s Converse builder: 23 images go out as the newest 20', async () => {
  const input = screenshots(23, await jpegData(32, 32));
  assert.deepEqual(checkTranscript(input, BEDROCK).filter((v) => v.rule === 'bedrock/request-images').map((v) => v.index), [0, 2, 4]);
  const out = await hygieneOutput(input, BEDROCK);
  assert.deepEqual(checkTranscript(out, BEDROCK), []);
  const body = await piPayload(piModel('amazon-bedrock', BEDROCK.modelId), out);
  const images = JSON.stringify(body.messages).match(/"image":/g) ?? [];
  assert.equal(images.length, 20);
  assert.match(JSON.stringify(body.messages), /over the request's image limit/);
});

test('Anthropic: more than 20 images are resized to 2000 px a side even when the option allows more', async () => {
  const input = screenshots(21, await jpegData(2400, 1200));
  const route = { ...ANTHROPIC, imageMaxDimensionPx: 4000, imageMaxBytes: 10 * 1024 * 1024 };
  assert.ok(checkTranscript(input, route).some((v) => v.rule === 'anthropic/request-images'));
  const out = await hygieneOutput(input, route);
  const first = (out[0]!.content as Array<{ type: string; data?: string }>).find((b) => b.type === 'image')!;
  const meta = await sharp(Buffer.from(first.data!, 'base64')).metadata();
  assert.ok(Math.max(meta.width!, meta.height!) <= 2000, `${meta.width}x${meta.height}`);
  assert.deepEqual(checkTranscript(out, route), []);
  const twenty = await hygieneOutput(screenshots(20, await jpegData(2400, 1200)), route);
  const kept = (twenty[0]!.content as Array<{ type: string; data?: string }>).find((b) => b.type === 'image')!;
  assert.equal((await sharp(Buffer.from(kept.data!, 'base64')).metadata()).width, 2400, '20 images keep the 8000 px limit');
});

test('the file command takes the census itself (a pre-scan), and --stats counts the replaced images', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-images-'));
  const file = path.join(dir, 'shots.jsonl');
  const input = screenshots(22, await jpegData(32, 32));
  await writeFile(file, input.map((m) => JSON.stringify(m)).join('\n') + '\n');
  assert.deepEqual((await scanInputFile(file, { imageCensus: true })).imageCensus, imageCensusOf(input));
  assert.equal((await scanInputFile(file)).imageCensus, undefined, 'not taken unless asked');
  const result = await runCli(['sanitize', file, '--provider', BEDROCK.provider, '--model-api', BEDROCK.modelApi, '--model-id', BEDROCK.modelId, '--stats']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stderr).rules['limit-request-images'].replaced, 2);
  assert.equal((result.stdout.match(/over the request's image limit/g) ?? []).length, 2);
});

test("the input scan's census equals the in-memory one when image lines span its 4 MiB reads", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-images-'));
  // 30 images of 300-700 KB of base64 between plain turns: many lines cross a read boundary.
  const input = Array.from({ length: 60 }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: [{ type: 'text', text: `shot ${i} é` }, { type: 'image', mimeType: 'image/png', data: 'A'.repeat(300_000 + i * 7_000) }] }
      : { role: 'assistant', content: [{ type: 'text', text: `seen ${i}` }], stopReason: 'stop' },
  );
  const file = path.join(dir, 'large.jsonl');
  await writeFile(file, input.map((m) => JSON.stringify(m)).join('\n') + '\n');
  const census = (await scanInputFile(file, { imageCensus: true })).imageCensus!;
  assert.equal(census.imageChars.length, 30);
  assert.deepEqual(census, imageCensusOf(input));
});

test('a session file gets its census from the index: only its image entries are read again, and abandoned branches do not count', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-images-'));
  const data = await jpegData(32, 32);
  const header = { type: 'session', version: 3, id: '01982a6e-5c00-7a3b-9d2e-4f1c8b7a6e99', timestamp: '2026-07-20T09:00:00.000Z', cwd: '/srv' };
  const entry = (id: string, parentId: string | null, message: Message) => ({ type: 'message', id, parentId, timestamp: '2026-07-20T09:00:01.000Z', message });
  const path22 = screenshots(22, data).map((message, i) => entry(`e${i}`, i === 0 ? null : `e${i - 1}`, message));
  // Written right after the first turn: a branch off it with three more images. The last entry
  // written (e43) is the leaf, so the branch is abandoned: never sent, never counted.
  const branch = [0, 1, 2].map((i) => entry(`x${i}`, i === 0 ? 'e0' : `x${i - 1}`, user([text(`old ${i}`), { type: 'image', data, mimeType: 'image/jpeg' }])));
  const file = path.join(dir, 'shots.session.jsonl');
  await writeFile(file, [header, path22[0], ...branch, ...path22.slice(1)].map((line) => JSON.stringify(line)).join('\n') + '\n');
  const census = (await readSessionMessages(file, { ...BEDROCK, takeImageCensus: true })).hygieneOptions().imageCensus!;
  assert.equal(census.imageChars.length, 22, 'the path holds 22 images, the branch 3 more');
  assert.equal((await readSessionMessages(file, BEDROCK)).hygieneOptions().imageCensus, undefined, 'not taken unless asked');
  const result = await runCli(['sanitize', file, '--provider', BEDROCK.provider, '--model-api', BEDROCK.modelApi, '--model-id', BEDROCK.modelId, '--stats']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stderr).rules['limit-request-images'].replaced, 2);
  assert.equal((result.stdout.match(/over the request's image limit/g) ?? []).length, 2);
});
