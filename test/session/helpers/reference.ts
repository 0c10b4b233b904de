/**
 * A plain, whole-file transcription of spec/session-file.md §5-§8 for the property tests: the
 * loader (trim, split on LF, skip blank and unparsable lines, header or recovery, migrations),
 * OpenClaw's leaf selection and getBranch, and buildSessionContext. Strings and Maps, no index:
 * written from the spec, not from lib/session/, so the two can be compared.
 */
type Entry = Record<string, unknown>;

const CANONICAL = new Set(['message', 'thinking_level_change', 'model_change', 'compaction', 'branch_summary', 'custom', 'custom_message', 'label', 'session_info']);

function isObject(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ms(value: unknown, label: string): number {
  if (typeof value !== 'string') throw new Error(`${label} timestamp must be a valid timestamp`);
  const parsed = Date.parse(value);
  if (!Number.isFinite(parsed)) throw new Error(`${label} timestamp must be a valid timestamp`);
  return parsed;
}

export interface ReferenceContext {
  messages: unknown[];
  leafId: string | null;
  thinkingLevel: unknown;
  model: { provider: unknown; modelId: unknown } | null;
}

export function referenceContext(content: string): ReferenceContext {
  // §8: the whole content trimmed, split on "\n", blank lines skipped, unparsable lines skipped.
  const parsed: unknown[] = [];
  for (const line of content.trim().split('\n')) {
    if (!line.trim()) continue;
    try {
      parsed.push(JSON.parse(line));
    } catch {
      // skipped
    }
  }
  const isHeader = (v: unknown): v is Entry => isObject(v) && v.type === 'session' && typeof v.id === 'string';
  let header: Entry | undefined;
  let entries: unknown[];
  if (parsed.length > 0 && isHeader(parsed[0])) {
    header = parsed[0];
    entries = parsed;
  } else {
    header = parsed.find(isHeader) ?? { type: 'session', version: 3, id: 'synth' };
    entries = [header, ...parsed.filter((v) => !(isObject(v) && v.type === 'session'))];
  }
  // §7 migrations (mutating copies).
  entries = entries.map((v) => (isObject(v) ? { ...v, message: isObject(v.message) ? { ...v.message } : v.message } : v));
  const headerAt = entries.indexOf(entries.find((v) => isObject(v) && v.type === 'session') as unknown);
  const version = ((header.version ?? 1) as number);
  if (!(version >= 3)) {
    if (version < 2) {
      let previous: unknown = null;
      let counter = 0;
      const original = [...entries];
      for (const v of entries) {
        if (v === null) continue;
        if (typeof v !== 'object') {
          previous = undefined;
          continue;
        }
        const e = v as Entry;
        if (e.type === 'session') continue;
        e.id = `v1-${counter++}`;
        e.parentId = previous;
        previous = e.id;
      }
      for (const v of entries) {
        if (!isObject(v) || v.type !== 'compaction') continue;
        if (typeof v.firstKeptEntryIndex === 'number') {
          const target = original[v.firstKeptEntryIndex];
          v.firstKeptEntryId = isObject(target) && target.type !== 'session' ? target.id : undefined;
          delete v.firstKeptEntryIndex;
        } else {
          // ids were all replaced: an old string no longer names anything
        }
      }
    }
    for (const v of entries) {
      if (isObject(v) && v.type === 'message' && isObject(v.message) && v.message.role === 'hookMessage') v.message.role = 'custom';
    }
  }
  void headerAt;

  // §5 OpenClaw navigation.
  const byId = new Map<string, Entry>();
  const opaque = new Map<string, string | null>();
  const logical = new Map<string, string | null>();
  const invalidLeaf = new Set<string>();
  let leafId: string | null = null;
  let appendParentId: string | null = null;
  const resolveCanonical = (id: unknown): string | null => {
    let current = id;
    const seen = new Set<unknown>();
    while (typeof current === 'string' && current !== '' && !byId.has(current)) {
      if (seen.has(current)) return null;
      seen.add(current);
      current = opaque.get(current) ?? null;
    }
    return typeof current === 'string' && current !== '' ? current : null;
  };
  const known = (id: unknown): boolean => id === null || (typeof id === 'string' && (byId.has(id) || (opaque.has(id) && !invalidLeaf.has(id))));
  const resolveAppend = (id: unknown): string | null => {
    if (id === null || (typeof id === 'string' && (byId.has(id) || opaque.has(id)))) return id as string | null;
    return resolveCanonical(id);
  };
  let first = true;
  for (const v of entries) {
    if (first && v === header) {
      first = false;
      continue;
    }
    if (!isObject(v) || v.type === 'session') continue;
    const id = v.id;
    if (typeof v.type === 'string' && CANONICAL.has(v.type) && typeof id === 'string' && id !== '') {
      const side = v.appendMode === 'side';
      if (!Object.hasOwn(v, 'parentId') || (!side && v.parentId === appendParentId && leafId !== appendParentId)) logical.set(id, leafId);
      byId.set(id, v);
      appendParentId = id;
      if (!side) leafId = id;
      continue;
    }
    const nullOrString = (x: unknown): boolean => x === null || typeof x === 'string';
    if (
      v.type === 'leaf' &&
      typeof id === 'string' &&
      id !== '' &&
      nullOrString(v.parentId) &&
      nullOrString(v.targetId) &&
      (v.appendParentId === undefined || nullOrString(v.appendParentId)) &&
      (v.appendMode === undefined || v.appendMode === 'side')
    ) {
      if (!known(v.targetId) || (v.appendParentId !== undefined && !known(v.appendParentId))) {
        invalidLeaf.add(id);
        opaque.set(id, resolveAppend(v.parentId));
        continue;
      }
      const target = v.targetId === null || byId.has(v.targetId as string) ? (v.targetId as string | null) : resolveCanonical(v.targetId);
      opaque.set(id, target);
      leafId = target;
      appendParentId = v.appendParentId === undefined ? target : resolveAppend(v.appendParentId);
      continue;
    }
    if (typeof id === 'string' && id !== '' && nullOrString(v.parentId)) {
      opaque.set(id, v.parentId as string | null);
      appendParentId = id;
    }
  }

  // getBranch.
  const path: Entry[] = [];
  const seen = new Set<string>();
  let current: string | null = leafId;
  while (current && !seen.has(current)) {
    seen.add(current);
    const entry = byId.get(current);
    if (entry) {
      path.unshift(entry);
      let parent = logical.has(current) ? logical.get(current)! : resolveCanonical(entry.parentId);
      if (parent === current) parent = null;
      current = parent;
    } else {
      current = opaque.get(current) ?? null;
    }
  }

  // §6 buildSessionContext.
  let thinkingLevel: unknown = 'off';
  let model: ReferenceContext['model'] = null;
  let compaction = -1;
  path.forEach((entry, i) => {
    if (entry.type === 'thinking_level_change') thinkingLevel = entry.thinkingLevel;
    else if (entry.type === 'model_change') model = { provider: entry.provider, modelId: entry.modelId };
    else if (entry.type === 'message' && isObject(entry.message) && entry.message.role === 'assistant') model = { provider: entry.message.provider, modelId: entry.message.model };
    if (entry.type === 'compaction') compaction = i;
  });
  const emit = (entry: Entry, out: unknown[]): void => {
    if (entry.type === 'message') {
      let message = entry.message;
      if (isObject(message) && (message.role === 'assistant' || message.role === 'toolResult')) {
        if (typeof message.content === 'string') message = { ...message, content: [{ type: 'text', text: message.content }] };
        else if (message.role === 'toolResult' && isObject(message.content)) message = { ...message, content: [message.content] };
      }
      out.push(message);
    } else if (entry.type === 'custom_message') {
      out.push({ role: 'custom', customType: entry.customType, content: entry.content, display: entry.display, details: entry.details, timestamp: ms(entry.timestamp, 'custom message') });
    } else if (entry.type === 'branch_summary' && entry.summary) {
      out.push({ role: 'branchSummary', summary: entry.summary, fromId: entry.fromId, timestamp: ms(entry.timestamp, 'branch summary') });
    }
  };
  const messages: unknown[] = [];
  if (compaction < 0) {
    for (const entry of path) emit(entry, messages);
  } else {
    const c = path[compaction]!;
    messages.push({ role: 'compactionSummary', summary: c.summary, tokensBefore: c.tokensBefore, timestamp: ms(c.timestamp, 'compaction summary') });
    let keptId = c.firstKeptEntryId;
    if (typeof keptId === 'string' && !byId.has(keptId) && opaque.has(keptId)) keptId = resolveCanonical(keptId);
    const kept = path.findIndex((entry, i) => i < compaction && entry.id === keptId && byId.get(keptId as string) === entry);
    if (kept >= 0) for (let i = kept; i < compaction; i++) emit(path[i]!, messages);
    for (let i = compaction + 1; i < path.length; i++) emit(path[i]!, messages);
  }
  return { messages, leafId, thinkingLevel, model };
}
