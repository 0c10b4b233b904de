/**
 * The rules a pi request gets come from the request (model api, id, base URL), never from pi's
 * provider name: the README's table, row by row, and the fault the issue found (an unknown
 * provider name on anthropic-messages to Claude ran the generic rules and rewrote valid ids).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCall, routeOf } from '../../lib/pi/route.ts';
import { requestRules } from '../../lib/pi/request-rules.ts';
import { sanitizeInMemory } from '../../lib/in-memory.ts';

const claude = { provider: 'anthropic', api: 'anthropic-messages', id: 'claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com', reasoning: true };

describe('pi route', () => {
  test('thinking is on only when the model reasons and the level is not off', () => {
    assert.deepEqual(routeOf(claude, 'high').route, { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', reasoning: true, thinking: true });
    assert.equal(routeOf(claude, 'max').route.thinking, true);
    assert.equal(routeOf(claude, 'off').route.thinking, false);
    assert.equal(routeOf(claude, undefined).route.thinking, false);
    assert.equal(routeOf({ ...claude, reasoning: false }, 'high').route.thinking, false);
    assert.equal(describeCall(routeOf({ ...claude, provider: 'acme-proxy' }, 'minimal')), 'acme-proxy/claude-sonnet-4-5 (anthropic rules, anthropic-messages, thinking)');
  });

  test('the README table: api, model id and base URL decide; the provider name never does', () => {
    const rows: Array<[api: string, modelId: string, baseUrl: string, rules: string, modelApi?: string]> = [
      ['anthropic-messages', 'claude-sonnet-4-5', 'http://127.0.0.1:4000', 'anthropic'],
      ['anthropic-messages', 'anthropic/claude-opus-4.5', 'https://ai-gateway.vercel.sh', 'anthropic'],
      ['anthropic-messages', 'kimi-k2', 'https://api.fireworks.ai/inference', 'generic anthropic-messages'],
      ['anthropic-messages', 'MiniMax-M2', 'https://api.minimax.io/anthropic', 'minimax'],
      ['anthropic-messages', 'claude-sonnet-4.5', 'https://api.individual.githubcopilot.com', 'github-copilot'],
      ['anthropic-messages', 'anthropic/claude-sonnet-4.5', 'https://openrouter.ai/api', 'openrouter'],
      ['openai-responses', 'gpt-5.1', 'https://gateway.example.com/v1', 'openai'],
      ['openai-responses', 'grok-4', 'https://api.x.ai/v1', 'xai'],
      ['openai-responses', 'llama-4', 'https://api.meta.ai/v1', 'generic openai-responses'],
      ['azure-openai-responses', 'gpt-5', '', 'azure-openai-responses'],
      ['openai-codex-responses', 'gpt-5.1-codex', 'https://chatgpt.com/backend-api', 'openai-codex', 'openai-chatgpt-responses'],
      ['openai-completions', 'gpt-4.1', 'http://localhost:8080/v1', 'openai'],
      ['openai-completions', 'o3-mini', 'https://proxy.internal', 'openai'],
      ['openai-completions', 'anthropic/claude-sonnet-4.5', 'https://openrouter.ai/api/v1', 'openrouter'],
      ['openai-completions', 'deepseek-chat', 'https://api.deepseek.com', 'generic openai-completions'],
      ['openai-completions', 'gpt-5', 'https://api.individual.githubcopilot.com', 'github-copilot'],
      ['google-generative-ai', 'gemini-2.5-pro', 'https://generativelanguage.googleapis.com/v1beta', 'google'],
      ['google-vertex', 'gemini-2.5-pro', 'https://{location}-aiplatform.googleapis.com', 'google-vertex'],
      ['bedrock-converse-stream', 'anthropic.claude-sonnet-4-5', 'https://bedrock-runtime.us-east-1.amazonaws.com', 'amazon-bedrock'],
      ['mistral-conversations', 'devstral-medium', 'https://api.mistral.ai', 'mistral'],
      ['pi-messages', 'radius-1', 'https://radius.pi.dev', 'generic pi-messages'],
    ];
    for (const [api, modelId, baseUrl, rules, modelApi] of rows) {
      const found = requestRules({ api, modelId, baseUrl });
      assert.equal(found.label, rules, `${api} ${modelId} ${baseUrl}`);
      assert.equal(found.modelApi, modelApi ?? api);
      assert.equal(found.provider, rules.startsWith('generic ') ? 'custom' : rules);
      for (const provider of ['anthropic', 'openai', 'emulator', 'my-company-proxy']) {
        assert.equal(routeOf({ provider, api, id: modelId, baseUrl, reasoning: false }, 'off').rules, rules, `${provider}: ${api} ${modelId}`);
      }
    }
  });

  test("an unknown provider name on anthropic-messages to Claude keeps Claude's valid ids", async () => {
    const messages = [
      { role: 'user', content: 'go', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_01Dangle', name: 'read', arguments: {} }], api: 'anthropic-messages', provider: 'emulator', model: 'claude-sonnet-4-5', stopReason: 'toolUse', timestamp: 2 },
      { role: 'toolResult', toolCallId: 'toolu_01Dangle', toolName: 'read', content: [{ type: 'text', text: 'x' }], isError: false, timestamp: 3 },
      { role: 'user', content: 'and?', timestamp: 4 },
    ];
    const { route } = routeOf({ provider: 'emulator', api: 'anthropic-messages', id: 'claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:1', reasoning: true }, 'medium');
    const result = await sanitizeInMemory(messages, route);
    assert.equal(result.changed, false, JSON.stringify(result.messages));
  });
});
