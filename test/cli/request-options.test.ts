/** The request options of issue 29 on the command line: --no-tools (and, below, --max-tool-result-bytes). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/run-cli.ts';

const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

const lines = [
  { role: 'user', content: 'read a.md', timestamp: 1 },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.md' } }], stopReason: 'toolUse', timestamp: 2 },
  { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'alpha' }], timestamp: 3 },
  { role: 'assistant', content: [{ type: 'text', text: 'done' }], timestamp: 4 },
  { role: 'user', content: 'summarize', timestamp: 5 },
];

async function transcript(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-options-'));
  const file = path.join(dir, 't.jsonl');
  await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}

test('check --no-tools names each tool block under anthropic/tool-blocks-without-tools; sanitize --no-tools leaves none', async () => {
  const file = await transcript();
  const plain = await runCli(['check', file, ...route]);
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  const before = await runCli(['check', file, ...route, '--no-tools', '--json']);
  assert.equal(before.code, 1, before.stderr);
  const rules = (JSON.parse(before.stdout) as { violations: Array<{ rule: string }> }).violations.map((v) => v.rule);
  assert.deepEqual(rules, ['anthropic/tool-blocks-without-tools', 'anthropic/tool-blocks-without-tools']);
  const after = await runCli(['check', file, ...route, '--no-tools', '--after-hygiene']);
  assert.equal(after.code, 0, after.stdout);
  const sanitized = await runCli(['sanitize', file, ...route, '--no-tools', '--stats']);
  assert.equal(sanitized.code, 0, sanitized.stderr);
  assert.match(sanitized.stdout, /\[called read \{\\"path\\":\\"a.md\\"\}\]/);
  assert.match(sanitized.stdout, /\[result of read: alpha\]/);
  assert.deepEqual(JSON.parse(sanitized.stderr).rules['render-tools-as-text'], { callsRendered: 1, resultsRendered: 1 });
});

test('sanitize --max-tool-result-bytes cuts a large result; check reports it as <family>/tool-result-size until then', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-options-'));
  const file = path.join(dir, 'big.jsonl');
  const big = lines.map((line) => (line.role === 'toolResult' ? { ...line, content: [{ type: 'text', text: 'z'.repeat(20_000) }] } : line));
  await writeFile(file, big.map((line) => JSON.stringify(line)).join('\n') + '\n');
  const before = await runCli(['check', file, ...route, '--max-tool-result-bytes', '1000', '--json']);
  assert.equal(before.code, 1, before.stderr);
  assert.deepEqual((JSON.parse(before.stdout) as { violations: Array<{ rule: string }> }).violations.map((v) => v.rule), ['anthropic/tool-result-size']);
  const after = await runCli(['check', file, ...route, '--max-tool-result-bytes', '1000', '--after-hygiene']);
  assert.equal(after.code, 0, after.stdout);
  const sanitized = await runCli(['sanitize', file, ...route, '--max-tool-result-bytes', '1000', '--stats']);
  assert.equal(sanitized.code, 0, sanitized.stderr);
  assert.match(sanitized.stdout, /bytes of tool output removed/);
  assert.equal(JSON.parse(sanitized.stderr).rules['cap-tool-result-text'].resultsCut, 1);
  const tooSmall = await runCli(['sanitize', file, ...route, '--max-tool-result-bytes', '5']);
  assert.equal(tooSmall.code, 2, tooSmall.stderr);
});

test('--stats counts the Gemini 3 and DeepSeek rules under their own names', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-request-options-'));
  const file = path.join(dir, 'switch.jsonl');
  const claude = { provider: 'anthropic', api: 'anthropic-messages', model: 'claude-sonnet-4-5' };
  const switched = lines.slice(0, 3).map((line) => (line.role === 'assistant' ? { ...line, ...claude } : line));
  await writeFile(file, switched.map((line) => JSON.stringify(line)).join('\n') + '\n');
  const gemini = await runCli(['sanitize', file, '--provider', 'google', '--model-api', 'google-generative-ai', '--model-id', 'gemini-3-pro-preview', '--stats']);
  assert.equal(gemini.code, 0, gemini.stderr);
  assert.deepEqual(JSON.parse(gemini.stderr).rules['sign-gemini3-current-turn'], { stepsAsText: 1, callsAsText: 1, resultsAsText: 1 });
  const deepseek = await runCli(['sanitize', file, '--provider', 'deepseek', '--model-api', 'openai-completions', '--model-id', 'deepseek-v4-pro', '--stats']);
  assert.equal(deepseek.code, 0, deepseek.stderr);
  assert.deepEqual(JSON.parse(deepseek.stderr).rules['fill-missing-reasoning-content'], { filled: 1 });
});

test('export: a route file takes tools and maxToolResultBytes, and they are part of the options hash', async () => {
  const { planRoutes } = await import('../../lib/export/routes.ts');
  const base = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
  const [plain, noTools, capped] = planRoutes([{ ...base, name: 'a' }, { ...base, name: 'b', tools: false }, { ...base, name: 'c', maxToolResultBytes: 4096 }], 'jsonl');
  assert.equal(noTools!.options.tools, false);
  assert.equal(capped!.options.maxToolResultBytes, 4096);
  assert.equal(new Set([plain!.hash, noTools!.hash, capped!.hash]).size, 3);
  assert.throws(() => planRoutes([{ ...base, maxToolResultBytes: 3 }], 'jsonl'), /maxToolResultBytes/);
});
