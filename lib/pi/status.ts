/**
 * What the hygiene repaired in one context, in a few words for pi's status line
 * ("hygiene (anthropic rules): 2 missing results added, 1 id rewritten"), from the counters the rules already keep
 * (lib/stats.ts).
 *
 * Counters are grouped by what they mean to a user, whatever rule kept them. Counters that record
 * no change to what is sent are left out: bookkeeping (`kept`, `resultsVerified`, spills, byte
 * totals, turns deliberately preserved) and `detailsStripped` (pi never sends a result's
 * `details`, so stripping them changes nothing the provider sees). A counter not in the table
 * still counts, as "other fixes", so a new rule is never silently invisible.
 */
import type { HygieneStats } from '../stats.ts';

interface Category {
  readonly singular: string;
  readonly plural: string;
}

const category = (singular: string, plural = `${singular}s`): Category => ({ singular, plural });

const RESULTS_ADDED = category('missing result added', 'missing results added');
const RESULTS_MOVED = category('result moved', 'results moved');
const ORPHANS_DROPPED = category('orphan result dropped', 'orphan results dropped');
const DUPLICATES_DROPPED = category('duplicate result dropped', 'duplicate results dropped');
const IDS_REWRITTEN = category('id rewritten', 'ids rewritten');
const NAMES_REWRITTEN = category('tool name rewritten', 'tool names rewritten');
const CALLS_DROPPED = category('tool call dropped', 'tool calls dropped');
const TURNS_DROPPED = category('turn dropped', 'turns dropped');
const TURNS_MERGED = category('turn merged', 'turns merged');
const TURNS_INSERTED = category('turn inserted', 'turns inserted');
const BLOCKS_REMOVED = category('block removed', 'blocks removed');
const SIGNATURES_STRIPPED = category('signature stripped', 'signatures stripped');
const IMAGES_FIXED = category('image fixed', 'images fixed');
const PLACEHOLDERS = category('empty content filled', 'empty contents filled');
const OTHER = category('other fix', 'other fixes');

/** Counters that are not repairs. */
const IGNORED: ReadonlySet<string> = new Set([
  'kept',
  'resultsVerified',
  'spilledEntries',
  'spilledMessages',
  'bytesBeforeResize',
  'bytesAfterResize',
  'preservedThinkingTurns',
  'preservedLatest',
  'keptCurrentToolTurn',
  'detailsStripped',
  // Counted again by the rule that rewrote the call (idsRewritten / idsNormalized; namesRenamed).
  'resultsRewritten',
  'resultsRenamed',
  // Calls kept as they were although their names fail the reference's check (issue 20).
  'keptAnsweredMisnamedCalls',
  'malformedNamesKept',
]);

/** Counter name → category, whatever rule kept it. */
const BY_COUNTER: ReadonlyMap<string, Category> = new Map([
  ['synthesized', RESULTS_ADDED],
  ['moved', RESULTS_MOVED],
  ['orphansDropped', ORPHANS_DROPPED],
  ['duplicatesDropped', DUPLICATES_DROPPED],
  ['idsRewritten', IDS_REWRITTEN],
  ['idsNormalized', IDS_REWRITTEN],
  ['aligned', IDS_REWRITTEN],
  ['namesRenamed', NAMES_REWRITTEN],
  ['namedUnnamedCalls', NAMES_REWRITTEN],
  ['orphanResultIds', ORPHANS_DROPPED],
  ['droppedToolCalls', CALLS_DROPPED],
  ['droppedCalls', CALLS_DROPPED],
  ['droppedTurns', TURNS_DROPPED],
  ['droppedAssistantMessages', TURNS_DROPPED],
  ['droppedThinkingTurns', TURNS_DROPPED],
  ['failedFramesDropped', TURNS_DROPPED],
  ['omittedTurns', TURNS_DROPPED],
  ['droppedTranscriptOnly', TURNS_DROPPED],
  ['droppedFailedTurns', TURNS_DROPPED],
  ['droppedSilentTurns', TURNS_DROPPED],
  ['droppedEmptiedTurns', TURNS_DROPPED],
  ['droppedReasoningOnlyLengthTurns', TURNS_DROPPED],
  ['droppedMirrorDuplicates', TURNS_DROPPED],
  ['removedTurns', TURNS_DROPPED],
  ['merged', TURNS_MERGED],
  ['inserted', TURNS_INSERTED],
  ['droppedBlocks', BLOCKS_REMOVED],
  ['removedBlocks', BLOCKS_REMOVED],
  ['removedReasoning', BLOCKS_REMOVED],
  ['removedFalsyBlocks', BLOCKS_REMOVED],
  ['unsignedBlocks', SIGNATURES_STRIPPED],
  ['strippedSignatures', SIGNATURES_STRIPPED],
  ['normalizedSignatures', SIGNATURES_STRIPPED],
  ['placeholders', PLACEHOLDERS],
  ['canonicalized', IMAGES_FIXED],
  ['resized', IMAGES_FIXED],
  ['omitted', IMAGES_FIXED],
]);

/** Rules whose counters mean something else than the table's reading of the same name. */
const BY_RULE_COUNTER: ReadonlyMap<string, Category> = new Map([
  ['drop-orphaned-tool-results/dropped', ORPHANS_DROPPED],
  ['drop-non-object-messages/dropped', TURNS_DROPPED],
  ['drop-role-less-messages/dropped', TURNS_DROPPED],
]);

/** Counters that break `omitted` down by reason: the total is already counted. */
const isOmitReason = (rule: string, counter: string): boolean => rule === 'sanitize-images' && counter.startsWith('omitted') && counter !== 'omitted';

export interface RepairSummary {
  /** Repairs, all categories together. */
  readonly total: number;
  /** The categories with their counts, largest first (ties in table order). */
  readonly parts: ReadonlyArray<{ readonly count: number; readonly label: string }>;
}

export function summarizeRepairs(stats: HygieneStats): RepairSummary {
  const counts = new Map<Category, number>();
  for (const [rule, counters] of Object.entries(stats.rules)) {
    for (const [counter, value] of Object.entries(counters)) {
      if (value <= 0 || IGNORED.has(counter) || isOmitReason(rule, counter)) continue;
      const found = BY_RULE_COUNTER.get(`${rule}/${counter}`) ?? BY_COUNTER.get(counter) ?? OTHER;
      counts.set(found, (counts.get(found) ?? 0) + value);
    }
  }
  const order = [...BY_COUNTER.values(), OTHER];
  const parts = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]))
    .map(([found, count]) => ({ count, label: count === 1 ? found.singular : found.plural }));
  return { total: parts.reduce((sum, part) => sum + part.count, 0), parts };
}

/**
 * The status line: whose rules ran, then "clean" or the three largest categories and how many
 * more ("hygiene (anthropic rules): 2 ids rewritten").
 */
export function statusText(summary: RepairSummary, rules: string, maxParts = 3): string {
  const head = `hygiene (${rules} rules)`;
  if (summary.total === 0) return `${head}: clean`;
  const shown = summary.parts.slice(0, maxParts).map((part) => `${part.count} ${part.label}`);
  const more = summary.parts.length - shown.length;
  return `${head}: ${shown.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}
