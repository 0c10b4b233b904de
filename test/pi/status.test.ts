import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statusText, summarizeRepairs } from '../../lib/pi/status.ts';
import { sanitizeInMemory } from '../../lib/in-memory.ts';
import type { HygieneStats } from '../../lib/stats.ts';

const stats = (rules: HygieneStats['rules']): HygieneStats => ({ messagesIn: 10, messagesOut: 10, entriesSkipped: 0, rules });

describe('status line', () => {
  test('groups counters by what they mean, largest first, singular and plural', () => {
    const summary = summarizeRepairs(
      stats({
        'repair-tool-result-pairing': { synthesized: 2, moved: 1, spilledEntries: 5 },
        'sanitize-tool-call-ids': { idsRewritten: 1, resultsRewritten: 1 },
        'drop-orphaned-tool-results': { dropped: 3 },
      }),
    );
    assert.equal(summary.total, 7);
    assert.equal(statusText(summary, 'anthropic'), 'hygiene (anthropic rules): 3 orphan results dropped, 2 missing results added, 1 result moved (+1 more)');
    assert.equal(statusText(summary, 'anthropic', 5), 'hygiene (anthropic rules): 3 orphan results dropped, 2 missing results added, 1 result moved, 1 id rewritten');
  });

  test('names whose rules ran', () => {
    assert.equal(statusText(summarizeRepairs(stats({ 'sanitize-tool-call-ids': { idsRewritten: 2 } })), 'anthropic'), 'hygiene (anthropic rules): 2 ids rewritten');
    assert.equal(statusText(summarizeRepairs(stats({})), 'generic openai-completions'), 'hygiene (generic openai-completions rules): clean');
  });

  test('bookkeeping is not a repair; an unknown counter still counts', () => {
    assert.equal(statusText(summarizeRepairs(stats({ 'sanitize-images': { kept: 4 }, 'strip-tool-result-details': { detailsStripped: 9 } })), 'anthropic'), 'hygiene (anthropic rules): clean');
    assert.equal(statusText(summarizeRepairs(stats({ 'a-future-rule': { rewrapped: 2 } })), 'anthropic'), 'hygiene (anthropic rules): 2 other fixes');
    assert.equal(statusText(summarizeRepairs(stats({ 'sanitize-images': { omitted: 1, omittedUndecodable: 1 } })), 'anthropic'), 'hygiene (anthropic rules): 1 image fixed');
  });

  test('a renamed tool call counts once; a call kept with its malformed name is no repair', () => {
    const renamed = stats({ 'enforce-tool-name-pattern': { namesRenamed: 2, resultsRenamed: 2 }, 'validate-tool-call-inputs': { keptAnsweredMisnamedCalls: 2 } });
    assert.equal(statusText(summarizeRepairs(renamed), 'anthropic'), 'hygiene (anthropic rules): 2 tool names rewritten');
    assert.equal(statusText(summarizeRepairs(stats({ 'enforce-tool-name-pattern': { malformedNamesKept: 1 }, 'validate-tool-call-inputs': { keptAnsweredMisnamedCalls: 1 } })), 'anthropic'), 'hygiene (anthropic rules): clean');
  });

  test("reads the pipeline's own counters", () => {
    const meta = { api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5' };
    const result = sanitizeInMemory(
      [
        { role: 'user', content: 'go', timestamp: 1 },
        { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_01A', name: 'read', arguments: {} }], ...meta, stopReason: 'toolUse', timestamp: 2 },
        { role: 'user', content: 'and?', timestamp: 3 },
        { role: 'toolResult', toolCallId: 'toolu_01Z', toolName: 'read', content: [{ type: 'text', text: 'x' }], isError: false, timestamp: 4 },
      ],
      { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
    );
    assert.ok(!(result instanceof Promise));
    assert.equal(statusText(summarizeRepairs(result.stats), 'anthropic'), 'hygiene (anthropic rules): 1 missing result added, 1 orphan result dropped');
  });
});
