import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildSessionIndex, type SessionIndex } from '../../lib/session/index-pass.ts';
import { activePath } from '../../lib/session/active-path.ts';
import { F_DEAD, F_MENTIONS_IMAGE, F_MENTIONS_SUMMARY, T_MESSAGE } from '../../lib/session/entry-types.ts';
import { ROLE_ASSISTANT, ROLE_TOOL_RESULT } from '../../lib/session/prefix-scan.ts';
import { HEADER, assistant, entry, tempDir, user, writeSession } from './helpers/files.ts';

async function indexOf(lines: unknown[], options: { eol?: string; final?: boolean; fullParse?: boolean; raw?: string; findImages?: boolean } = {}): Promise<SessionIndex> {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 's.jsonl');
    if (options.raw !== undefined) await writeFile(file, options.raw);
    else await writeSession(file, lines, options);
    return await buildSessionIndex(file, { fullParse: options.fullParse, findImages: options.findImages });
  } finally {
    await cleanup();
  }
}

const leafOf = (index: SessionIndex): string | null => (index.leafName < 0 ? null : index.ids.idOf(index.leafName));
const pathIds = (index: SessionIndex): string[] => [...activePath(index)].map((e) => index.ids.idOf(nameOfEntry(index, e)));
function nameOfEntry(index: SessionIndex, entryNumber: number): number {
  for (let name = 0; name < index.ids.size; name++) if (index.ids.entryOf.get(name) === entryNumber) return name;
  throw new Error('no name');
}

