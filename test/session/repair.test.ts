import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, chmod, copyFile, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { repairSessionFileIfNeeded, type RepairReport, type RepairStep } from '../../lib/session/repair.ts';
import { readSessionMessages } from '../../lib/session/read.ts';
import { HEADER, assistant, entry, repairFixtures, tempDir, user, writeSession } from './helpers/files.ts';

const run = promisify(execFile);
const child = path.join(path.dirname(new URL(import.meta.url).pathname), 'helpers/repair-child.ts');
const NOW = 1798761600000;
const zeroUuids = (text: string): string => text.replace(/repair-[0-9a-f-]{36}/g, 'repair-00000000-0000-0000-0000-000000000000');

async function copyFixture(dir: string, name: string, mode = 0o640): Promise<string> {
  const file = path.join(dir, `${name}.jsonl`);
  await copyFile(path.join(repairFixtures, `${name}.jsonl`), file);
  await chmod(file, mode);
  return file;
}

describe('the spec examples (§11)', () => {
  test('11.1: a crash-torn file with CRLF, a blank line, a Bedrock error turn, blank and null-role users', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await copyFixture(dir, 'crash-torn');
      const logs: string[] = [];
      const report = await repairSessionFileIfNeeded(file, { debug: (m) => logs.push(m), warn: (m) => logs.push('warn ' + m) });
      assert.deepEqual(report, {
        repaired: true,
        droppedLines: 2,
        rewrittenAssistantMessages: 1,
        droppedBlankUserMessages: 0,
        rewrittenUserMessages: 2,
        removedCorruptedImageBlocks: 0,
        insertedToolResults: 0,
      });
      assert.deepEqual(logs, ['session file repaired: dropped 2 malformed line(s), rewrote 1 assistant message(s), rewrote 2 user message(s) (crash-torn.jsonl)']);
      assert.equal(await readFile(file, 'utf8'), await readFile(path.join(repairFixtures, 'crash-torn.repaired.jsonl'), 'utf8'));
      assert.equal((await stat(file)).mode & 0o777, 0o640);
      assert.deepEqual(await readdir(dir), ['crash-torn.jsonl'], 'no backup, temporary file or lock left');
      // Again: nothing to do, nothing written.
      const before = await stat(file);
      assert.deepEqual(await repairSessionFileIfNeeded(file), { repaired: false, droppedLines: 0 });
      assert.equal((await stat(file)).mtimeMs, before.mtimeMs);
      // The active path: seven messages, the fallback text in a1000002.
      const messages = await (await readSessionMessages(file)).toArray();
      assert.equal(messages.length, 7);
      assert.deepEqual(messages[1]!.content, [{ type: 'text', text: '[assistant turn failed before producing content]' }]);
    } finally {
      await cleanup();
    }
  });

  test('11.2: images, a synthetic tool result, records that are kept', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await copyFixture(dir, 'images-tool-results');
      const report = await repairSessionFileIfNeeded(file, { now: () => NOW });
      assert.deepEqual(report, {
        repaired: true,
        droppedLines: 2,
        rewrittenAssistantMessages: 0,
        droppedBlankUserMessages: 0,
        rewrittenUserMessages: 1,
        removedCorruptedImageBlocks: 2,
        insertedToolResults: 1,
      });
      assert.equal(zeroUuids(await readFile(file, 'utf8')), await readFile(path.join(repairFixtures, 'images-tool-results.repaired.jsonl'), 'utf8'));
      // The synthetic result is a sibling: not on the active path.
      const roles = (await (await readSessionMessages(file)).toArray()).map((m) => m.role);
      assert.deepEqual(roles, ['user', 'assistant', 'assistant', 'toolResult', 'user']);
    } finally {
      await cleanup();
    }
  });

  test('11.4: header problems', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const cases: Array<[string, RepairReport, boolean]> = [
        ['no-header', { repaired: false, droppedLines: 0, reason: 'invalid session header' }, false],
        ['garbage-header', { repaired: true, droppedLines: 1, rewrittenAssistantMessages: 0, droppedBlankUserMessages: 0, rewrittenUserMessages: 0, removedCorruptedImageBlocks: 0, insertedToolResults: 0 }, true],
        ['only-garbage', { repaired: false, droppedLines: 2, reason: 'empty session file' }, false],
        ['bom-header', { repaired: false, droppedLines: 1, reason: 'invalid session header' }, false],
        ['header-only', { repaired: false, droppedLines: 0 }, false],
      ];
      for (const [name, expected, changed] of cases) {
        const file = await copyFixture(dir, name);
        const original = await readFile(file);
        const warnings: string[] = [];
        assert.deepEqual(await repairSessionFileIfNeeded(file, { warn: (m) => warnings.push(m) }), expected, name);
        if (changed) assert.equal(await readFile(file, 'utf8'), await readFile(path.join(repairFixtures, `${name}.repaired.jsonl`), 'utf8'));
        else assert.deepEqual(await readFile(file), original, `${name} is not written`);
        if (expected.reason === 'invalid session header') assert.deepEqual(warnings, [`session file repair skipped: invalid session header (${name}.jsonl)`]);
      }
      // The BOM file still loads (the loader trims): the reader agrees.
      assert.equal((await (await readSessionMessages(path.join(dir, 'bom-header.jsonl'))).toArray()).length, 1);
    } finally {
      await cleanup();
    }
  });
});

