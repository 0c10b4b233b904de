/**
 * Counters every stage reports into: what was dropped, merged, synthesized, resized.
 * One recorder per run; rules get a context whose `count` is bound to their own record.
 */
import type { InvalidUtf8 } from './utf8-replacements.ts';

export interface HygieneStats {
  /** Messages that entered the rule stages. */
  messagesIn: number;
  /** Messages the pipeline emitted. */
  messagesOut: number;
  /** Session-file entries that are not messages (header, model changes, ...) and were skipped by the reader. */
  entriesSkipped: number;
  /** Counters per rule name, only for rules that counted something. */
  rules: Record<string, Record<string, number>>;
  /** With `dropForeignRoles`: messages of roles the runtime never writes, dropped before the rules, per role. */
  droppedForeignRoles?: Record<string, number>;
  /** Byte sequences of the input that were not UTF-8 and were read as U+FFFD (JSONL and session files), when there were any. */
  invalidUtf8?: InvalidUtf8;
}

export type CounterRecord = Record<string, number>;

export class StatsRecorder {
  messagesIn = 0;
  messagesOut = 0;
  entriesSkipped = 0;
  private readonly records = new Map<string, CounterRecord>();

  /** The mutable record of one rule's counters (created on first use). */
  recordFor(rule: string): CounterRecord {
    let record = this.records.get(rule);
    if (record === undefined) {
      record = Object.create(null) as CounterRecord;
      this.records.set(rule, record);
    }
    return record;
  }

  /** An independent copy (a forked chain counts on from here, lib/stage.ts). */
  clone(): StatsRecorder {
    const copy = new StatsRecorder();
    copy.messagesIn = this.messagesIn;
    copy.messagesOut = this.messagesOut;
    copy.entriesSkipped = this.entriesSkipped;
    for (const [name, record] of this.records) Object.assign(copy.recordFor(name), record);
    return copy;
  }

  count(rule: string, counter: string, n = 1): void {
    const record = this.recordFor(rule);
    record[counter] = (record[counter] ?? 0) + n;
  }

  snapshot(): HygieneStats {
    const rules: Record<string, Record<string, number>> = {};
    for (const [name, record] of this.records) {
      const keys = Object.keys(record);
      if (keys.length > 0) rules[name] = { ...record };
    }
    return {
      messagesIn: this.messagesIn,
      messagesOut: this.messagesOut,
      entriesSkipped: this.entriesSkipped,
      rules,
    };
  }
}