describe('prefix scan and speculation', () => {
  test('message lines in the writers shape are not parsed; other lines are', async () => {
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r')), { type: 'custom', customType: 'x', id: 'c', parentId: 'b' }]);
    assert.equal(index.scanned, 2);
    assert.equal(index.parsed, 2);
    assert.equal(index.verified, 0);
    assert.equal(leafOf(index), 'c');
    assert.equal(index.role.get(1), ROLE_ASSISTANT);
  });

  test('a torn last line is checked, found not JSON and taken back: the leaf is the line before', async () => {
    const torn = JSON.stringify(entry('c', 'b', user('torn'))).slice(0, -12);
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r')), torn], { final: false });
    assert.equal(leafOf(index), 'b');
    assert.deepEqual(index.malformedLines, [4]);
    assert.equal(index.verified, 1);
    assert.equal(index.restarts, 0);
    assert.equal(index.flags.get(2) & F_DEAD, F_DEAD);
    assert.equal(index.records, 3);
  });

  test('a torn line in the middle, then the writer appends under the last whole entry: undone without a restart', async () => {
    const torn = JSON.stringify(entry('t', 'b', user('torn'))).slice(0, 60);
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r')), torn, entry('c', 'b', user('again'))]);
    assert.deepEqual(pathIds(index), ['a', 'b', 'c']);
    assert.deepEqual(index.malformedLines, [4]);
    assert.equal(index.restarts, 0);
  });

  test('after a side entry a torn line must not hide the re-parenting of the next append (§5 1.1)', async () => {
    const side = { type: 'custom_message', customType: 'n', content: 'side', display: false, id: 's', parentId: 'b', timestamp: 't', appendMode: 'side' };
    const torn = JSON.stringify(entry('t', 's', user('torn'))).slice(0, 70);
    // The writer's next append names the side entry (its last parseable entry): logically under b.
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r')), side, torn, entry('c', 's', user('next'))]);
    assert.deepEqual(pathIds(index), ['a', 'b', 'c']);
    assert.equal(index.malformedCount, 1);
  });

  test('a leaf record naming a speculative line that is not JSON restarts the pass in full-parse mode', async () => {
    const torn = JSON.stringify(entry('t', 'a', user('torn'))).slice(0, 70);
    const index = await indexOf([HEADER, entry('a', null, user('q')), torn, entry('c', 't', user('child of torn')), { type: 'leaf', id: 'L', parentId: 'c', timestamp: 'x', targetId: 't' }]);
    assert.equal(index.restarts, 1);
    assert.equal(index.scanned, 0, 'the second pass parsed every line');
    // The leaf record names an unknown id: invalid, the leaf stays on c, whose parent is missing.
    assert.equal(leafOf(index), 'c');
    assert.deepEqual(pathIds(index), ['c']);
  });

  test('a duplicate id read by the prefix is parsed at once: a torn duplicate does not win', async () => {
    const torn = JSON.stringify(entry('b', 'a', user('torn duplicate'))).slice(0, 70);
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', user('first')), torn, entry('c', 'b', user('c'))]);
    assert.deepEqual(pathIds(index), ['a', 'b', 'c']);
    assert.equal(index.malformedCount, 1);
  });

  test('lines holding "appendMode" are parsed whole', async () => {
    const index = await indexOf([HEADER, entry('a', null, user('q')), entry('b', 'a', user('side'), { appendMode: 'side' })]);
    assert.equal(index.scanned, 1);
    assert.equal(leafOf(index), 'a');
  });

  test('full-parse mode gives the same index', async () => {
    const lines = [HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r')), entry('c', 'a', user('branch'))];
    const quick = await indexOf(lines);
    const full = await indexOf(lines, { fullParse: true });
    assert.equal(full.scanned, 0);
    assert.deepEqual(pathIds(full), pathIds(quick));
    assert.deepEqual(pathIds(quick), ['a', 'c']);
  });
});

describe('facts kept for later', () => {
  test('lines that hold "image" are flagged for the census, unless no census is taken', async () => {
    const lines = [HEADER, entry('a', null, user('q')), entry('b', 'a', { role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })];
    for (const fullParse of [false, true]) {
      const flagged = (index: SessionIndex): boolean[] => [0, 1].map((entry) => (index.flags.get(entry) & F_MENTIONS_IMAGE) !== 0);
      assert.deepEqual(flagged(await indexOf(lines, { fullParse })), [false, true]);
      assert.deepEqual(flagged(await indexOf(lines, { fullParse, findImages: false })), [false, false]);
    }
  });

  test('tool result ids, compaction summaries in messages, settings side tables', async () => {
    const index = await indexOf([
      HEADER,
      { type: 'model_change', id: 'm', parentId: null, timestamp: 't', provider: 'openai', modelId: 'gpt-5' },
      { type: 'thinking_level_change', id: 'k', parentId: 'm', timestamp: 't', thinkingLevel: 'high' },
      entry('r', 'k', { role: 'toolResult', toolCallId: 'toolu_1', content: [] }),
      entry('r2', 'r', { role: 'toolResult', content: [], toolUseId: 'toolu_2' }),
      entry('s', 'r2', { role: 'compactionSummary', summary: 's', timestamp: 5 }),
      { type: 'message', message: { role: 'compactionSummary', summary: 'x', timestamp: 9 }, id: 'p', parentId: 's' },
      { type: 'compaction', id: 'c', parentId: 'p', timestamp: '2026-07-23T10:00:05.000Z', summary: 'S', firstKeptEntryId: 'r', tokensBefore: 3 },
      { type: 'custom', customType: 'model-snapshot', data: { timestamp: 7, provider: 'a' }, id: 'snap', parentId: 'c' },
      { type: 'session_info', id: 'i', parentId: 'snap', name: '  Name  ' },
    ]);
    assert.equal(index.resultEntry.length, 2);
    assert.equal(index.role.get(2), ROLE_TOOL_RESULT);
    assert.equal(index.type.get(4), T_MESSAGE);
    assert.equal(index.flags.get(4) & F_MENTIONS_SUMMARY, F_MENTIONS_SUMMARY);
    assert.equal(index.summaryTimestamps.get(5), 9, 'a message line parsed whole records its summary timestamp');
    assert.deepEqual(index.modelChanges.get(0), { provider: 'openai', modelId: 'gpt-5' });
    assert.equal(index.thinkingLevels.get(1), 'high');
    assert.equal(index.compactions.get(6)!.firstKeptName, index.ids.lookup('r'));
    assert.deepEqual(index.snapshots.get(7), { provider: 'a', modelApi: undefined, modelId: undefined, timestamp: 7 });
    assert.equal(index.sessionName, 'Name');
  });
});

describe('header and file', () => {
  test('a BOM and blank lines before the header are trimmed as the loader trims', async () => {
    const index = await indexOf([], { raw: '\uFEFF\n  \n' + JSON.stringify(HEADER) + '\n' + JSON.stringify(entry('a', null, user('q'))) + '\n' });
    assert.equal(index.headerRecovered, false);
    assert.equal(index.header?.id, HEADER.id);
    assert.equal(leafOf(index), 'a');
  });

  test('garbage before the header: the header is still the first parsed line', async () => {
    const index = await indexOf(['garbage{{', HEADER, entry('a', null, user('q'))]);
    assert.equal(index.headerRecovered, false);
    assert.deepEqual(index.malformedLines, [1]);
  });

  test('no header: recovered, entries read as version 3; a later session record is dropped', async () => {
    const index = await indexOf([entry('a', null, user('q')), { type: 'session', id: 'late', version: 3 }, entry('b', 'a', user('r'))]);
    assert.equal(index.headerRecovered, true);
    assert.equal(index.header?.id, 'late');
    assert.deepEqual(pathIds(index), ['a', 'b']);
  });

  test('no header and an old recovered header: the pass runs again with its migrations', async () => {
    const index = await indexOf([{ type: 'message', message: user('one') }, { type: 'session', id: 'old' }, { type: 'message', message: user('two') }]);
    assert.equal(index.restarts, 1);
    assert.equal(index.migrateV1, true);
    assert.equal(activePath(index).length, 2);
  });

  test('a first line that is null is a missing header (Errata 6)', async () => {
    const index = await indexOf(['null', entry('a', null, user('q'))]);
    assert.equal(index.headerRecovered, true);
    assert.equal(leafOf(index), 'a');
  });

  test('a last line that only fails for trailing non-JSON whitespace is kept (the loader trims the content)', async () => {
    const last = JSON.stringify(entry('b', 'a', user('r'))) + '\u00a0';
    for (const fullParse of [false, true]) {
      const index = await indexOf([HEADER, entry('a', null, user('q')), last], { final: false, fullParse });
      assert.equal(leafOf(index), 'b');
      assert.equal(index.malformedCount, 0);
    }
    const middle = await indexOf([HEADER, entry('a', null, user('q')), last, entry('c', 'a', user('c'))], { fullParse: true });
    assert.equal(middle.malformedCount, 1, 'in the middle it is malformed');
  });

  test('missing, directory, empty and all-garbage inputs are errors with their own codes', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await assert.rejects(buildSessionIndex(path.join(dir, 'nope.jsonl')), { code: 'input_not_found', message: /nope\.jsonl: no such file/ });
      await mkdir(path.join(dir, 'sub.jsonl'));
      await assert.rejects(buildSessionIndex(path.join(dir, 'sub.jsonl')), { code: 'input_is_directory' });
      await writeFile(path.join(dir, 'empty.jsonl'), '');
      await assert.rejects(buildSessionIndex(path.join(dir, 'empty.jsonl')), { code: 'input_empty' });
      await writeFile(path.join(dir, 'garbage.jsonl'), 'x{\n\n  \n');
      await assert.rejects(buildSessionIndex(path.join(dir, 'garbage.jsonl')), { code: 'input_empty', message: /no session entries/ });
      await assert.rejects(buildSessionIndex(path.join(dir, 'sub.jsonl', 'x')), { code: 'input_not_found' });
    } finally {
      await cleanup();
    }
  });
});