describe('inputs', () => {
  test('missing, blank path, directory, unreadable', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      assert.deepEqual(await repairSessionFileIfNeeded(path.join(dir, 'nope.jsonl')), { repaired: false, droppedLines: 0, reason: 'missing session file' });
      assert.deepEqual(await repairSessionFileIfNeeded('   '), { repaired: false, droppedLines: 0, reason: 'missing session file' });
      assert.deepEqual(await repairSessionFileIfNeeded({ sessionFile: path.join(dir, 'gone', 'x.jsonl') }), { repaired: false, droppedLines: 0, reason: 'missing session file' });
      await mkdir(path.join(dir, 'folder.jsonl'));
      const warnings: string[] = [];
      const folder = await repairSessionFileIfNeeded({ sessionFile: path.join(dir, 'folder.jsonl'), warn: (m) => warnings.push(m) });
      assert.equal(folder.repaired, false);
      assert.match(folder.reason!, /^failed to read session file: EISDIR/);
      assert.match(warnings[0]!, /^session file repair skipped: failed to read session file: EISDIR.*\(folder\.jsonl\)$/);
      await writeFile(path.join(dir, 'empty.jsonl'), '');
      assert.deepEqual(await repairSessionFileIfNeeded(path.join(dir, 'empty.jsonl')), { repaired: false, droppedLines: 0, reason: 'empty session file' });
    } finally {
      await cleanup();
    }
  });

  test('a symbolic link: the file it names is repaired, the link stays', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const real = await copyFixture(dir, 'crash-torn');
      await mkdir(path.join(dir, 'links'));
      const link = path.join(dir, 'links', 'session.jsonl');
      await symlink(real, link);
      assert.equal((await repairSessionFileIfNeeded(link)).repaired, true);
      assert.equal((await lstat(link)).isSymbolicLink(), true);
      assert.equal(await readFile(real, 'utf8'), await readFile(path.join(repairFixtures, 'crash-torn.repaired.jsonl'), 'utf8'));
      assert.deepEqual((await readdir(dir)).sort(), ['crash-torn.jsonl', 'links']);
      assert.deepEqual(await readdir(path.join(dir, 'links')), ['session.jsonl']);
    } finally {
      await cleanup();
    }
  });

  test('a clean file is not rewritten (same inode, same mtime)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q')), entry('b', 'a', assistant('r'))], { eol: '\r\n' });
      const before = await stat(file);
      assert.deepEqual(await repairSessionFileIfNeeded(file), { repaired: false, droppedLines: 0 });
      const after = await stat(file);
      assert.equal(after.ino, before.ino);
      assert.equal(after.mtimeMs, before.mtimeMs);
    } finally {
      await cleanup();
    }
  });
});

