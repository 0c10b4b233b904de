import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { readSessionMessages } from '../../lib/session/read.ts';
import { inputLineOf, rawLineOf } from '../../lib/jsonl.ts';
import type { Message } from '../../lib/types.ts';
import { referenceContext } from './helpers/reference.ts';
import { randomSession } from './helpers/random-session.ts';
import { HEADER, assistant, entry, plain, readFixtures, tempDir, user, writeSession } from './helpers/files.ts';

interface Expected {
  messages: unknown[];
  leafId?: string | null;
  thinkingLevel?: unknown;
  model?: unknown;
  malformedLines?: number[];
  modelSwitchedAt?: number;
  sessionName?: string;
}

describe('fixtures: the message list of each hand-written session (spec §5, §6, §7, §10)', async () => {
  const names = (await readdir(readFixtures)).filter((name) => name.endsWith('.messages.json')).map((name) => name.replace('.messages.json', ''));
  test('there are fixtures', () => assert.ok(names.length >= 10));
  for (const name of names) {
    for (const fullParse of [false, true]) {
      test(`${name}${fullParse ? ' (every line parsed)' : ''}`, async () => {
        const expected = JSON.parse(await readFile(path.join(readFixtures, `${name}.messages.json`), 'utf8')) as Expected;
        const session = await readSessionMessages(path.join(readFixtures, `${name}.jsonl`), { fullParse, provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' });
        assert.deepEqual(plain(await session.toArray()), expected.messages);
        if ('leafId' in expected) assert.equal(session.leafId, expected.leafId);
        if ('thinkingLevel' in expected) assert.equal(session.thinkingLevel, expected.thinkingLevel);
        if ('model' in expected) assert.deepEqual(session.model, expected.model);
        if (expected.malformedLines !== undefined) assert.deepEqual(session.stats.malformedLineNumbers, expected.malformedLines);
        if (expected.modelSwitchedAt !== undefined) assert.equal(session.modelSwitchedAt, expected.modelSwitchedAt);
        if (expected.sessionName !== undefined) assert.equal(session.sessionName, expected.sessionName);
        assert.equal(session.stats.messages, expected.messages.length);
      });
    }
  }
});

describe('equal to a whole-file transcription of the spec, on random sessions', () => {
  const check = async (seed: number, legacy: boolean, dir: string): Promise<void> => {
    const content = randomSession(seed, { legacy });
    const file = path.join(dir, `s${seed}.jsonl`);
    await writeFile(file, content);
    let expected: ReturnType<typeof referenceContext> | undefined;
    let expectedError: string | undefined;
    try {
      expected = referenceContext(content);
    } catch (error) {
      expectedError = (error as Error).message;
    }
    for (const fullParse of [false, true]) {
      let got: unknown[];
      let session;
      try {
        session = await readSessionMessages(file, { fullParse, chunkSize: 64 + (seed % 5) * 97 });
        got = await session.toArray();
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        if (expectedError !== undefined && message.includes(expectedError)) continue;
        if (code === 'input_empty' && expected !== undefined && expected.messages.length === 0) continue;
        throw new Error(`seed ${seed}: ${message}`);
      }
      assert.equal(expectedError, undefined, `seed ${seed}: the reference throws ${expectedError}`);
      assert.deepEqual(plain(got), plain(expected!.messages), `seed ${seed} fullParse ${fullParse}`);
      assert.deepEqual(plain(session.model), plain(expected!.model), `seed ${seed}`);
      assert.equal(session.thinkingLevel, expected!.thinkingLevel, `seed ${seed}`);
      if (!session.headerRecovered || !legacy) {
        if (expected!.leafId === null || !expected!.leafId.startsWith('v1-')) assert.equal(session.leafId, expected!.leafId, `seed ${seed}`);
      }
    }
  };
  for (const legacy of [false, true]) {
    test(legacy ? 'with old versions, missing headers, BOMs' : 'version 3', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => check(seed, legacy, dir)),
          { numRuns: 150, seed: legacy ? 42 : 7 },
        );
      } finally {
        await cleanup();
      }
    });
  }
});

