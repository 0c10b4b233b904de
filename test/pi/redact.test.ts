/** The pi extension redacts only when pi was started with TRANSCRIPT_HYGIENE_REDACT=secrets. */
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import transcriptHygiene, { type PiContextEvent, type PiContextEventResult, type PiExtensionContext } from '../../lib/pi/extension.ts';
import { REDACT_CONFIG_ENV, REDACT_ENV, redactionFromEnv } from '../../lib/pi/redact.ts';
import { SECRETS } from '../secrets/corpus.ts';

const github = SECRETS.find((c) => c.kind === 'github token')!;
const model = { id: 'claude-sonnet-4-5', provider: 'anthropic', api: 'anthropic-messages', reasoning: true };

/** Loads the extension as pi does (with the environment as it is now) and runs one context through it. */
async function contextThrough(messages: unknown[]): Promise<{ result: PiContextEventResult | undefined; notes: string[] }> {
  let handler: ((event: PiContextEvent, ctx: PiExtensionContext) => unknown) | undefined;
  transcriptHygiene({ on: (_event, h) => void (handler = h), getThinkingLevel: () => 'off' });
  const notes: string[] = [];
  const ctx: PiExtensionContext = { hasUI: true, model, ui: { notify: (line) => void notes.push(line), setStatus: () => {} } };
  const result = (await handler!({ type: 'context', messages }, ctx)) as PiContextEventResult | undefined;
  return { result, notes };
}

const leaky = (): unknown[] => [
  { role: 'user', content: github.text, timestamp: 1 },
  { role: 'assistant', content: [{ type: 'text', text: 'ok' }], stopReason: 'stop', timestamp: 2 },
];

afterEach(() => {
  delete process.env[REDACT_ENV];
  delete process.env[REDACT_CONFIG_ENV];
});

describe('pi extension redaction', () => {
  test('off by default: the runner sends its secrets to its own provider', async () => {
    const { result } = await contextThrough(leaky());
    assert.equal(result, undefined, 'nothing to change: pi keeps its context');
  });

  test('on with TRANSCRIPT_HYGIENE_REDACT=secrets', async () => {
    process.env[REDACT_ENV] = 'secrets';
    const { result, notes } = await contextThrough(leaky());
    assert.deepEqual((result?.messages?.[0] as { content: string }).content, github.redacted);
    assert.deepEqual(notes, []);
  });

  test('a config file adds patterns; a bad one is reported once and the built-in rules still run', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'th-pi-redact-'));
    try {
      const config = path.join(dir, 'redact.json');
      await writeFile(config, JSON.stringify({ patterns: ['/TCK-[0-9]{4}/'] }));
      process.env[REDACT_ENV] = 'secrets';
      process.env[REDACT_CONFIG_ENV] = config;
      const good = await contextThrough([{ role: 'user', content: `TCK-1234 ${github.text}`, timestamp: 1 }]);
      assert.equal((good.result?.messages?.[0] as { content: string }).content, `[REDACTED:user:pattern-1] ${github.redacted}`);
      await writeFile(config, '{"patterns": ["/(/"]}');
      const bad = await contextThrough(leaky());
      assert.equal((bad.result?.messages?.[0] as { content: string }).content, github.redacted);
      assert.equal(bad.notes.length, 1);
      assert.match(bad.notes[0]!, /TRANSCRIPT_HYGIENE_REDACT_CONFIG .*redacting with the built-in rules only/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('settings', () => {
    assert.deepEqual(redactionFromEnv({}), { redact: undefined, problem: undefined });
    assert.deepEqual(redactionFromEnv({ [REDACT_ENV]: 'secrets' }), { redact: { secrets: true }, problem: undefined });
    assert.match(redactionFromEnv({ [REDACT_ENV]: 'yes' }).problem!, /takes 'secrets', got "yes": nothing is redacted/);
  });
});