describe('missing tool results (§9.3 step 4)', () => {
  const codex = (id: string, calls: Array<{ id: string; name?: string }>, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    assistant('', 2, { content: calls.map((call) => ({ type: 'toolCall', arguments: {}, ...call })), api: 'openai-chatgpt-responses', provider: 'openai', model: 'gpt-5-codex', stopReason: 'toolUse', ...extra });
  const responses = (calls: Array<{ id: string; name?: string }>): Record<string, unknown> => assistant('', 2, { content: calls.map((call) => ({ type: 'toolCall', arguments: {}, ...call })), api: 'openai-responses', provider: 'openai', model: 'gpt-5' });
  const mirror = assistant('delivered', 3, { provider: 'openclaw', model: 'delivery-mirror', api: 'openai-responses' });

  async function repaired(lines: unknown[]): Promise<{ report: RepairReport; entries: Array<Record<string, unknown>> }> {
    const { dir, cleanup } = await tempDir();
    try {
      const file = await writeSession(path.join(dir, 's.jsonl'), lines);
      const report = await repairSessionFileIfNeeded(file, { now: () => NOW, chunkSize: 97 });
      const entries = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      return { report, entries };
    } finally {
      await cleanup();
    }
  }
  const ids = (entries: Array<Record<string, unknown>>): unknown[] => entries.map((e) => (String(e.id).startsWith('repair-') ? `synthetic:${(e.message as Record<string, unknown>).toolCallId}` : e.id));

  test('code mode: each unanswered call once (Errata 5), results anywhere in the file count', async () => {
    const { report, entries } = await repaired([
      HEADER,
      entry('r0', null, { role: 'toolResult', toolCallId: ' late ', content: [] }),
      entry('a1', 'r0', codex('a1', [{ id: 'c1', name: 'exec' }, { id: 'late' }, { id: 'c2' }])),
      entry('a2', 'a1', codex('a2', [{ id: 'c1' }])),
      entry('a3', 'a2', codex('a3', [{ id: 'c9' }], { stopReason: 'aborted' })),
    ]);
    assert.equal(report.insertedToolResults, 2);
    assert.deepEqual(ids(entries), [HEADER.id, 'r0', 'a1', 'synthetic:c1', 'synthetic:c2', 'a2', 'a3']);
    const synthetic = entries[3]!;
    assert.equal(synthetic.parentId, 'a1');
    assert.deepEqual(synthetic.message, { role: 'toolResult', toolCallId: 'c1', toolName: 'exec', content: [{ type: 'text', text: 'aborted' }], details: { openclawSyntheticMissingToolResult: true }, isError: true, timestamp: NOW });
    assert.equal((entries[4]!.message as Record<string, unknown>).toolName, 'unknown');
  });

  test('delivery mirror: only `message` calls, only when the next message entry is a mirror', async () => {
    const { report, entries } = await repaired([
      HEADER,
      entry('a1', null, responses([{ id: 'm1', name: 'Message' }, { id: 'x1', name: 'exec' }])),
      { type: 'custom', customType: 'between', id: 'k', parentId: 'a1' },
      entry('d1', 'k', mirror),
      entry('a2', 'd1', responses([{ id: 'm2', name: 'message' }])),
      entry('u', 'a2', user('not a mirror')),
      entry('d2', 'u', mirror),
    ]);
    assert.equal(report.insertedToolResults, 1);
    assert.deepEqual(ids(entries), [HEADER.id, 'a1', 'synthetic:m1', 'k', 'd1', 'a2', 'u', 'd2']);
  });

  test('a call that code mode answers later in the file gets no mirror result', async () => {
    const { report, entries } = await repaired([
      HEADER,
      entry('a1', null, responses([{ id: 'same', name: 'message' }])),
      entry('d1', 'a1', mirror),
      entry('c1', 'd1', codex('c1', [{ id: 'same' }])),
    ]);
    assert.equal(report.insertedToolResults, 1);
    assert.deepEqual(ids(entries), [HEADER.id, 'a1', 'd1', 'c1', 'synthetic:same']);
  });

  test('nothing missing: nothing written', async () => {
    const { report } = await repaired([HEADER, entry('a1', null, codex('a1', [{ id: 'c1' }])), entry('r', 'a1', { role: 'toolResult', toolCallId: 'c1', content: [] })]);
    assert.deepEqual(report, { repaired: false, droppedLines: 0 });
  });
});

describe('the write sequence', () => {
  async function brokenSession(dir: string): Promise<{ file: string; original: Buffer }> {
    const file = await writeSession(path.join(dir, 's.jsonl'), [HEADER, entry('a', null, user('q')), entry('b', 'a', user('  ')), '{"torn":'], { final: false });
    await chmod(file, 0o640);
    return { file, original: await readFile(file) };
  }
  const expectedText = (): string =>
    [HEADER, entry('a', null, user('q')), entry('b', 'a', { ...user('  '), content: '(continue)' })].map((e) => JSON.stringify(e)).join('\n') + '\n';

  test('the backup holds the original bytes until the rename; the temporary file is complete before it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file, original } = await brokenSession(dir);
      const seen: string[] = [];
      await repairSessionFileIfNeeded(file, {
        async onStep(step, info) {
          const names = (await readdir(dir)).map((n) => (n === path.basename(info.backupPath) ? 'BACKUP' : n === path.basename(info.tempPath) ? 'TEMP' : n));
          seen.push(`${step}: ${names.sort().join(' ')}`);
          if (step === 'backup-written') {
            assert.deepEqual(await readFile(info.backupPath), original);
            assert.equal((await stat(info.backupPath)).mode & 0o777, 0o640);
          }
          if (step === 'temp-written') assert.equal(await readFile(info.tempPath, 'utf8'), expectedText());
          assert.match(path.basename(info.tempPath), /^s\.jsonl\.repair\.\d+\.[0-9a-f-]{36}\.tmp$/);
          assert.match(info.backupPath, /s\.jsonl\.bak-\d+-\d+$/);
        },
      });
      assert.deepEqual(seen, [
        'before-backup: s.jsonl s.jsonl.lock',
        'backup-written: BACKUP s.jsonl s.jsonl.lock',
        'temp-written: BACKUP TEMP s.jsonl s.jsonl.lock',
        'before-rename: BACKUP TEMP s.jsonl s.jsonl.lock',
        'renamed: BACKUP s.jsonl s.jsonl.lock',
        'backup-removed: s.jsonl s.jsonl.lock',
      ]);
      assert.equal(await readFile(file, 'utf8'), expectedText());
    } finally {
      await cleanup();
    }
  });

  test('the replace fails: the original is untouched and nothing is left behind', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file, original } = await brokenSession(dir);
      const report = await repairSessionFileIfNeeded(file, {
        onStep: async (step, info) => {
          if (step === 'before-rename') await rm(info.tempPath);
        },
      });
      assert.equal(report.repaired, false);
      assert.match(report.reason!, /^repair failed: ENOENT/);
      assert.equal(report.droppedLines, 1);
      assert.equal(report.rewrittenUserMessages, 1);
      assert.equal('insertedToolResults' in report, false);
      assert.deepEqual(await readFile(file), original);
      assert.deepEqual(await readdir(dir), ['s.jsonl']);
    } finally {
      await cleanup();
    }
  });

  test('the backup cannot be written: nothing changes', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file, original } = await brokenSession(dir);
      const report = await repairSessionFileIfNeeded(file, { onStep: async (step, info) => void (step === 'before-backup' && (await mkdir(info.backupPath))) });
      assert.match(report.reason!, /^repair failed: EEXIST/);
      assert.deepEqual(await readFile(file), original);
    } finally {
      await cleanup();
    }
  });

  test('the backup cannot be removed: the repair stands and the report says where the backup is', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file } = await brokenSession(dir);
      const logs: string[] = [];
      const report = await repairSessionFileIfNeeded(file, {
        debug: (m) => logs.push(m),
        onStep: async (step, info) => {
          if (step !== 'renamed') return;
          await rm(info.backupPath);
          await mkdir(path.join(info.backupPath, 'blocker'), { recursive: true });
        },
      });
      assert.equal(report.repaired, true);
      assert.match(report.backupPath!, /s\.jsonl\.bak-\d+-\d+$/);
      assert.match(logs[0]!, /^session file repair backup cleanup failed: .* \(s\.jsonl\.bak-\d+-\d+\)$/);
      assert.equal(await readFile(file, 'utf8'), expectedText());
    } finally {
      await cleanup();
    }
  });

  test('a file that changes during the repair is left alone (an unlocked appender keeps its append)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file, original } = await brokenSession(dir);
      const append = '\n' + JSON.stringify(entry('c', 'b', user('appended'))) + '\n';
      const report = await repairSessionFileIfNeeded(file, { onStep: async (step) => void (step === 'temp-written' && (await appendFile(file, append))) });
      assert.equal(report.reason, 'repair failed: the session file changed while it was being repaired');
      assert.equal(await readFile(file, 'utf8'), original.toString() + append);
      assert.deepEqual(await readdir(dir), ['s.jsonl']);
    } finally {
      await cleanup();
    }
  });

  test('killed at every step: the original or the whole repaired file is there, and the backup while needed', async () => {
    const steps: RepairStep[] = ['before-backup', 'backup-written', 'temp-written', 'before-rename', 'renamed'];
    for (const step of steps) {
      const { dir, cleanup } = await tempDir();
      try {
        const { file, original } = await brokenSession(dir);
        const killed = spawnSync(process.execPath, ['--import', 'tsx', child, file, '--kill-at', step], { encoding: 'utf8' });
        assert.equal(killed.signal, 'SIGKILL', `${step}: ${killed.stderr}`);
        const names = await readdir(dir);
        const backup = names.find((n) => n.startsWith('s.jsonl.bak-'));
        const temp = names.find((n) => n.includes('.repair.'));
        const content = await readFile(file);
        if (step === 'renamed') {
          assert.equal(content.toString(), expectedText(), step);
        } else {
          assert.deepEqual(content, original, `${step}: the original is whole`);
        }
        if (step === 'before-backup') assert.equal(backup, undefined);
        else {
          assert.ok(backup !== undefined, `${step}: the backup is there`);
          assert.deepEqual(await readFile(path.join(dir, backup!)), original);
        }
        if (step === 'temp-written' || step === 'before-rename') assert.equal(await readFile(path.join(dir, temp!), 'utf8'), expectedText());
        assert.ok(names.includes('s.jsonl.lock'), 'the dead process left its lock');
        // The next repair takes over the dead process's lock, clears its temporary file, and finishes.
        const again = JSON.parse((await run(process.execPath, ['--import', 'tsx', child, file, '--lock-timeout', '5000'])).stdout) as RepairReport;
        assert.equal(again.repaired, step !== 'renamed', step);
        assert.equal(await readFile(file, 'utf8'), expectedText(), step);
        const left = (await readdir(dir)).filter((n) => n !== 's.jsonl' && !n.startsWith('s.jsonl.bak-'));
        assert.deepEqual(left, [], `${step}: no temporary file or lock left`);
      } finally {
        await cleanup();
      }
    }
  });

  test('two processes repairing the same file at once: one repairs, the other waits and finds nothing to do', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const lines: unknown[] = [HEADER];
      for (let i = 0; i < 3000; i++) lines.push(entry(`e${i}`, i === 0 ? null : `e${i - 1}`, i % 50 === 0 ? user('   ') : user('x'.repeat(500))));
      lines.push('{"torn":');
      const file = await writeSession(path.join(dir, 's.jsonl'), lines, { final: false });
      const [first, second] = await Promise.all([
        run(process.execPath, ['--import', 'tsx', child, file, '--delay-at', 'temp-written', '--delay', '400']),
        new Promise((resolve) => setTimeout(resolve, 150)).then(() => run(process.execPath, ['--import', 'tsx', child, file, '--delay-at', 'temp-written', '--delay', '400'])),
      ]);
      const reports = [first, second].map((r) => JSON.parse(r.stdout) as RepairReport);
      assert.equal(reports.filter((r) => r.repaired).length, 1, JSON.stringify(reports));
      assert.deepEqual(reports.find((r) => !r.repaired), { repaired: false, droppedLines: 0 });
      const repairedLines = (await readFile(file, 'utf8')).trim().split('\n');
      assert.equal(repairedLines.length, 3001);
      assert.deepEqual(await readdir(dir), ['s.jsonl']);
    } finally {
      await cleanup();
    }
  });

  test('a lock held by a live process: the repair waits, then gives up; lock: false does not ask', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const { file, original } = await brokenSession(dir);
      await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: Date.now(), maxHoldMs: 1000 }));
      await assert.rejects(repairSessionFileIfNeeded(file, { lock: { acquireTimeoutMs: 50 } }), { code: 'lock_timeout' });
      assert.deepEqual(await readFile(file), original);
      assert.equal((await repairSessionFileIfNeeded(file, { lock: false })).repaired, true);
      // Temporary files of dead repairs are cleared when the lock is held.
      await rm(`${file}.lock`);
      const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
      await writeFile(path.join(dir, `s.jsonl.repair.${dead}.0000.tmp`), 'partial');
      await writeFile(path.join(dir, `s.jsonl.repair.${process.pid}.1111.tmp`), 'ours');
      await repairSessionFileIfNeeded(file);
      assert.deepEqual((await readdir(dir)).sort(), ['s.jsonl', `s.jsonl.repair.${process.pid}.1111.tmp`]);
    } finally {
      await cleanup();
    }
  });

  test('the same result with tiny read chunks as with large ones', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const one = await copyFixture(dir, 'crash-torn');
      await repairSessionFileIfNeeded(one, { chunkSize: 17 });
      assert.equal(await readFile(one, 'utf8'), await readFile(path.join(repairFixtures, 'crash-torn.repaired.jsonl'), 'utf8'));
    } finally {
      await cleanup();
    }
  });
});
