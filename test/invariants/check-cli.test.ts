import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';
import { EXIT_VIOLATIONS } from '../../lib/invariants/check-command.ts';
import { runCli as run } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const bedrock = ['--provider', 'amazon-bedrock', '--model-api', 'bedrock-converse-stream', '--model-id', 'anthropic.claude-sonnet-4-5-20250929-v1:0'];
const anthropic = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const responses = ['--provider', 'openai', '--model-api', 'openai-responses', '--model-id', 'gpt-5'];


const lines = (...messages: unknown[]): string => messages.map((message) => JSON.stringify(message)).join('\n') + '\n';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-check-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('transcript-hygiene check', () => {
  test('reports the violations of a transcript as given, with message index and input line; exit 1', async () => {
    const result = await run(['check', demo, ...bedrock]);
    assert.equal(result.code, EXIT_VIOLATIONS, result.stderr);
    assert.equal(EXIT_VIOLATIONS, 1);
    assert.match(result.stdout, /violations of the bedrock rules \(10 messages, as given\)/);
    assert.match(result.stdout, /message 5 \(line 8\): bedrock\/alternation: /);
    assert.match(result.stdout, /bedrock\/blank-text \[block 1\]/);
  });

  test('--after-hygiene checks the pipeline output instead: clean, exit 0', async () => {
    const result = await run(['check', demo, '--after-hygiene', ...anthropic]);
    assert.equal(result.code, EXIT.ok, result.stdout + result.stderr);
    assert.match(result.stdout, /no violations of the anthropic rules \(\d+ messages, after hygiene\)/);
  });

  test('--json: route, what was checked, families, message count and violations with ids and lines', async () => {
    const input = lines({ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1|fc_1', name: 'read', arguments: {} }] });
    const result = await run(['check', '--json', ...anthropic], input);
    assert.equal(result.code, EXIT_VIOLATIONS);
    const report = JSON.parse(result.stdout) as { checked: string; families: string[]; messages: number; route: { modelApi: string }; violations: Array<Record<string, unknown>> };
    assert.equal(report.checked, 'input');
    assert.deepEqual(report.families, ['anthropic']);
    assert.equal(report.messages, 2);
    assert.equal(report.route.modelApi, 'anthropic-messages');
    assert.deepEqual(
      report.violations.map((v) => [v.rule, v.index, v.line, v.id, v.block]),
      [
        ['anthropic/tool-result-missing', 1, 2, 'call_1|fc_1', 0],
        ['anthropic/tool-use-id-pattern', 1, 2, 'call_1|fc_1', 0],
      ],
    );
  });

  test('a JSON array on stdin, and --thinking for the prefill rule', async () => {
    const input = JSON.stringify([{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'Sure, ' }] }]);
    assert.equal((await run(['check', ...anthropic], input)).code, EXIT.ok);
    const thinking = await run(['check', '--thinking', '--format', 'json', ...anthropic], input);
    assert.equal(thinking.code, EXIT_VIOLATIONS);
    assert.match(thinking.stdout, /message 1: anthropic\/trailing-prefill/);
  });

  test('--after-hygiene with --thinking applies the request-time prefill strip, as sanitize does', async () => {
    const input = lines({ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'Sure, ' }], stopReason: 'stop' });
    const result = await run(['check', '--after-hygiene', '--thinking', '--json', ...anthropic], input);
    assert.equal(result.code, EXIT.ok, result.stdout);
    assert.equal((JSON.parse(result.stdout) as { messages: number }).messages, 1);
  });

  test('a route without known provider rules: nothing to check, exit 0', async () => {
    const result = await run(['check', '--provider', 'x', '--model-api', 'unknown-api', '--model-id', 'y', '--provider-unknown-ok'], lines({ role: 'toolResult', toolCallId: 'a', content: [] }));
    assert.equal(result.code, EXIT.ok);
    assert.match(result.stdout, /no provider rules are known for this route/);
  });

  test('--after-hygiene: a transcript the Responses invariant rejects exits 5', async () => {
    const file = path.join(dir, 'responses.jsonl');
    await writeFile(
      file,
      lines(
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'toolCall', id: 'call_a|fc_1', name: 'read', arguments: { p: 1 } },
            { type: 'toolCall', id: 'call_a|fc_2', name: 'read', arguments: { p: 1 } },
          ],
          stopReason: 'toolUse',
        },
        { role: 'toolResult', toolCallId: 'call_a|fc_1', toolName: 'read', content: [{ type: 'text', text: 'a' }], isError: false },
        { role: 'toolResult', toolCallId: 'call_a|fc_2', toolName: 'read', content: [{ type: 'text', text: 'b' }], isError: false },
      ),
    );
    const result = await run(['check', file, '--after-hygiene', ...responses]);
    assert.equal(result.code, EXIT.replayInvalid, result.stdout);
    assert.match(result.stderr, /invalid_replay_transcript/);
  });

  test('usage errors exit 2; a missing file exits 3; bad input exits 11 naming the line', async () => {
    assert.equal((await run(['check', '--provider', 'anthropic'])).code, EXIT.usage);
    assert.equal((await run(['check', 'a', 'b', ...anthropic])).code, EXIT.usage);
    assert.equal((await run(['check', '--format', 'xml', ...anthropic])).code, EXIT.usage);
    assert.equal((await run(['check', '--bogus', ...anthropic])).code, EXIT.usage);
    assert.equal((await run(['check', path.join(dir, 'missing.jsonl'), ...anthropic])).code, EXIT.inputUnavailable);
    const bad = await run(['check', ...anthropic], '{"role":"user","content":"q"}\nnot json\n');
    assert.equal(bad.code, EXIT.checkBadInput);
    assert.match(bad.stderr, /<stdin>:2/);
  });

  test('help: check --help and help check', async () => {
    const own = await run(['check', '--help']);
    assert.equal(own.code, EXIT.ok);
    assert.match(own.stdout, /--after-hygiene/);
    assert.equal((await run(['help', 'check'])).stdout, own.stdout);
    assert.match((await run(['help'])).stdout, /check      report where a transcript breaks/);
  });
});
