import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { redactSecrets, redactSecretsRule } from '../../transforms/redact-secrets.ts';
import { createSecretScanner } from '../../lib/secrets/scanner.ts';
import { ruleNamesFor, createPipeline } from '../../lib/pipeline.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, fakeContext, image, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { SECRETS, PNG_BASE64, SIGNATURE } from '../secrets/corpus.ts';

const scanner = createSecretScanner();
const [awsId, awsSecret, github, npm, anthropic] = SECRETS;
const R = (rule: string): string => `[REDACTED:${rule}]`;

function run(message: Message): { out: Message; rules: string[]; unsigned: number } {
  const rules: string[] = [];
  let unsigned = 0;
  const out = redactSecrets(deepFreeze(message), scanner, (rule) => rules.push(rule), () => unsigned++);
  return { out, rules, unsigned };
}

describe('core: what is scanned', () => {
  const cases: Array<{ name: string; input: Message; expected: Message; rules: string[]; unsigned?: number }> = [
    { name: 'user string content', input: user(github!.text), expected: user(github!.redacted), rules: ['github'] },
    { name: 'user text blocks, an image block left alone', input: user([text(npm!.text), image(PNG_BASE64)]), expected: user([text(npm!.redacted), image(PNG_BASE64)]), rules: ['npm'] },
    {
      name: 'assistant text; a signed thinking block without a secret keeps its signature',
      input: assistant([thinking('plan', SIGNATURE), text(anthropic!.text)]),
      expected: assistant([thinking('plan', SIGNATURE), text(anthropic!.redacted)]),
      rules: ['anthropic'],
    },
    {
      name: 'a signed thinking block whose text changes loses every signature field',
      input: assistant([{ type: 'thinking', thinking: github!.text, thinkingSignature: SIGNATURE, signature: 's', thought_signature: 't', thoughtSignature: 'u' }, text('ok')]),
      expected: assistant([{ type: 'thinking', thinking: github!.redacted }, text('ok')]),
      rules: ['github'],
      unsigned: 1,
    },
    {
      name: 'tool-call arguments, deep: string values only; id, name and keys stay',
      input: assistant([toolCall('toolu_AKIA', 'bash', { cmd: awsSecret!.text, env: { list: [1, github!.secret, { [npm!.secret]: true }] } })], { stopReason: 'toolUse' }),
      expected: assistant([toolCall('toolu_AKIA', 'bash', { cmd: awsSecret!.redacted, env: { list: [1, R('github'), { [npm!.secret]: true }] } })], { stopReason: 'toolUse' }),
      rules: ['aws', 'github'],
    },
    {
      name: 'arguments kept as a JSON string, and in `input`',
      input: assistant([{ type: 'toolUse', id: 'u1', name: 'x', input: { token: github!.secret } }, { type: 'toolCall', id: 'c1', name: 'y', arguments: JSON.stringify({ k: npm!.secret }) }]),
      expected: assistant([{ type: 'toolUse', id: 'u1', name: 'x', input: { token: R('github') } }, { type: 'toolCall', id: 'c1', name: 'y', arguments: JSON.stringify({ k: R('npm') }) }]),
      rules: ['github', 'npm'],
    },
    {
      name: 'tool result text; toolCallId and toolName stay',
      input: toolResult('call_1', [text(awsId!.text)], { toolName: 'read' }),
      expected: toolResult('call_1', [text(awsId!.redacted)], { toolName: 'read' }),
      rules: ['aws'],
    },
    { name: 'tool result with string content', input: toolResult('call_1', npm!.text), expected: toolResult('call_1', npm!.redacted), rules: ['npm'] },
    {
      name: 'image file names and media paths; the data stays',
      input: user([{ type: 'image', data: PNG_BASE64, mimeType: 'image/png', fileName: `shot-${github!.secret}.png` }], { __openclaw: { media: [{ path: `media/${npm!.secret}.png`, url: `https://cdn.example.com/x?token=${github!.secret}`, contentType: 'image/png' }] } }),
      expected: user([{ type: 'image', data: PNG_BASE64, mimeType: 'image/png', fileName: `shot-${R('github')}.png` }], { __openclaw: { media: [{ path: `media/${R('npm')}.png`, url: `https://cdn.example.com/x?token=${R('github')}`, contentType: 'image/png' }] } }),
      rules: ['github', 'npm', 'github'],
    },
    {
      name: 'harness messages replayed as user turns: summaries, bash command and output',
      input: { role: 'bashExecution', command: `echo ${github!.secret}`, output: npm!.text, exitCode: 0 },
      expected: { role: 'bashExecution', command: `echo ${R('github')}`, output: npm!.redacted, exitCode: 0 },
      rules: ['github', 'npm'],
    },
    { name: 'compaction summary', input: { role: 'compactionSummary', summary: github!.text, tokensBefore: 10 }, expected: { role: 'compactionSummary', summary: github!.redacted, tokensBefore: 10 }, rules: ['github'] },
    {
      name: 'nested tool_result block content',
      input: user([{ type: 'tool_result', tool_use_id: 'x', content: [text(github!.text)] }]),
      expected: user([{ type: 'tool_result', tool_use_id: 'x', content: [text(github!.redacted)] }]),
      rules: ['github'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { out, rules, unsigned } = run(c.input);
      assert.deepEqual(out, c.expected);
      assert.deepEqual(rules, c.rules);
      assert.equal(unsigned, c.unsigned ?? 0);
    });
  }

  test('never scanned: ids, names, signatures, redacted thinking data, unknown fields', () => {
    const secret = github!.secret;
    const message = assistant(
      [
        { type: 'thinking', thinking: 'plan', thinkingSignature: secret },
        { type: 'redacted_thinking', data: secret },
        { type: 'toolCall', id: secret, name: secret, arguments: {} },
        { type: 'text', text: 'ok', textSignature: secret },
      ],
      { responseId: secret, model: secret },
    );
    const { out, rules } = run(message);
    assert.equal(out, message);
    assert.deepEqual(rules, []);
  });

  test('a message without a secret is the same object', () => {
    for (const message of [user('hello'), assistant([text('hi'), toolCall('c', 'read', { path: 'a.ts' })]), toolResult('c', [text('contents')]), { role: 'custom', content: 'x' }]) {
      assert.equal(run(message).out, message);
    }
  });
});

