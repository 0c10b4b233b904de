import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text as streamText } from 'node:stream/consumers';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HygieneError } from '../../lib/errors.ts';
import { jsonlToJsonArray } from '../../lib/export/json-array.ts';
import { Manifest, MANIFEST_NAME, writeFileAtomic, type ManifestEntry } from '../../lib/export/manifest.ts';
import { ExportProgress } from '../../lib/export/progress.ts';
import { discoverSessions, readPathList } from '../../lib/export/discover.ts';
import { planRoutes } from '../../lib/export/routes.ts';
import { exportFile, failureOf, type ExportTask } from '../../lib/export/export-file.ts';
import { outputRelOf } from '../../lib/export/export.ts';
import { exitCodeOf, formatDuration, formatSummary, type ExportEvent, type ExportReport } from '../../lib/export/report.ts';
import { ANTHROPIC, sanitizeOne } from './corpus.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-export-parts-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('jsonlToJsonArray', () => {
  const convert = async (chunks: Array<string | Buffer>): Promise<string> => streamText(Readable.from(chunks).pipe(jsonlToJsonArray()));

  test('wraps lines in an array, whatever the chunking (including a split multibyte character)', async () => {
    const lines = [{ a: 1 }, { b: 'é€😀' }, { c: [1, 2] }].map((value) => JSON.stringify(value) + '\n').join('');
    const bytes = Buffer.from(lines);
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      assert.deepEqual(JSON.parse(await convert(chunks)), [{ a: 1 }, { b: 'é€😀' }, { c: [1, 2] }], `chunks of ${size}`);
    }
    assert.equal(await convert([]), '[]\n');
    assert.equal(await convert(['', '{"x":1}\n']), '[\n{"x":1}\n]\n');
  });
});

describe('Manifest', () => {
  const entry = (n: number): ManifestEntry => ({ source: `/s/${n}.jsonl`, size: n, mtimeMs: 1000 + n, optionsHash: 'h', outputBytes: n * 2, finishedAt: '2026-01-01T00:00:00.000Z' });

  test('records entries, writes them atomically, reads them back', async () => {
    const target = path.join(dir, 'manifest-a');
    await mkdir(target);
    const { manifest, warning } = await Manifest.open(target, { intervalMs: 0 });
    assert.equal(warning, undefined);
    for (let i = 0; i < 50; i++) manifest.set(`k${i}`, entry(i));
    manifest.delete('k3');
    assert.equal(manifest.delete('nope'), false);
    await manifest.flush();
    const reopened = (await Manifest.open(target)).manifest;
    assert.equal(reopened.size, 49);
    assert.deepEqual(reopened.get('k7'), entry(7));
    assert.deepEqual(reopened.matches('k7', { source: '/s/7.jsonl', size: 7, mtimeMs: 1007, optionsHash: 'h' }), entry(7));
    assert.equal(reopened.matches('k7', { source: '/s/7.jsonl', size: 7, mtimeMs: 1008, optionsHash: 'h' }), undefined);
    assert.equal(reopened.matches('k3', { source: '/s/3.jsonl', size: 3, mtimeMs: 1003, optionsHash: 'h' }), undefined);
    assert.deepEqual((await readdir(target)).sort(), [MANIFEST_NAME], 'no temporary file left');
  });

  test('spaces its writes: many changes in a burst make few writes', async () => {
    const target = path.join(dir, 'manifest-b');
    await mkdir(target);
    const { manifest } = await Manifest.open(target, { intervalMs: 10_000 });
    manifest.set('first', entry(1));
    // The first write starts at once; on a loaded machine it may take a while to land.
    let afterFirst: { entries: object } | undefined;
    for (let waited = 0; afterFirst === undefined && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      afterFirst = await readFile(path.join(target, MANIFEST_NAME), 'utf8').then((text) => JSON.parse(text) as { entries: object }, () => undefined);
    }
    assert.ok(afterFirst !== undefined, 'the first change was written');
    assert.deepEqual(Object.keys(afterFirst.entries), ['first'], 'the first change is written at once');
    for (let i = 0; i < 100; i++) manifest.set(`k${i}`, entry(i));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const spaced = JSON.parse(await readFile(path.join(target, MANIFEST_NAME), 'utf8')) as { entries: object };
    assert.equal(Object.keys(spaced.entries).length, 1, 'the burst waits for the interval');
    await manifest.flush();
    const flushed = JSON.parse(await readFile(path.join(target, MANIFEST_NAME), 'utf8')) as { entries: object };
    assert.equal(Object.keys(flushed.entries).length, 101, 'flush writes the rest now');
  });

  test('an unreadable or foreign manifest counts as empty, with a warning; a failed write is reported', async () => {
    const target = path.join(dir, 'manifest-c');
    await mkdir(target);
    await writeFile(path.join(target, MANIFEST_NAME), '{"version": 1, "entries": {');
    assert.match((await Manifest.open(target)).warning!, /not a manifest this version can read/);
    await writeFile(path.join(target, MANIFEST_NAME), '{"version": 2, "entries": {}}');
    assert.match((await Manifest.open(target)).warning!, /unknown manifest version 2/);
    await rm(path.join(target, MANIFEST_NAME));
    await mkdir(path.join(target, MANIFEST_NAME));
    const opened = await Manifest.open(target, { intervalMs: 0 });
    assert.match(opened.warning!, /cannot read the manifest/);
    opened.manifest.set('a', entry(1));
    await assert.rejects(opened.manifest.flush());
    assert.deepEqual((await readdir(target)).sort(), [MANIFEST_NAME], 'the temporary file of the failed write is gone');
  });

  test('writeFileAtomic replaces the file whole', async () => {
    const file = path.join(dir, 'atomic.json');
    await writeFileAtomic(file, 'one');
    await writeFileAtomic(file, 'two');
    assert.equal(await readFile(file, 'utf8'), 'two');
  });
});

