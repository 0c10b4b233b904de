/**
 * bench:runner's contexts: pi sessions as they look after long use (seeded; see bench/runner.ts).
 */
import type { PiModel } from '../lib/pi/types.ts';
import { rng } from './rng.ts';

const WORDS = 'the parser reads each line of the file and the tests check that every token keeps its position while the build runs'.split(' ');

/** A pi context of `size` messages for `model` (see the module comment). */
export function generateContext(size: number, model: PiModel, seed: number): unknown[] {
  const next = rng(seed);
  const words = (n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const out: unknown[] = [];
  let clock = Date.parse('2026-11-01T00:00:00Z');
  let callSeq = 0;
  const time = (): number => (clock += 1000);
  const meta = { api: model.api, provider: model.provider, model: model.id, usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } };
  const callId = (): string => (model.api === 'openai-responses' ? `call_${++callSeq}|fc_${callSeq}` : `toolu_01${(++callSeq).toString(36).padStart(8, '0')}`);
  out.push({ role: 'compactionSummary', summary: words(60), tokensBefore: 120000, timestamp: time() });
  while (out.length < size) {
    out.push({ role: 'user', content: [{ type: 'text', text: words(5 + Math.floor(next() * 30)) }], timestamp: time() });
    const turns = 1 + Math.floor(next() * 4);
    for (let turn = 0; turn < turns && out.length < size; turn++) {
      const calls = 1 + Math.floor(next() * 3);
      const ids = Array.from({ length: calls }, callId);
      const content: unknown[] = [];
      if (model.api === 'anthropic-messages') content.push({ type: 'thinking', thinking: words(20), thinkingSignature: `Sig${ids[0]!.replace(/[^a-zA-Z0-9]/g, '')}AAAA` });
      content.push({ type: 'text', text: words(8) });
      for (const id of ids) content.push({ type: 'toolCall', id, name: next() < 0.5 ? 'bash' : 'read', arguments: { command: words(4), path: `src/${words(1)}.ts` } });
      const aborted = next() < 0.003;
      out.push({ role: 'assistant', content, ...meta, stopReason: aborted ? 'aborted' : 'toolUse', timestamp: time() });
      const steering = !aborted && next() < 0.002;
      ids.forEach((id, index) => {
        if (steering && index === 0) out.push({ role: 'user', content: [{ type: 'text', text: `steer: ${words(6)}` }], timestamp: time() });
        const blank = next() < 0.002;
        const text = aborted ? 'Operation aborted' : blank ? '\n' : words(40 + Math.floor(next() * 600));
        // pi's tools attach `details` (a diff, truncation facts) to some results, not all.
        const details = next() < 0.25 ? { details: { diff: words(12) } } : {};
        out.push({ role: 'toolResult', toolCallId: id, toolName: 'bash', content: [{ type: 'text', text }], ...details, isError: aborted, timestamp: time() });
      });
      if (next() < 0.02) out.push({ role: 'bashExecution', command: 'git status', output: words(10), exitCode: 0, cancelled: false, truncated: false, timestamp: time() });
      if (next() < 0.01) out.push({ role: 'custom', customType: 'notes', content: words(12), display: true, timestamp: time() });
    }
    out.push({ role: 'assistant', content: [{ type: 'text', text: words(30) }], ...meta, stopReason: 'stop', timestamp: time() });
  }
  return out.slice(0, size);
}

