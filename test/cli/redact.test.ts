/**
 * `--redact secrets` end to end: every route's output holds no secret and passes `check`, as
 * given and `--after-hygiene`; a secret split across the chunks of a very long line; a key
 * written with JSON escapes; the flags and their usage errors.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { POLICIES } from '../properties/harness.ts';
import { BARE_GOOGLE_KEY, ENV_DUMP, ESCAPED_KEY, PNG_BASE64, SECRETS, SIGNATURE } from '../secrets/corpus.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-redact-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const secret = (kind: string): string => SECRETS.find((c) => c.kind === kind)!.text;

/** A session that leaks every kind of the corpus, in every place a secret can sit. */
function leakySession(): string {
  const lines: unknown[] = [
    { role: 'user', content: `here are my keys: ${secret('anthropic key')} and ${secret('openai key')}`, timestamp: 1 },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `the user pasted ${secret('github token')}`, thinkingSignature: SIGNATURE },
        { type: 'text', text: 'Let me read the env file.' },
        { type: 'toolCall', id: 'toolu_01', name: 'read', arguments: { path: '.env', headers: { Authorization: secret('jwt') } } },
      ],
      stopReason: 'toolUse',
      timestamp: 2,
    },
    { role: 'toolResult', toolCallId: 'toolu_01', toolName: 'read', content: [{ type: 'text', text: ENV_DUMP.text }], isError: false, timestamp: 3 },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'now push', thinkingSignature: SIGNATURE },
        { type: 'toolCall', id: 'toolu_02', name: 'bash', arguments: { command: secret('basic-auth url'), env: [secret('npm token'), secret('slack webhook')] } },
      ],
      stopReason: 'toolUse',
      timestamp: 4,
    },
    { role: 'toolResult', toolCallId: 'toolu_02', toolName: 'bash', content: [{ type: 'text', text: secret('private key block') + '\n' + secret('slack token') }], isError: false, timestamp: 5 },
    { role: 'user', content: [{ type: 'text', text: 'screenshot' }, { type: 'image', data: PNG_BASE64, mimeType: 'image/png', fileName: `key-${SECRETS[0]!.secret}.png` }], timestamp: 6 },
    { role: 'assistant', content: [{ type: 'thinking', thinking: `still holds ${secret('stripe key')}`, thinkingSignature: SIGNATURE }, { type: 'text', text: `Done; ${secret('aws secret access key')}` }], stopReason: 'stop', timestamp: 7 },
  ];
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

const ALL_SECRETS = [...SECRETS.map((c) => c.secret), ...ENV_DUMP.secrets];
const routeArgs = (route: { provider?: string; modelApi?: string; modelId?: string }): string[] => ['--provider', route.provider ?? '', '--model-api', route.modelApi ?? '', '--model-id', route.modelId ?? ''];

describe('every route: no secret left, and the output passes check', () => {
  for (const policy of POLICIES) {
    test(policy.name, async () => {
      const input = path.join(dir, `leaky-${policy.name.replace(/\W+/g, '-')}.jsonl`);
      const output = `${input}.out`;
      await writeFile(input, leakySession());
      const run = await runCli(['sanitize', input, ...routeArgs(policy.route), '--redact', 'secrets', '--stats', '-o', output]);
      assert.equal(run.code, 0, run.stderr);
      const written = await readFile(output, 'utf8');
      for (const value of ALL_SECRETS) {
        assert.ok(!written.includes(value), `${value.slice(0, 12)}... left in the output`);
        assert.ok(!run.stderr.includes(value), 'a secret in the stats');
      }
      assert.match(written, /\[REDACTED:anthropic\]/);
      const stats = JSON.parse(run.stderr.trim().split('\n').pop()!) as { rules: Record<string, Record<string, number>> };
      assert.ok((stats.rules['redact-secrets']?.redactedMessages ?? 0) >= 6, JSON.stringify(stats.rules['redact-secrets']));
      assert.equal(stats.rules['redact-secrets']?.privatekey, 1);
      for (const args of [['check', output], ['check', output, '--after-hygiene'], ['check', input, '--after-hygiene', '--redact', 'secrets']]) {
        const check = await runCli([...args, ...routeArgs(policy.route)]);
        assert.equal(check.code, 0, `${args.join(' ')}: ${check.stdout}${check.stderr}`);
      }
    });
  }
});

