/** An unknown or misspelt --provider / --model-api is an error naming the closest known value, unless it is deliberate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';
import { EXPORT_EXIT } from '../../lib/export/report.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { KNOWN_MODEL_APIS, KNOWN_PROVIDERS } from '../../lib/policy.ts';
import { runCli } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const good = { provider: 'anthropic', api: 'anthropic-messages' };
const routeOf = (provider: string, api: string): string[] => ['--provider', provider, '--model-api', api, '--model-id', 'claude-sonnet-4-5'];

test('a misspelt provider: exit 2 with one line naming the closest known one (sanitize, check, policy)', async () => {
  for (const argv of [['sanitize', demo], ['check', demo], ['policy']]) {
    const result = await runCli([...argv, ...routeOf('anthropc', good.api)]);
    assert.equal(result.code, EXIT.usage, `${argv[0]}: ${result.stderr}`);
    assert.equal(result.stderr.split('\n').length - 1, 1, result.stderr);
    assert.match(result.stderr, /unknown provider 'anthropc' \(did you mean 'anthropic'\?\)/);
    assert.equal(result.stdout, '');
  }
});

test('a misspelt model API: exit 2 naming the closest', async () => {
  const result = await runCli(['policy', ...routeOf(good.provider, 'anthropic-message')]);
  assert.equal(result.code, EXIT.usage);
  assert.match(result.stderr, /unknown model API 'anthropic-message' \(did you mean 'anthropic-messages'\?\)/);
});

test('export: the same decision, with its own usage code', async () => {
  const result = await runCli(['export', '--out', path.join(root, 'no-such-out-dir'), ...routeOf('opneai', 'openai-responses'), demo]);
  assert.equal(result.code, EXPORT_EXIT.usage);
  assert.match(result.stderr, /unknown provider 'opneai' \(did you mean 'openai'\?\)/);
});

test('deliberate: --provider-unknown-ok, or a custom: provider', async () => {
  const allowed = await runCli(['policy', ...routeOf('my-gateway', 'openai-completions'), '--provider-unknown-ok']);
  assert.equal(allowed.code, EXIT.ok, allowed.stderr);
  const custom = await runCli(['policy', ...routeOf('custom:my-gateway', 'openai-completions')]);
  assert.equal(custom.code, EXIT.ok, custom.stderr);
  // The custom provider gets the transport fallback of its API, as any provider outside the table.
  assert.match(custom.stdout, /toolCallIdMode\s+"strict"/);
});

test('the library: permissive by default, the same error with unknownRoute: "error"', () => {
  assert.doesNotThrow(() => resolveHygieneOptions({ provider: 'anthropc', modelApi: 'anthropic-messages', modelId: 'x' }));
  assert.throws(
    () => resolveHygieneOptions({ provider: 'anthropc', modelApi: 'anthropic-messages', modelId: 'x', unknownRoute: 'error' }),
    (error: Error & { code?: string }) => error.code === 'invalid_option' && /did you mean 'anthropic'/.test(error.message),
  );
  assert.doesNotThrow(() => resolveHygieneOptions({ provider: 'custom:acme', modelApi: 'custom:acme-api', modelId: 'x', unknownRoute: 'error' }));
  for (const provider of KNOWN_PROVIDERS) assert.doesNotThrow(() => resolveHygieneOptions({ provider, modelApi: KNOWN_MODEL_APIS[0], modelId: 'x', unknownRoute: 'error' }));
});