describe('ExportProgress', () => {
  const start: ExportEvent = { type: 'start', sessions: 4, routes: 1, outputs: 4, toDo: 3, bytesToDo: 3_000_000, skipped: 1, failedEarly: 0, jobs: 2 };
  type OutputEvent = Extract<ExportEvent, { type: 'output' }>;
  const ok = (file: string, bytes: number): OutputEvent => ({ type: 'output', status: 'exported', file, bytesIn: bytes, bytesOut: bytes, ms: 1500, repaired: false });
  const failed: ExportEvent = {
    type: 'output',
    status: 'failed',
    file: 'b.jsonl',
    bytesIn: 1_000_000,
    bytesOut: 0,
    ms: 3,
    repaired: false,
    failure: { file: 'b.jsonl', line: 4, code: 'malformed_line', reason: 'not valid JSON' },
  };

  test('plain: one line per output', () => {
    let out = '';
    const progress = new ExportProgress({ stream: { write: (text: string) => (out += text) } });
    progress.handle(start);
    progress.handle(ok('a.jsonl', 1_000_000));
    progress.handle(failed);
    progress.handle({ ...ok('c.jsonl', 1_000_000), route: 'gemini', repaired: true });
    assert.equal(
      out,
      'export: 4 sessions: 3 to export (3.0 MB), 1 already current, 2 jobs\n' +
        'export: [1/3] ok a.jsonl (1.0 MB, 1.5 s)\n' +
        'export: [2/3] FAILED b.jsonl:4: not valid JSON\n' +
        'export: [3/3] ok c.jsonl [gemini] (1.0 MB, 1.5 s, repaired)\n',
    );
  });

  test('terminal: a status line redrawn in place, failures above it, cleared at the end', () => {
    let out = '';
    let now = 0;
    const progress = new ExportProgress({ stream: { write: (text: string) => (out += text), isTTY: true, columns: 200 }, now: () => now });
    progress.handle(start);
    now = 2000;
    progress.handle(ok('a.jsonl', 1_000_000));
    assert.match(progress.status(), /^export 1\/3 {2}1\.0 MB\/3\.0 MB {2}0\.5 MB\/s {2}ETA 4\.0 s {2}2\.0 s$/);
    now = 2010;
    progress.handle(failed);
    assert.ok(out.includes('\r\x1b[2KFAILED b.jsonl:4: not valid JSON\n'));
    assert.match(progress.status(), /^export 2\/3 \(1 failed\)/);
    now = 4000;
    progress.handle(ok('c.jsonl', 1_000_000));
    assert.match(progress.status(), /done/);
    progress.handle({ type: 'end', report: {} as ExportReport });
    assert.ok(out.endsWith('\r\x1b[2K'), 'the status line is cleared');
    progress.stop();
  });

  test('quiet: nothing', () => {
    let out = '';
    const progress = new ExportProgress({ stream: { write: (text: string) => (out += text), isTTY: true }, quiet: true });
    progress.handle(start);
    progress.handle(failed);
    assert.equal(out, '');
  });
});

