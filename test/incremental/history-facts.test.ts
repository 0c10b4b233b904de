import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryFacts } from '../../lib/incremental/history-facts.ts';
import { compactionTimestampIn } from '../../lib/in-memory.ts';
import { imageCensusIfImages } from '../../lib/image-census.ts';

const image = (data: string): unknown => ({ role: 'user', content: [{ type: 'image', data, mimeType: 'image/png' }, { type: 'text', text: 'é' }] });
const MESSAGES: unknown[] = [
  { role: 'user', content: 'hi', timestamp: 1 },
  { role: 'compactionSummary', summary: 's', timestamp: 5 },
  { role: 'assistant', content: [{ type: 'text', text: 'ok' }], timestamp: 6 },
  { role: '', content: [{ type: 'image', data: 'AAAA' }] },
  image('QUJD'),
  { role: 'compactionSummary', summary: 't', timestamp: 3 },
  image('RA=='),
  { role: 'compactionSummary', summary: 'u', timestamp: 9 },
];

test('running totals added a few messages at a time equal a count of the whole array', () => {
  for (let step = 1; step <= MESSAGES.length; step++) {
    const facts = new HistoryFacts();
    let previous = 0;
    for (let end = step; previous < MESSAGES.length; end = Math.min(MESSAGES.length, end + step)) {
      const messages = structuredClone(MESSAGES.slice(0, end));
      facts.add(messages, previous, MESSAGES.slice(0, previous));
      previous = end;
      assert.equal(facts.compactionTimestamp, compactionTimestampIn(messages), `compaction time after ${end} (step ${step})`);
      assert.deepEqual(facts.census(), imageCensusIfImages(messages), `census after ${end} (step ${step})`);
    }
  }
});
