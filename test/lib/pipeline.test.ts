import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHygieneStream, sanitizeSessionHistory, type HygieneOptions, type HygieneStats, type Message, type SanitizeOptions } from '../../lib/index.ts';
import { STAGES, selectRules } from '../../lib/pipeline.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { readJsonlMessages } from '../../lib/jsonl.ts';
import { sanitizeStream } from '../../lib/run.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const ROUTES: SanitizeOptions[] = [
  { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
  { provider: 'something-else', modelApi: 'unknown-api', modelId: 'foo' },
];

async function viaStream(messages: readonly unknown[], options: SanitizeOptions): Promise<{ out: Message[]; stats: HygieneStats | undefined }> {
  const out: Message[] = [];
  let stats: HygieneStats | undefined;
  // Object-mode streams cannot carry null; the array API drops it, so the stream is fed the rest.
  await pipeline(
    Readable.from(messages.filter((m) => m !== null), { objectMode: true }),
    createHygieneStream({ ...options, onStats: (s) => (stats = s) }),
    new Writable({
      objectMode: true,
      highWaterMark: 1,
      write(message: Message, _encoding, callback) {
        out.push(message);
        callback();
      },
    }),
  );
  return { out, stats };
}

async function fixtureTranscripts(): Promise<Array<[string, unknown[]]>> {
  const out: Array<[string, unknown[]]> = [];
  const sessions = path.join(root, 'fixtures/sessions');
  for (const name of (await readdir(sessions)).filter((n) => n.endsWith('.jsonl')).sort()) {
    const messages: unknown[] = [];
    for await (const batch of readJsonlMessages([await readFile(path.join(sessions, name))])) messages.push(...batch);
    out.push([name, messages]);
  }
  const oracle = path.join(root, 'fixtures/oracle');
  for (const name of (await readdir(oracle).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort()) {
    const lines = (await readFile(path.join(oracle, name), 'utf8')).split('\n').filter(Boolean);
    lines.forEach((line, i) => out.push([`${name}#${i}`, (JSON.parse(line) as { messages: unknown[] }).messages]));
  }
  return out;
}

describe('sanitizeSessionHistory and createHygieneStream run the same stages', async () => {
  const transcripts = await fixtureTranscripts();
  test('there are fixtures to compare', () => assert.ok(transcripts.length > 10, `${transcripts.length} transcripts`));
  for (const route of ROUTES) {
    // A fixed clock: synthetic results carry it as their timestamp.
    const options = { ...route, now: () => 1798761600000 };
    test(`every fixture, ${route.provider}/${route.modelApi}`, async () => {
      for (const [name, messages] of transcripts) {
        let arrayStats: HygieneStats | undefined;
        const fromArray = await outcome(() => sanitizeSessionHistory(structuredClone(messages.filter((m) => m !== null)), { ...options, onStats: (s) => (arrayStats = s) }));
        const fromStream = await outcome(() => viaStream(structuredClone(messages), options));
        if ('error' in fromArray || 'error' in fromStream) {
          // A documented refusal (invalid_replay_transcript) must come out of both forms alike.
          assert.deepEqual(fromStream, fromArray, name);
          continue;
        }
        assert.deepEqual(fromStream.value.out, fromArray.value, name);
        assert.deepEqual(fromStream.value.stats, arrayStats, `${name}: stats`);
      }
    });
  }
});

function isRecordLike(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSONL text in, JSONL text out: the path where untouched lines are copied and edited lines patched. */
async function viaText(messages: readonly unknown[], options: SanitizeOptions): Promise<string> {
  let text = '';
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  const lines = messages.map((m) => JSON.stringify(m) + '\n');
  await sanitizeStream({ input: Readable.from([lines.join('')]), output, options, format: 'jsonl' });
  return text;
}

describe('the JSONL path writes what stringifying the array result writes', async () => {
  const transcripts = await fixtureTranscripts();
  for (const route of ROUTES) {
    const options = { ...route, now: () => 1798761600000 };
    // Lines written by JSON.stringify: a copied line, or one patched in place (ids rewritten,
    // thinking blocks dropped), must be the same bytes as the stringified result.
    test(`every fixture, ${route.provider}/${route.modelApi}`, async () => {
      let compared = 0;
      for (const [name, messages] of transcripts) {
        // A JSONL line with a `type` and no role is a session entry to the reader (README) and a
        // role-less object to the array API: both leave it out. A `type: "message"` line is unwrapped.
        const objects = messages.filter((m) => isRecordLike(m) && m.type !== 'message');
        const fromArray = await outcome(() => sanitizeSessionHistory(structuredClone(objects), options));
        const fromText = await outcome(() => viaText(objects, options));
        if ('error' in fromArray || 'error' in fromText) {
          assert.deepEqual(fromText, fromArray, name);
          continue;
        }
        assert.equal(fromText.value, fromArray.value.map((m) => JSON.stringify(m) + '\n').join(''), name);
        compared++;
      }
      assert.ok(compared > 100, `${compared} transcripts compared`);
    });
  }
});

async function outcome<T>(run: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: String((error as Error).message) };
  }
}

describe('the stage list', () => {
  test('is data: every entry has a rule with a unique kebab-case name and a spec step', () => {
    const names = STAGES.map((entry) => entry.rule.meta.name);
    assert.equal(new Set(names).size, names.length);
    for (const entry of STAGES) {
      assert.match(entry.rule.meta.name, /^[a-z]+(-[a-z0-9]+)+$/);
      assert.ok(entry.rule.meta.summary.length > 10, entry.rule.meta.name);
      assert.ok(entry.step.length > 0);
    }
  });

  test('selectRules keeps the list order', () => {
    const options = resolveHygieneOptions(ROUTES[0]);
    const rules = selectRules(resolveTranscriptPolicy(options), options);
    const order = STAGES.map((entry) => entry.rule);
    const positions = rules.map((rule) => order.indexOf(rule));
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    assert.equal(rules[0]!.meta.name, 'drop-non-object-messages');
  });

  test('the input is never mutated', async () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: 'x' }], provenance: { kind: 'inter_session' } },
      { role: 'toolResult', toolCallId: 'a', content: '' },
    ];
    const before = structuredClone(messages);
    await sanitizeSessionHistory(messages, ROUTES[0]!);
    assert.deepEqual(messages, before);
  });

  test('non-object entries are dropped and counted on every route', async () => {
    for (const options of ROUTES) {
      let stats: HygieneStats | undefined;
      const out = await sanitizeSessionHistory([null, 1, 'x', [], { role: 'user', content: 'kept' }], { ...options, onStats: (s) => (stats = s) });
      assert.deepEqual(out, [{ role: 'user', content: 'kept' }]);
      assert.equal(stats!.rules['drop-non-object-messages']!.dropped, 4);
    }
  });
});
