/**
 * Seeded random session files for the property tests: branches (parents picked among earlier
 * ids), side entries, `leaf` records (valid and not), opaque links, inert lines, duplicate ids,
 * missing and forward parents, entries without a parentId key, compactions with every kind of
 * firstKeptEntryId, branch summaries with and without text, custom entries, model snapshots,
 * torn lines, blank lines, CRLF, garbage before the header, a BOM, old versions.
 *
 * One constraint keeps it to what writers can produce: no record names a torn line's id as its
 * parent (a writer never saw that entry), so the torn line is never on a path by parentage.
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RandomSessionOptions {
  records?: number;
  /** Allow versions 1 and 2 and a missing header. */
  legacy?: boolean;
}

export function randomSession(seed: number, options: RandomSessionOptions = {}): string {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number): boolean => random() < p;
  const count = options.records ?? 5 + Math.floor(random() * 40);
  let clock = Date.parse('2026-07-01T00:00:00.000Z');
  const stamp = (): string => new Date((clock += 1000)).toISOString();
  const ids: string[] = [];
  const torn = new Set<string>();
  const idPool = (): string => {
    // Mostly 8-hex ids as writers make them, sometimes others.
    if (chance(0.8)) return Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0');
    return pick(['msg-1', 'msg-2', 'x', 'repair-0a1b', 'ABCDEF12', '0123456789abcdef']) + (chance(0.5) ? String(Math.floor(random() * 5)) : '');
  };
  const usable = (): string[] => ids.filter((id) => !torn.has(id));
  const parentChoice = (previous: string | null): { has: boolean; value: unknown } => {
    const r = random();
    if (r < 0.55 || usable().length === 0) return { has: true, value: previous !== null && !torn.has(previous) ? previous : usable().at(-1) ?? null };
    if (r < 0.7) return { has: true, value: pick(usable()) };
    if (r < 0.78) return { has: true, value: null };
    if (r < 0.83) return { has: true, value: 'missing-' + Math.floor(random() * 3) };
    if (r < 0.87) return { has: false, value: undefined };
    if (r < 0.9) return { has: true, value: '' };
    if (r < 0.93) return { has: true, value: 42 };
    return { has: true, value: idPool() }; // maybe a forward reference
  };
  const version = options.legacy ? pick([3, 3, 3, 2, 1, undefined]) : 3;
  const lines: string[] = [];
  const legacyV1 = version === 1 || version === undefined;
  if (options.legacy && chance(0.1)) lines.push('garbage{{');
  const header: Record<string, unknown> = { type: 'session', ...(version === undefined ? {} : { version }), id: 'sess-' + seed, timestamp: stamp(), cwd: '/w' };
  if (!(options.legacy && chance(0.1))) lines.push(JSON.stringify(header));
  let previous: string | null = null;
  const message = (): Record<string, unknown> => {
    const role = pick(['user', 'user', 'assistant', 'assistant', 'toolResult', 'compactionSummary', 'hookMessage', 'bashExecution']);
    const ts = clock;
    switch (role) {
      case 'user':
        return { role, content: chance(0.5) ? `u${ts}` : [{ type: 'text', text: `u${ts}` }], timestamp: ts };
      case 'assistant':
        return {
          role,
          content: chance(0.8) ? [{ type: 'text', text: `a${ts}` }] : `a${ts}`,
          api: 'anthropic-messages',
          provider: pick(['anthropic', 'openai']),
          model: pick(['claude-sonnet-4-5', 'gpt-5']),
          stopReason: 'stop',
          timestamp: ts,
        };
      case 'toolResult':
        return { role, toolCallId: `call_${Math.floor(random() * 5)}`, toolName: 'read', content: chance(0.7) ? [{ type: 'text', text: 'ok' }] : chance(0.5) ? 'ok' : { type: 'text', text: 'ok' }, isError: false, timestamp: ts };
      case 'compactionSummary':
        return { role, summary: 's', tokensBefore: 1, timestamp: chance(0.5) ? ts : new Date(ts).toISOString() };
      case 'hookMessage':
        return { role, customType: 'hook', content: 'hook!', display: true, timestamp: ts };
      default:
        return { role, command: 'ls', output: '', exitCode: 0, cancelled: false, truncated: false, timestamp: ts };
    }
  };
  for (let i = 0; i < count; i++) {
    const r = random();
    const id = chance(0.08) && ids.length > 0 ? pick(ids) : idPool();
    const parent = parentChoice(previous);
    const base = (type: string, extra: Record<string, unknown> = {}, keyOrder: 'writer' | 'payload-first' = 'writer'): Record<string, unknown> => {
      const head: Record<string, unknown> = legacyV1 ? { type } : { type, id };
      if (!legacyV1 && parent.has) head.parentId = parent.value;
      const entry: Record<string, unknown> = keyOrder === 'writer' ? { ...head, timestamp: stamp(), ...extra } : { type, ...extra, ...head, timestamp: stamp() };
      if (!legacyV1 && chance(0.08)) entry.appendMode = 'side';
      return entry;
    };
    let record: unknown;
    if (r < 0.5) record = base('message', { message: message() });
    else if (r < 0.55) record = base('custom_message', { customType: 'note', content: chance(0.5) ? 'note' : [{ type: 'text', text: 'note' }], display: chance(0.5), details: chance(0.5) ? { k: 1 } : undefined }, 'payload-first');
    else if (r < 0.6) record = base('branch_summary', { fromId: parent.value ?? 'root', summary: chance(0.8) ? 'went back' : '' });
    else if (r < 0.66) {
      const kept = chance(0.7) && ids.length > 0 ? pick(ids) : chance(0.5) ? 'missing' : undefined;
      record = base('compaction', { summary: 'S' + i, firstKeptEntryId: kept, tokensBefore: i, ...(legacyV1 && chance(0.7) ? { firstKeptEntryIndex: Math.floor(random() * (lines.length + 1)) } : {}) });
    } else if (r < 0.7) record = base('custom', { customType: chance(0.5) ? 'model-snapshot' : 'todo', data: { timestamp: i, provider: pick(['a', 'b']), modelApi: 'x', modelId: 'y' } }, 'payload-first');
    else if (r < 0.73) record = base('model_change', { provider: pick(['anthropic', 'openai']), modelId: 'm' + i });
    else if (r < 0.76) record = base('thinking_level_change', { thinkingLevel: pick(['low', 'high']) });
    else if (r < 0.78) record = base('label', { targetId: pick([...ids, 'missing']), label: 'l' });
    else if (r < 0.8) record = base('session_info', { name: ' n ' });
    else if (r < 0.87 && !legacyV1) {
      const target = chance(0.1) ? null : chance(0.8) && ids.length > 0 ? pick(ids) : 'missing';
      const leaf: Record<string, unknown> = { type: 'leaf', id: idPool(), parentId: previous, timestamp: stamp(), targetId: target };
      if (chance(0.3)) leaf.appendParentId = chance(0.2) ? null : chance(0.8) && ids.length > 0 ? pick(ids) : 'missing';
      if (chance(0.1)) leaf.appendMode = 'side';
      if (chance(0.05)) leaf.targetId = 7; // not a leaf record's shape: an opaque link
      record = leaf;
    } else if (r < 0.93) {
      const link = idPool();
      record = { type: 'x-telemetry', id: link, parentId: parent.has && (parent.value === null || typeof parent.value === 'string') ? parent.value : previous, timestamp: stamp(), data: { n: i } };
      if (!legacyV1) ids.push(link);
    } else if (r < 0.96) record = pick([null, 42, 'str', [1], { type: 'message' }, { note: 'no id' }, { type: 'session', id: 'other' }]);
    else {
      lines.push(pick(['', '   ', '\t']));
      continue;
    }
    if (legacyV1 && record === null) continue;
    let text = JSON.stringify(record);
    if (chance(0.05) && typeof record === 'object' && record !== null && (record as Record<string, unknown>).type === 'message' && !legacyV1) {
      text = text.slice(0, Math.max(20, Math.floor(text.length * random())));
      torn.add(id);
    } else if (typeof record === 'object' && record !== null && !Array.isArray(record) && typeof (record as Record<string, unknown>).type === 'string' && !legacyV1) {
      const type = (record as Record<string, unknown>).type;
      if (type !== 'leaf' && type !== 'x-telemetry' && type !== 'session') {
        ids.push(id);
        if ((record as Record<string, unknown>).appendMode !== 'side') previous = id;
      }
    }
    lines.push(text);
  }
  const crlf = chance(0.2);
  let content = lines.join(crlf ? '\r\n' : '\n');
  if (chance(0.8)) content += '\n';
  if (options.legacy && chance(0.1)) content = '\uFEFF' + content;
  return content;
}
