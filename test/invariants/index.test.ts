import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { INVARIANT_FAMILIES, INVARIANT_RULES, checkTranscript, invariantsFor } from '../../lib/invariants/index.ts';
import { buildReplayView, contentFacts } from '../../lib/invariants/turns.ts';
import * as library from '../../lib/index.ts';
import { assistant, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';

describe('invariantsFor: route to provider families', () => {
  const cases: Array<[string, string, string, string[]]> = [
    ['anthropic', 'anthropic-messages', 'claude-sonnet-4-5', ['anthropic']],
    ['minimax', 'anthropic-messages', 'MiniMax-M2', ['anthropic']],
    ['amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0', ['bedrock']],
    ['google', 'google-generative-ai', 'gemini-2.5-pro', ['gemini']],
    ['google-gemini-cli', 'google-gemini-cli', 'gemini-2.5-pro', ['gemini']],
    ['google-vertex', 'google-vertex', 'gemini-2.5-pro', ['gemini']],
    ['openai', 'openai-responses', 'gpt-5', ['openai-responses']],
    ['openai', 'openai-chatgpt-responses', 'gpt-5.1-codex', ['openai-responses']],
    ['azure-openai', 'azure-openai-responses', 'gpt-5', ['openai-responses']],
    ['openai', 'openai-completions', 'gpt-4o', ['chat-completions']],
    ['vllm', 'openai-completions', 'qwen3', ['chat-completions']],
    ['mistral', 'openai-completions', 'mistral-large-latest', ['chat-completions', 'mistral']],
    ['openrouter', 'openai-completions', 'mistralai/mistral-large', ['chat-completions', 'mistral']],
    ['openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5', ['chat-completions', 'anthropic']],
    ['openrouter', 'some-api', 'openai/gpt-5', ['chat-completions']],
    ['mistral', 'mistral-conversations', 'mistral-large-latest', []],
    ['ollama', 'ollama', 'llama3', []],
    ['something-else', 'unknown-api', 'foo', []],
  ];
  for (const [provider, modelApi, modelId, families] of cases) {
    test(`${provider} / ${modelApi} / ${modelId} → ${families.join(' + ') || 'none'}`, () => {
      assert.deepEqual(invariantsFor({ provider, modelApi, modelId }).families, families);
    });
  }

  test('OpenRouter Anthropic gets only the id pattern and the prefill rule of the Anthropic family', () => {
    const ids = invariantsFor({ provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' }).rules.map((rule) => rule.id);
    assert.deepEqual(ids.filter((id) => id.startsWith('anthropic/')), ['anthropic/tool-use-id-pattern', 'anthropic/tool-use-input', 'anthropic/trailing-prefill']);
  });

  test('a route without known rules reports nothing, whatever the transcript', () => {
    assert.deepEqual(checkTranscript([toolResult('x', [])], { provider: 'x', modelApi: 'unknown-api', modelId: 'y' }), []);
  });

  test('the thinking switch reaches the context', () => {
    assert.equal(invariantsFor({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6', thinking: true }).context.thinking, true);
    assert.equal(invariantsFor({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }).context.thinking, false);
  });
});

describe('the rule catalogue', () => {
  test('every family has rules', () => {
    assert.deepEqual(Object.keys(INVARIANT_RULES), [...INVARIANT_FAMILIES]);
  });

  test('ids are unique and carry their family', () => {
    const all = Object.entries(INVARIANT_RULES).flatMap(([family, rules]) => rules.map((rule) => ({ family, rule })));
    assert.equal(new Set(all.map(({ rule }) => rule.id)).size, all.length);
    for (const { family, rule } of all) {
      assert.equal(rule.family, family);
      assert.ok(rule.id.startsWith(`${family}/`), rule.id);
      assert.ok(rule.summary.length > 10 && rule.source.length > 10, rule.id);
    }
  });

  test('checkTranscript and invariantsFor are exported from the package', () => {
    assert.equal(library.checkTranscript, checkTranscript);
    assert.equal(library.invariantsFor, invariantsFor);
  });
});

describe('the replay view', () => {
  test('a run of tool results is one turn; harness roles are user turns; other objects are skipped', () => {
    const view = buildReplayView([
      null,
      { role: 'compactionSummary', summary: 's' },
      user('q'),
      assistant([toolCall('a'), toolCall('b')]),
      toolResult('a', []),
      toolResult('b', []),
      { content: 'role-less' },
      { role: 'custom', content: 'x', excludeFromContext: true },
      { role: 'tool', content: 'x' },
      user('next'),
    ]);
    assert.deepEqual(
      view.turns.map((turn) => [turn.kind, turn.index, turn.entries.length]),
      [
        ['context', 1, 1],
        ['user', 2, 1],
        ['assistant', 3, 1],
        ['tool-results', 4, 2],
        ['user', 9, 1],
      ],
    );
  });

  test('what counts as content', () => {
    assert.deepEqual(contentFacts('  '), { sendable: 0, blankTexts: [] });
    assert.deepEqual(contentFacts('x'), { sendable: 1, blankTexts: [] });
    assert.deepEqual(contentFacts(42), { sendable: 0, blankTexts: [] });
    assert.deepEqual(contentFacts([text(' '), thinking(' '), thinking('t'), thinking(' ', 'sig'), { type: 'foo' }, null, { type: 'text', text: 5 }]), {
      sendable: 3,
      blankTexts: [0, 6],
    });
  });

  test('violations come in message order, rule order within a message', () => {
    const violations = checkTranscript([assistant([toolCall('a|b')]), user('q'), toolResult('zz', [])], {
      provider: 'amazon-bedrock',
      modelApi: 'bedrock-converse-stream',
      modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    });
    assert.deepEqual(
      violations.map((v) => `${v.index} ${v.rule}`),
      [
        '0 bedrock/first-message-user',
        '0 bedrock/tool-result-missing',
        '0 bedrock/tool-use-id-pattern',
        '2 bedrock/alternation',
        '2 bedrock/unexpected-tool-result',
      ],
    );
  });
});