describe('rule', () => {
  test('counts per rule id, redacted messages and unsigned thinking', () => {
    const ctx = fakeContext({ options: { redact: { secrets: true } } });
    const out = redactSecretsRule.apply(deepFreeze(assistant([thinking(github!.text, SIGNATURE), text(`${npm!.text} ${github!.secret}`)])), ctx);
    assert.notEqual(out, null);
    assert.deepEqual(ctx.counts, { github: 2, npm: 1, unsignedThinking: 1, redactedMessages: 1 });
  });

  test('runs only with the option, first of the content rules', () => {
    const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
    assert.ok(!ruleNamesFor(route).includes('redact-secrets'));
    const names = ruleNamesFor({ ...route, redact: { secrets: true } });
    assert.equal(names.indexOf('redact-secrets'), names.indexOf('drop-role-less-messages') + 1);
    assert.ok(names.indexOf('redact-secrets') < names.indexOf('strip-invalid-thinking-signatures'));
  });

  test('in the pipeline, the signed turn it changed is handled by the thinking rules (Anthropic drops the unsigned block)', async () => {
    const out: Message[] = [];
    const pipeline = createPipeline({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6', redact: { secrets: true } }, (m) => out.push(m));
    for (const message of [user('go'), assistant([thinking(github!.text, SIGNATURE), text('step')]), user('next'), assistant([text('done')])]) pipeline.write(message);
    await pipeline.end();
    assert.deepEqual(out[1], assistant([text('step')]));
    assert.deepEqual(pipeline.stats().rules['redact-secrets'], { github: 1, unsignedThinking: 1, redactedMessages: 1 });
    assert.deepEqual(pipeline.stats().rules['strip-invalid-thinking-signatures'], { removedBlocks: 1 });
  });
});
