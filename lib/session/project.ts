/**
 * One path entry to the message buildSessionContext gives for it (spec/session-file.md §6), with
 * OpenClaw's load-time normalisation (§4) and the v2 -> v3 migration (§7):
 *
 * - `message`: its message (a `hookMessage` role becomes `custom` in files older than v3; an
 *   assistant's or tool result's string content becomes one text block, a tool result's object
 *   content a one-block array);
 * - `custom_message`: `{role: "custom", customType, content, display, details, timestamp}`;
 * - `branch_summary` with a truthy summary: `{role: "branchSummary", summary, fromId, timestamp}`;
 * - the latest `compaction`: `{role: "compactionSummary", summary, tokensBefore, timestamp}`.
 *
 * The timestamps of the last three are the entry's ISO string as epoch ms; an unparsable one (or
 * a number, Errata 7) makes context building throw, as the reference does.
 */
import { HygieneError } from '../errors.ts';
import { isRecord, type Message } from '../types.ts';

/** Date.parse of a string timestamp, or undefined when it is not a string or not a valid date. */
export function entryTimestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) && Math.abs(parsed) <= 8.64e15 ? parsed : undefined;
}

/** A line number, or how to find it (counted from the file only when an error needs it). */
export type LineRef = number | (() => number);

export function lineOf(ref: LineRef): number {
  return typeof ref === 'number' ? ref : ref();
}

export interface ProjectContext {
  source: string;
  line: LineRef;
  /** How an error names the place (default `source:line`; a database session names its row's seq). */
  where?: (line: number) => string;
}

function requireTimestamp(value: unknown, label: string, context: ProjectContext): number {
  const ms = entryTimestampMs(value);
  if (ms === undefined) {
    const line = lineOf(context.line);
    const where = context.where?.(line) ?? `${context.source}:${line}`;
    throw new HygieneError('invalid_session', `${where}: ${label} timestamp must be a valid timestamp`, {
      source: context.source,
      line,
    });
  }
  return ms;
}

export function compactionSummaryMessage(entry: Record<string, unknown>, context: ProjectContext): Message {
  return {
    role: 'compactionSummary',
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: requireTimestamp(entry.timestamp, 'compaction summary', context),
  };
}

export function branchSummaryMessage(entry: Record<string, unknown>, context: ProjectContext): Message {
  return {
    role: 'branchSummary',
    summary: entry.summary,
    fromId: entry.fromId,
    timestamp: requireTimestamp(entry.timestamp, 'branch summary', context),
  };
}

export function customMessage(entry: Record<string, unknown>, context: ProjectContext): Message {
  return {
    role: 'custom',
    customType: entry.customType,
    content: entry.content,
    display: entry.display,
    details: entry.details,
    timestamp: requireTimestamp(entry.timestamp, 'custom message', context),
  };
}

/**
 * The in-memory form of a `message` entry's message: the same object when nothing applies.
 * Non-objects are returned as they are (the pipeline's first rule drops them).
 */
export function normalizeEntryMessage(message: unknown, migrateV2: boolean): unknown {
  if (!isRecord(message)) return message;
  let out: Record<string, unknown> = message;
  if (migrateV2 && out.role === 'hookMessage') out = { ...out, role: 'custom' };
  const role = out.role;
  if (role === 'assistant' || role === 'toolResult') {
    const content = out.content;
    if (typeof content === 'string') out = { ...out, content: [{ type: 'text', text: content }] };
    else if (role === 'toolResult' && isRecord(content)) out = { ...out, content: [content] };
  }
  return out;
}