describe('what comes with the messages', () => {
  test('the result-id index names each result by its input line, whether the path runs in file order or not', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const call = assistant('c', 2, {
        content: [
          { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {} },
          { type: 'toolCall', id: 'toolu_2', name: 'read', arguments: {} },
        ],
        stopReason: 'toolUse',
      });
      const result = (id: string): Record<string, unknown> => ({ role: 'toolResult', toolCallId: id, content: [], isError: false });
      const inOrder = [HEADER, entry('a', null, user('q')), entry('b', 'a', call), entry('c', 'b', result('toolu_1')), entry('r2', 'c', result('toolu_2')), entry('d', 'r2', user('next'))];
      // r2 is written before the entries it follows: the path goes back in the file (no merge with the file order).
      const outOfOrder = [HEADER, entry('r2', 'c', result('toolu_2')), entry('a', null, user('q')), entry('b', 'a', call), entry('c', 'b', result('toolu_1')), entry('d', 'r2', user('next'))];
      for (const [name, lines] of [['in file order', inOrder], ['out of file order', outOfOrder]] as const) {
        const session = await readSessionMessages(await writeSession(path.join(dir, `${name}.jsonl`), [...lines]));
        const messages = await session.toArray();
        assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'toolResult', 'toolResult', 'user'], name);
        for (const message of messages.filter((m) => m.role === 'toolResult')) {
          assert.equal(session.resultIndex.lastLineOf(message.toolCallId as string), inputLineOf(message), `${name}: ${String(message.toolCallId)}`);
        }
        assert.equal(session.resultIndex.lastLineOf('toolu_2'), 4, name);
      }
    } finally {
      await cleanup();
    }
  });

  test('tool-result ids read from the line prefix, ASCII or not, are in the result-id index as their strings hash', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const call = assistant('c', 2, { content: [{ type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {} }, { type: 'toolCall', id: 'toolu_é2', name: 'read', arguments: {} }], stopReason: 'toolUse' });
      const result = (id: string): Record<string, unknown> => ({ role: 'toolResult', toolCallId: id, content: [], isError: false });
      const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q')), entry('b', 'a', call), entry('c', 'b', result('toolu_1')), entry('d', 'c', result('toolu_é2'))]);
      const session = await readSessionMessages(file);
      await session.toArray();
      assert.equal(session.stats.prefixScanned, 4, 'every entry went through the prefix scan');
      assert.equal(session.resultIndex.lastLineOf('toolu_1'), 3);
      assert.equal(session.resultIndex.lastLineOf('toolu_é2'), 4);
    } finally {
      await cleanup();
    }
  });

  test('positions as input lines, the result-id index in the same terms, raw lines kept', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const call = assistant('c', 2, { content: [{ type: 'toolCall', id: 'toolu_1', name: 'read', arguments: {} }], stopReason: 'toolUse' });
      const file = await writeSession(path.join(dir, 's.jsonl'), [
        HEADER,
        entry('a', null, user('q')),
        entry('b', 'a', call),
        entry('abandoned', 'b', { role: 'toolResult', toolCallId: 'toolu_9', content: [] }),
        entry('c', 'b', { role: 'toolResult', toolCallId: 'toolu_1', content: [], isError: false }),
        { type: 'compaction', id: 'k', parentId: 'c', timestamp: '2026-07-23T10:00:05.000Z', summary: 'S', firstKeptEntryId: 'b', tokensBefore: 1 },
        entry('d', 'k', { role: 'toolResult', toolUseId: 'toolu_2', content: [] }),
      ]);
      const session = await readSessionMessages(file);
      const messages = await session.toArray();
      assert.deepEqual(messages.map((m) => m.role), ['compactionSummary', 'assistant', 'toolResult', 'toolResult']);
      assert.deepEqual(messages.map((m) => inputLineOf(m)), [undefined, 2, 3, 4]);
      assert.equal(session.resultIndex.lastLineOf('toolu_1'), 3);
      assert.equal(session.resultIndex.lastLineOf('toolu_2'), 4);
      assert.equal(session.resultIndex.lastLineOf('toolu_9'), 0, 'results off the path are not in the index');
      assert.equal(rawLineOf(messages[1]!), JSON.stringify(call), 'an untouched message keeps its original text');
      assert.equal(session.compactionTimestamp, Date.parse('2026-07-23T10:00:05.000Z'));
      assert.equal(session.stats.pathEntries, 5);
      assert.ok(session.stats.readMs > 0 && session.stats.indexMs > 0 && session.stats.prepareMs > 0);
    } finally {
      await cleanup();
    }
  });

  test('a message entry is read from its message text alone when the envelope allows, with the same message, raw line, input line and invalid bytes as the whole line', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const nested = { role: 'user', content: 'n', message: { role: 'assistant' }, timestamp: 4 };
      const lines = [
        JSON.stringify(HEADER),
        JSON.stringify(entry('a', null, user('q'))),
        // Not ASCII in the envelope: read whole.
        JSON.stringify(entry('é', 'a', user('r', 2))),
        // The message is not the last member: its text alone is not JSON, so the line is read whole (and has no raw line).
        `{"type":"message","id":"c","parentId":"é","timestamp":"2026-07-23T10:00:01.000Z","message":{"role":"user","content":"s","timestamp":3},"extra":{"k":1}}`,
        // A "message" key inside the message: the envelope's comes first.
        JSON.stringify(entry('d', 'c', nested)),
        // Space after the entry: read whole.
        JSON.stringify(entry('e', 'd', user('t', 5))) + '  ',
      ];
      const file = path.join(dir, 's.jsonl');
      // A byte that is not UTF-8 inside the last plain message's text, on line 7.
      const [before, after] = JSON.stringify(entry('f', 'e', user('uXv', 6))).split('X') as [string, string];
      await writeFile(file, Buffer.concat([Buffer.from(lines.join('\n') + '\n' + before), Buffer.from([0xff]), Buffer.from(after + '\n')]));
      const session = await readSessionMessages(file);
      const messages = await session.toArray();
      assert.deepEqual(plain(messages), [user('q'), user('r', 2), user('s', 3), nested, user('t', 5), user('u\ufffdv', 6)]);
      assert.deepEqual(messages.map((m) => inputLineOf(m)), [1, 2, 3, 4, 5, 6]);
      assert.equal(rawLineOf(messages[0]!), JSON.stringify(user('q')));
      assert.equal(rawLineOf(messages[1]!), JSON.stringify(user('r', 2)));
      assert.equal(rawLineOf(messages[2]!), undefined, 'a line read whole as an entry keeps no raw line');
      assert.equal(rawLineOf(messages[3]!), JSON.stringify(nested));
      assert.equal(rawLineOf(messages[5]!), JSON.stringify(user('u\ufffdv', 6)));
      assert.deepEqual(session.stats.invalidUtf8, { lines: 1, sequences: 1, lineNumbers: [7] });
      assert.equal(session.stats.messageTexts, 3, 'a, d and f from their message text; the others read whole');
    } finally {
      await cleanup();
    }
  });

  test('compactionSummary messages inside message entries count for the compaction time; none gives null', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const held = await writeSession(path.join(dir, 'held.jsonl'), [
        HEADER,
        entry('a', null, { role: 'compactionSummary', summary: 's', timestamp: 100 }),
        { type: 'message', message: { role: 'compactionSummary', summary: 's2', timestamp: '2026-07-23T10:00:05.000Z' }, id: 'b', parentId: 'a' },
        entry('c', 'b', user('q')),
      ]);
      assert.equal((await readSessionMessages(held)).compactionTimestamp, Date.parse('2026-07-23T10:00:05.000Z'));
      const none = await writeSession(path.join(dir, 'none.jsonl'), [HEADER, entry('a', null, user('q'))]);
      const session = await readSessionMessages(none, { modelSwitchedAt: 5 });
      assert.equal(session.compactionTimestamp, null);
      assert.deepEqual(
        (({ compactionTimestamp, modelSwitchedAt }) => ({ compactionTimestamp, modelSwitchedAt }))(session.hygieneOptions()),
        { compactionTimestamp: null, modelSwitchedAt: 5 },
      );
      assert.equal(session.hygieneOptions({ compactionTimestamp: 7 }).compactionTimestamp, 7, "the caller's value wins");
      assert.equal(session.hygieneOptions({}).resultIndex, session.resultIndex);
    } finally {
      await cleanup();
    }
  });

  test('async iteration, and the messages can be read once', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q')), entry('b', 'a', user('r'))]);
      const session = await readSessionMessages(file);
      const seen: Message[] = [];
      for await (const message of session) seen.push(message);
      assert.equal(seen.length, 2);
      await assert.rejects(session.toArray(), /can be read once/);
    } finally {
      await cleanup();
    }
  });
});

