import { test } from 'node:test';
import assert from 'node:assert/strict';
import { insertBedrockBootstrapTurnRule } from '../../transforms/insert-bedrock-bootstrap-turn.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { TEST_NOW, assistant, deepFreeze, text, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

/** The enable condition proposed for lib/pipeline.ts (step 16, our provider rule). */
const when = (options: { modelApi: string }): boolean => options.modelApi === 'bedrock-converse-stream';

test('a Bedrock history starting with an assistant gets the bootstrap turn (the reference leaves it)', () => {
  // Oracle, amazon-bedrock / bedrock-converse-stream: this input comes back unchanged.
  const input: Message[] = deepFreeze([
    { role: 'assistant', content: [{ type: 'text', text: 'hello' }], stopReason: 'stop', timestamp: 1 },
    { role: 'user', content: 'q', timestamp: 2 },
  ]);
  const { output, counts } = runRule(insertBedrockBootstrapTurnRule, input);
  assert.deepStrictEqual(output, [{ role: 'user', content: '(session bootstrap)', timestamp: TEST_NOW }, ...input]);
  assert.equal(output[1], input[0]);
  assert.equal(output[2], input[1]);
  assert.deepStrictEqual(counts, { inserted: 1 });
});

test('a history starting with a user turn is the same objects', () => {
  const input = deepFreeze([user('q'), assistant([text('a')])]);
  const { output, counts } = runRule(insertBedrockBootstrapTurnRule, input);
  assert.equal(output.length, 2);
  assert.equal(output[0], input[0]);
  assert.equal(output[1], input[1]);
  assert.deepStrictEqual(counts, {});
});

test('enabled for bedrock-converse-stream only, whatever the model; Bedrock routes have no Google ordering', () => {
  const routes = [
    { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', on: true },
    { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'amazon.nova-pro-v1:0', on: true },
    { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', on: false },
    { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro', on: false },
  ];
  for (const route of routes) {
    const options = resolveHygieneOptions(route);
    assert.equal(when(options), route.on, route.modelApi);
    if (route.on) assert.equal(resolveTranscriptPolicy(options).applyGoogleTurnOrdering, false, 'no other rule inserts the turn on Bedrock');
  }
});

test('rule meta', () => {
  assert.equal(insertBedrockBootstrapTurnRule.unit, 'buffered');
  assert.equal(insertBedrockBootstrapTurnRule.meta.name, 'insert-bedrock-bootstrap-turn');
  assert.deepEqual(insertBedrockBootstrapTurnRule.meta.counters, ['inserted']);
});
