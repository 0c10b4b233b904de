/**
 * The replay copy of a session file: readSessionMessages feeding the pipeline, with the facts
 * of the index pass (compaction time, model-switch time, result-id index) in its options.
 */
import type { Writable } from 'node:stream';
import { Buffer } from 'node:buffer';
import { open } from 'node:fs/promises';
import { createPipeline, ruleNamesFor } from '../pipeline.ts';
import { JsonlWriter } from '../jsonl.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../options.ts';
import { resolveTranscriptPolicy } from '../policy.ts';
import type { HygieneStats } from '../stats.ts';
import type { Message } from '../types.ts';
import { dropForeignRoles } from '../foreign-roles.ts';
import { readSessionMessages, type SessionMessages, type SessionReadStats } from './read.ts';
import { detectProbeKind, type InputKind } from './detect.ts';

const PROBE_BYTES = 64 * 1024;

/** The kind of a file's content, from its first 64 KiB. */
export async function probeFileKind(path: string): Promise<InputKind> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(PROBE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, PROBE_BYTES, 0);
    return detectProbeKind(buffer.toString('utf8', 0, bytesRead), bytesRead < PROBE_BYTES);
  } finally {
    await handle.close();
  }
}

export interface SanitizeSessionParams {
  path: string;
  output: Writable;
  options: HygieneOptions;
  /** Name for error messages (default: the path). */
  source?: string;
  /** Drop messages of roles the runtime never writes (lib/foreign-roles.ts), counted in stats.droppedForeignRoles. */
  dropForeignRoles?: boolean;
}

export interface SessionHygieneStats extends HygieneStats {
  session: SessionReadStats & { leafId: string | null; compacted: boolean };
}

/** Whether the route limits the images of a whole request, so the input's images must be counted before they flow. */
export function routeWantsImageCensus(options: HygieneOptions): boolean {
  return options.imageCensus === undefined && resolveTranscriptPolicy(resolveHygieneOptions(options)).requestImageLimits !== undefined;
}

/** Whether a rule of the route reads the time of the input's latest compaction (and it was not given). */
export function routeWantsCompactionTime(options: HygieneOptions): boolean {
  return options.compactionTimestamp === undefined && ruleNamesFor(options).includes('strip-stale-thinking-signatures');
}

export async function sanitizeSessionFile(params: SanitizeSessionParams): Promise<SessionHygieneStats> {
  const session = await readSessionMessages(params.path, { ...params.options, source: params.source ?? params.path, takeImageCensus: routeWantsImageCensus(params.options) });
  return sanitizeSessionMessages(session, params);
}

/** The pipeline over a session already indexed (a file's, or a database session's). */
export async function sanitizeSessionMessages(session: SessionMessages, params: Pick<SanitizeSessionParams, 'output' | 'options' | 'dropForeignRoles'>): Promise<SessionHygieneStats> {
  const writer = new JsonlWriter(params.output);
  const pipeline = createPipeline(session.hygieneOptions(params.options), (message: Message) => writer.write(message));
  const foreign: Record<string, number> = {};
  try {
    for await (const read of session.batches()) {
      const batch = params.dropForeignRoles ? dropForeignRoles(read, foreign) : read;
      for (const message of batch) {
        const wait = pipeline.write(message);
        if (wait !== undefined) await wait;
      }
      await writer.drain();
    }
    await pipeline.end();
    await writer.flush();
  } finally {
    pipeline.dispose();
    session.resultIndex.dispose();
  }
  const stats = pipeline.stats();
  if (params.dropForeignRoles) stats.droppedForeignRoles = foreign;
  if (session.stats.invalidUtf8 !== undefined) stats.invalidUtf8 = session.stats.invalidUtf8;
  return {
    ...stats,
    // Lines that parsed but gave no message: the header, non-message entries, entries off the path.
    entriesSkipped: Math.max(0, session.stats.records - session.stats.messages),
    session: { ...session.stats, leafId: session.leafId, compacted: session.compactionTimestamp !== null },
  };
}