describe('streaming', () => {
  test('a secret split across the read chunks of a 3 MB line, around the 1 MiB long-line mark', async () => {
    const token = SECRETS.find((c) => c.kind === 'github token')!.secret;
    const head = '{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"';
    // The token's middle falls on byte 1 MiB of the line: a 64 KiB read boundary, and where the line starts being decoded as it arrives.
    const pad = 'x'.repeat(1024 * 1024 - head.length - token.length / 2);
    const line = head + pad + ' ' + token + ' ' + 'y'.repeat(2 * 1024 * 1024) + '"}],"isError":false,"timestamp":2}';
    const input = path.join(dir, 'long.jsonl');
    await writeFile(input, JSON.stringify({ role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: {} }], stopReason: 'toolUse', timestamp: 1 }) + '\n' + line + '\n');
    const run = await runCli(['sanitize', input, '--provider', 'openai', '--model-api', 'openai-responses', '--model-id', 'gpt-5', '--redact', 'secrets']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(token));
    assert.ok(run.stdout.includes(' [REDACTED:github] '));
  });

  test('a key written with JSON escapes, in a bare message and in a session file', async () => {
    const bare = path.join(dir, 'escaped.jsonl');
    await writeFile(bare, `{"role":"user","content":${ESCAPED_KEY.json},"timestamp":1}\n`);
    const session = path.join(dir, 'escaped-session.jsonl');
    await writeFile(
      session,
      [
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/w"}',
        `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-07-20T09:00:01.000Z","message":{"role":"user","content":${ESCAPED_KEY.json},"timestamp":1}}`,
      ].join('\n') + '\n',
    );
    for (const file of [bare, session]) {
      const run = await runCli(['sanitize', file, '--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5', '--redact', 'secrets']);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(!run.stdout.includes(ESCAPED_KEY.secret));
      assert.match(run.stdout, /"content":"key: \[REDACTED:anthropic\] ok"/);
    }
  });
});

describe('flags', () => {
  const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
  const input = (text: string): string => JSON.stringify({ role: 'user', content: text, timestamp: 1 }) + '\n';

  test('--redact-pattern, named and not, without --redact secrets', async () => {
    const run = await runCli(['sanitize', ...route, '--redact-pattern', 'ticket=/TCK-[0-9]{4}/', '--redact-pattern', '/internal-[a-z]+/i'], input(`TCK-1234 Internal-host ${secret('github token')}`));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).content, `[REDACTED:user:ticket] [REDACTED:user:pattern-2] ${secret('github token')}`);
  });

  test('--redact-allow and --redact-config', async () => {
    const config = path.join(dir, 'redact.json');
    await writeFile(config, JSON.stringify({ patterns: [BARE_GOOGLE_KEY.pattern], allow: ['/^npm_fake/'] }));
    const run = await runCli(['sanitize', ...route, '--redact', 'secrets', '--redact-config', config, '--redact-allow', SECRETS[2]!.secret], input(`${BARE_GOOGLE_KEY.text}; ${secret('npm token')}; ${secret('github token')}; ${secret('anthropic key')}`));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).content, `the maps key is [REDACTED:user:google-api-key] for now; ${secret('npm token')}; ${secret('github token')}; ${SECRETS.find((c) => c.kind === 'anthropic key')!.redacted}`);
  });

  const usage: Array<[string, string[], RegExp]> = [
    ['--redact takes only secrets', ['--redact', 'all'], /--redact takes 'secrets', got "all"/],
    ['a pattern must be /REGEX/', ['--redact-pattern', 'TCK-[0-9]+'], /--redact-pattern takes \/REGEX\/FLAGS/],
    ['an invalid regular expression', ['--redact-pattern', '/(/'], /not a valid regular expression/],
    ['--redact-allow alone does nothing', ['--redact-allow', 'x'], /need --redact secrets or a --redact-pattern/],
    ['a config file that is not JSON', ['--redact', 'secrets', '--redact-config', '/dev/null'], /--redact-config \/dev\/null/],
  ];
  for (const [name, flags, message] of usage) {
    test(`usage: ${name}`, async () => {
      const run = await runCli(['sanitize', ...route, ...flags], input('x'));
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }

  test('usage: check takes the redaction flags only with --after-hygiene', async () => {
    const run = await runCli(['check', ...route, '--redact', 'secrets'], input('x'));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /go with --after-hygiene/);
  });
});