describe('errors', () => {
  test('a line on the active path that is not JSON after all: an error naming the file line', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      // Corrupted in the middle, after its child was written: the prefix is intact, the rest is not.
      const broken = JSON.stringify(entry('b', 'a', user('middle'))).replace('"content"', '"content" oops');
      const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q')), broken, entry('c', 'b', user('c'))]);
      const session = await readSessionMessages(file);
      await assert.rejects(session.toArray(), (error: { code: string; line: number; message: string }) => {
        assert.equal(error.code, 'malformed_line');
        assert.equal(error.line, 3);
        assert.match(error.message, /s\.jsonl:3: not valid JSON .*on the active path/);
        return true;
      });
      // Parsing every line in the index pass finds it there, as the reference's loader does.
      const full = await readSessionMessages(file, { fullParse: true });
      assert.deepEqual(plain(await full.toArray()), [user('c')]);
    } finally {
      await cleanup();
    }
  });

  test('bad timestamps: the compaction summary before any message, a branch summary when reached', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const compaction = await writeSession(path.join(dir, 'c.jsonl'), [HEADER, entry('a', null, user('q')), { type: 'compaction', id: 'k', parentId: 'a', timestamp: 5, summary: 'S', firstKeptEntryId: 'a', tokensBefore: 1 }]);
      await assert.rejects(readSessionMessages(compaction), { code: 'invalid_session', message: /c\.jsonl:3: compaction summary timestamp must be a valid timestamp/ });
      const branch = await writeSession(path.join(dir, 'b.jsonl'), [HEADER, entry('a', null, user('q')), { type: 'branch_summary', id: 'k', parentId: 'a', timestamp: 'soon', fromId: 'a', summary: 'S' }]);
      const session = await readSessionMessages(branch);
      await assert.rejects(session.toArray(), { code: 'invalid_session', line: 3 });
    } finally {
      await cleanup();
    }
  });

  test('a file replaced between the two passes is refused', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q'))]);
      const session = await readSessionMessages(file);
      await writeSession(path.join(dir, 'other.jsonl'), [HEADER, entry('a', null, user('q'))]);
      await rename(path.join(dir, 'other.jsonl'), file);
      await assert.rejects(session.toArray(), { code: 'input_unreadable', message: /replaced or shortened/ });
      const grown = await readSessionMessages(file);
      await appendFile(file, JSON.stringify(entry('b', 'a', user('appended meanwhile'))) + '\n');
      assert.equal((await grown.toArray()).length, 1, 'appends after the index pass are not read');
    } finally {
      await cleanup();
    }
  });
});