describe('discoverSessions', () => {
  test('reads path lists (lines or NUL-separated, blank entries skipped)', async () => {
    assert.deepEqual(await readPathList(['a.jsonl\r\n\nb c.jsonl\n']), ['a.jsonl', 'b c.jsonl']);
    assert.deepEqual(await readPathList([Buffer.from('a\nb.jsonl\0c.jsonl\0')]), ['a\nb.jsonl', 'c.jsonl']);
  });

  test('does not follow symbolic links to directories; follows a link named like a session', async () => {
    const top = path.join(dir, 'links');
    await mkdir(path.join(top, 'real'), { recursive: true });
    await writeFile(path.join(top, 'real/s.jsonl'), '{"role":"user","content":"x"}\n');
    await symlink(path.join(top, 'real'), path.join(top, 'loop'));
    await symlink(path.join(top, 'real/s.jsonl'), path.join(top, 'alias.jsonl'));
    const found = await discoverSessions([top]);
    assert.equal(found.root, top);
    assert.deepEqual(found.sources.map((source) => [source.rel, source.problem]), [
      ['alias.jsonl', undefined],
      [path.join('real', 's.jsonl'), undefined],
    ]);
    const twice = await discoverSessions([path.join(top, 'real'), path.join(top, 'real/s.jsonl')]);
    assert.equal(twice.sources.length, 1, 'a session found twice is exported once');
  });
});

describe('routes and names', () => {
  test('default names are safe directory names; a bad name is refused', () => {
    const [route] = planRoutes([{ provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }], 'jsonl');
    assert.equal(route!.name, 'amazon-bedrock-anthropic.claude-sonnet-4-5-20250929-v1_0');
    assert.throws(() => planRoutes([{ ...ANTHROPIC, name: '../up' }], 'jsonl'), /"name" must be/);
    assert.throws(() => planRoutes([null as unknown as typeof ANTHROPIC], 'jsonl'), /expected an object/);
    assert.throws(() => planRoutes([{ ...ANTHROPIC, imageMaxBytes: -1 }], 'jsonl'), HygieneError);
    const [jsonl] = planRoutes([ANTHROPIC], 'jsonl');
    const [json] = planRoutes([ANTHROPIC], 'json');
    const [budget] = planRoutes([{ ...ANTHROPIC, memoryBudgetBytes: 1 << 20, concurrency: 1 }], 'jsonl');
    assert.notEqual(jsonl!.hash, json!.hash, 'the format is part of the options hash');
    assert.equal(budget!.hash, jsonl!.hash, 'what does not change the output is not');
  });

  test('output names', () => {
    assert.equal(outputRelOf(path.join('a', 'b.jsonl'), 'jsonl'), path.join('a', 'b.jsonl'));
    assert.equal(outputRelOf('b.jsonl', 'json'), 'b.json');
    assert.equal(outputRelOf('b.json', 'jsonl'), 'b.jsonl');
    assert.equal(outputRelOf('session', 'jsonl'), 'session.jsonl');
  });
});

describe('exportFile (what a worker runs), in process', () => {
  const task = (overrides: Partial<ExportTask>): ExportTask => ({
    id: 1,
    source: path.join(dir, 'one.jsonl'),
    output: path.join(dir, 'file-out/one.jsonl'),
    temp: path.join(dir, 'file-out/.one.jsonl.th-tmp-1-1'),
    repairCopy: path.join(dir, 'file-out/.one.jsonl.th-tmp-1-1.repair.jsonl'),
    format: 'jsonl',
    options: { ...ANTHROPIC },
    clockMs: 1_700_000_000_000,
    repair: false,
    ...overrides,
  });

  test('writes the output through a temporary file, equal to sanitize', async () => {
    await writeFile(path.join(dir, 'one.jsonl'), JSON.stringify({ role: 'user', content: 'hello' }) + '\n');
    const result = await exportFile(task({}));
    assert.ok(result.ok);
    const expected = (await sanitizeOne(path.join(dir, 'one.jsonl'), ANTHROPIC)) as { text: string };
    assert.equal(await readFile(path.join(dir, 'file-out/one.jsonl'), 'utf8'), expected.text);
    assert.equal(result.bytesOut, Buffer.byteLength(expected.text));
    assert.deepEqual(await readdir(path.join(dir, 'file-out')), ['one.jsonl']);
  });

  test('bad input, a missing session and an output that cannot be written become failures', async () => {
    await writeFile(path.join(dir, 'bad.jsonl'), '{"role":"user","content":"a"}\n[1]\n');
    const bad = await exportFile(task({ source: path.join(dir, 'bad.jsonl') }));
    assert.deepEqual(bad.ok ? null : bad.failure, { code: 'malformed_line', line: 2, reason: 'expected a JSON object, got an array' });
    const missing = await exportFile(task({ source: path.join(dir, 'nope.jsonl') }));
    assert.equal(missing.ok ? null : missing.failure.code, 'input_not_found');
    const blocked = await exportFile(task({ output: path.join(dir, 'one.jsonl', 'x.jsonl'), temp: path.join(dir, 'one.jsonl', '.x.th-tmp') }));
    assert.equal(blocked.ok ? null : blocked.failure.code, 'output_failed');
  });

  test('failureOf maps errors to codes', () => {
    const errno = (code: string): Error => Object.assign(new Error(`${code}: boom`), { code });
    assert.equal(failureOf(errno('EACCES'), []).code, 'input_unreadable');
    assert.equal(failureOf(errno('EISDIR'), []).code, 'input_is_directory');
    // The system error's code travels too: the queue retries the transient ones (queue/job.ts isTransient).
    assert.deepEqual(failureOf(errno('EIO'), []), { code: 'input_unreadable', reason: 'EIO: boom', errno: 'EIO' });
    assert.deepEqual(failureOf(new TypeError('bug'), []), { code: 'internal_error', reason: 'bug' });
    assert.deepEqual(failureOf(new HygieneError('input_empty', '/x/s.jsonl: empty file'), ['/x/s.jsonl']), { code: 'input_empty', reason: 'empty file' });
  });
});

describe('report', () => {
  const report = (failures: number, extra: Partial<ExportReport> = {}): ExportReport =>
    ({
      durationMs: 83_000,
      routes: [{ name: 'r' }],
      interrupted: false,
      totals: { sessions: 10, outputs: 10, exported: 10 - failures, skipped: 0, failed: failures, repaired: 0, bytesIn: 5e9, bytesOut: 1, messagesIn: 1, messagesOut: 1, mbPerSecond: 60.2 },
      failures: Array.from({ length: failures }, (_, i) => ({ file: `f${i}.jsonl`, line: i + 1, code: 'malformed_line', reason: 'bad' })),
      skippedLines: { lines: 0, sessions: 0, bySession: [] },
      warnings: [],
      ...extra,
    }) as unknown as ExportReport;

  test('the summary lists failures up to a limit; exit codes', () => {
    const text = formatSummary(report(25, { warnings: ['w'] }), 'out/export-report.json', 3);
    assert.match(text, /^export: 10 sessions: -15 exported, 0 already current, 25 failed; 5\.00 GB in 1:23 \(60\.2 MB\/s\)\n/);
    assert.match(text, / {2}FAILED f0\.jsonl:1: bad\n {2}FAILED f1\.jsonl:2: bad\n {2}FAILED f2\.jsonl:3: bad\n {2}\.\.\. and 22 more\n {2}warning: w\nexport: report in out\/export-report\.json\n$/);
    assert.equal(exitCodeOf(report(0)), 0);
    assert.equal(exitCodeOf(report(1)), 2);
    assert.equal(exitCodeOf(report(0, { interrupted: true })), 130);
    assert.match(formatSummary(report(0, { interrupted: true }), 'r'), /INTERRUPTED/);
    assert.equal(formatDuration(3_725_000), '1:02:05');
    assert.equal(formatDuration(42_000), '42 s');
  });
});
