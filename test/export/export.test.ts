import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, truncate, appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { exportSessions, repairSessionFileIfNeeded, type ExportReport } from '../../lib/index.ts';
import { generateSession } from '../../bench/generate.ts';
import { LOCK_NAME, MANIFEST_NAME } from '../../lib/export/manifest.ts';
import { REPORT_HTML_NAME, REPORT_NAME } from '../../lib/export/report.ts';
import { ANTHROPIC, GEMINI, RESPONSES, buildCorpus, sanitizeOne, type Corpus, type Expected } from './corpus.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const killChild = path.join(root, 'test/export/kill-child.ts');
const ROUTE_FLAGS = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];
const BOOKKEEPING = new Set([REPORT_NAME, REPORT_HTML_NAME, MANIFEST_NAME, LOCK_NAME]);

let work: string;
let corpus: Corpus;
/** sanitize's answer for every regular file of the corpus, on the Anthropic route. */
const expected = new Map<string, Expected>();
/** The output tree of one uninterrupted export of the corpus. */
let oneRun: Map<string, string>;
let oneRunReport: ExportReport;

/** Every file under dir (relative path -> content), bookkeeping left out. */
async function readTree(dir: string): Promise<Map<string, string>> {
  const tree = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    const rel = path.relative(dir, full);
    if (BOOKKEEPING.has(rel)) continue;
    tree.set(rel, await readFile(full, 'utf8'));
  }
  return tree;
}

async function temporaries(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((name) => path.basename(String(name)).includes('.th-tmp-')).map(String);
}

const relOf = (file: string): string => path.relative(corpus.dir, file);

/** The bad files of the corpus: what sanitize itself refuses, plus what cannot be read at all. */
function expectedBad(): string[] {
  const refused = [...expected].filter(([, answer]) => !answer.ok).map(([rel]) => rel);
  return [...refused, ...corpus.unreadable].sort();
}

function assertTreeMatchesSanitize(tree: Map<string, string>): void {
  for (const [rel, answer] of expected) {
    if (answer.ok) assert.equal(tree.get(rel), answer.text, `${rel}: the export's output differs from sanitize's`);
    else assert.equal(tree.has(rel), false, `${rel}: a failed session has no output`);
  }
  assert.equal(tree.size, [...expected.values()].filter((answer) => answer.ok).length, 'no other output');
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'th-export-'));
  corpus = await buildCorpus(path.join(work, 'sessions'));
  for (const rel of corpus.all) {
    if (corpus.unreadable.includes(rel)) continue;
    expected.set(rel, await sanitizeOne(path.join(corpus.dir, rel), ANTHROPIC));
  }
});

after(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('exportSessions over a directory of 200 sessions', () => {
  test('every output equals single-file sanitize; the report lists exactly the bad files', async () => {
    assert.equal(corpus.all.length, 200);
    const out = path.join(work, 'one-run');
    const events: string[] = [];
    const report = await exportSessions({ inputs: [corpus.dir], outDir: out, routes: [ANTHROPIC], jobs: 2, onProgress: (event) => events.push(event.type) });
    oneRunReport = report;
    oneRun = await readTree(out);
    assertTreeMatchesSanitize(oneRun);

    // The corrupt ones and the unreadable ones, nothing else (the empty ones are whatever sanitize says).
    const bad = expectedBad();
    for (const { rel } of corpus.corrupt) assert.ok(bad.includes(rel), `${rel} is corrupt`);
    for (const rel of corpus.good) assert.ok(!bad.includes(rel), `${rel} is good`);
    assert.deepEqual(report.failures.map((failure) => relOf(failure.file)), bad);
    for (const { rel, line } of corpus.corrupt) {
      const failure = report.failures.find((entry) => relOf(entry.file) === rel)!;
      const answer = expected.get(rel) as { code: string; line: number };
      assert.equal(failure.line, line, `${rel}: the line of the failure`);
      assert.equal(failure.code, answer.code);
      assert.ok(failure.reason.length > 0 && !failure.reason.includes(corpus.dir), `${rel}: a reason without the path: ${failure.reason}`);
    }
    const dangling = report.failures.find((entry) => relOf(entry.file) === 'broken/dangling.jsonl')!;
    assert.match(dangling.reason, /dangling symbolic link/);
    const folder = report.failures.find((entry) => relOf(entry.file) === 'broken/folder.jsonl')!;
    assert.equal(folder.code, 'input_is_directory');
    assert.equal(oneRun.has('broken/folder.jsonl/inside.jsonl'), false, 'a directory named like a session is not walked');

    assert.equal(report.totals.sessions, 200);
    assert.equal(report.totals.outputs, 200);
    assert.equal(report.totals.exported, 200 - bad.length);
    assert.equal(report.totals.failed, bad.length);
    assert.equal(report.totals.skipped, 0);
    assert.ok(report.totals.messagesIn > 0 && report.totals.bytesIn > 9_000_000);
    assert.ok(report.resources.peakRssBytes > 0);
    assert.deepEqual(JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')), report);
    assert.deepEqual(await temporaries(out), []);
    assert.equal(events[0], 'start');
    assert.equal(events.at(-1), 'end');
    assert.equal(events.filter((type) => type === 'output').length, 200);
    await assert.rejects(stat(path.join(out, LOCK_NAME)), { code: 'ENOENT' });
  });

  test('a second run skips every output that is done and current and rewrites nothing', async () => {
    const out = path.join(work, 'one-run');
    const before = new Map<string, number>();
    for (const rel of oneRun.keys()) before.set(rel, (await stat(path.join(out, rel))).mtimeMs);
    const report = await exportSessions({ inputs: [corpus.dir], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(report.totals.exported, 0);
    assert.equal(report.totals.skipped, oneRunReport.totals.exported);
    assert.deepEqual(report.failures, oneRunReport.failures, 'the bad files are tried again and fail the same way');
    for (const [rel, mtime] of before) assert.equal((await stat(path.join(out, rel))).mtimeMs, mtime, `${rel} was rewritten`);
  });

  test('killed with SIGKILL half-way, then resumed: the same tree as one run', async () => {
    const out = path.join(work, 'killed');
    const child = await new Promise<{ signal: NodeJS.Signals | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', killChild, corpus.dir, out, '80', '2'], { cwd: root }, (_error, stdout) => resolve({ signal: _error ? ((_error as { signal?: NodeJS.Signals }).signal ?? null) : null, stdout }));
    });
    assert.equal(child.signal, 'SIGKILL', `the child was killed (${child.stdout})`);
    // The manifest is whole (written atomically) and records part of the work.
    const manifest = JSON.parse(await readFile(path.join(out, MANIFEST_NAME), 'utf8')) as { entries: Record<string, unknown> };
    const recorded = Object.keys(manifest.entries).length;
    assert.ok(recorded > 0 && recorded < oneRunReport.totals.exported, `recorded ${recorded}`);
    await stat(path.join(out, LOCK_NAME)); // left behind by the dead process

    const report = await exportSessions({ inputs: [corpus.dir], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    // Every recorded output was renamed into place before it was recorded: all of them are skipped.
    assert.equal(report.totals.skipped, recorded);
    assert.equal(report.totals.skipped + report.totals.exported, oneRunReport.totals.exported);
    assert.deepEqual(report.failures, oneRunReport.failures);
    assert.deepEqual(await readTree(out), oneRun);
    assert.deepEqual(await temporaries(out), []);
  });

  test('the command killed half-way and run again: the same tree as one run, exit 2 for the bad files', async () => {
    const out = path.join(work, 'killed-cli');
    const args = [bin, 'export', '--out', out, '--jobs', '2', ...ROUTE_FLAGS, corpus.dir];
    const killed = await new Promise<{ signal: NodeJS.Signals | null; lines: number }>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      let lines = 0;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        lines += text.split('\n').filter((line) => line.startsWith('export: [')).length;
        if (lines >= 100) child.kill('SIGKILL');
      });
      child.on('exit', (_code, signal) => resolve({ signal, lines }));
    });
    assert.equal(killed.signal, 'SIGKILL', `killed after ${killed.lines} lines`);
    // The command works in a child process (lib/process-settings.js), which notices its command's
    // death through a pipe and goes too: the pid in the lock file stops existing.
    const holder = Number((await readFile(path.join(out, LOCK_NAME), 'utf8')).split(' ')[0]);
    let alive = true;
    for (let waited = 0; alive && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      try {
        process.kill(holder, 0);
      } catch {
        alive = false;
      }
    }
    assert.equal(alive, false, `the working process ${holder} outlived its command`);
    const resumed = await promisify(execFile)(process.execPath, args, { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /already current/);
    assert.deepEqual(await readTree(out), oneRun);
    assert.deepEqual(await temporaries(out), []);
  });

  test('SIGINT stops the command cleanly: exit 130, no partial file, an interrupted report; the next run completes it', async () => {
    const out = path.join(work, 'sigint');
    const args = [bin, 'export', '--out', out, '--jobs', '1', ...ROUTE_FLAGS, corpus.dir];
    const stopped = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      let sent = false;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        stderr += text;
        if (!sent && stderr.split('\n').filter((line) => line.startsWith('export: [')).length >= 20) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(stopped.stderr, /SIGINT: stopping/);
    assert.match(stopped.stderr, /INTERRUPTED \(run again to resume\)/);
    const report = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
    assert.equal(report.interrupted, true);
    assert.deepEqual(await temporaries(out), []);
    await assert.rejects(stat(path.join(out, LOCK_NAME)), { code: 'ENOENT' });
    const resumed = await exportSessions({ inputs: [corpus.dir], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(resumed.totals.skipped, report.totals.exported);
    assert.deepEqual(await readTree(out), oneRun);
  });

  test('an aborted signal stops the export cleanly and the next run completes it', async () => {
    const out = path.join(work, 'aborted');
    const controller = new AbortController();
    let seen = 0;
    const report = await exportSessions({
      inputs: [corpus.dir],
      outDir: out,
      routes: [ANTHROPIC],
      jobs: 2,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === 'output' && ++seen === 30) controller.abort();
      },
    });
    assert.equal(report.interrupted, true);
    assert.ok(report.totals.exported + report.totals.failed < 200);
    assert.deepEqual(await temporaries(out), []);
    const resumed = await exportSessions({ inputs: [corpus.dir], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(resumed.interrupted, false);
    assert.equal(resumed.totals.skipped, report.totals.exported);
    assert.deepEqual(await readTree(out), oneRun);
  });
});

describe('exportSessions: routes, formats, inputs', () => {
  test('several routes: one tree per route, each equal to sanitize for its route', async () => {
    const out = path.join(work, 'routes');
    const input = path.join(corpus.dir, 'agent-2');
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC, { ...GEMINI, name: 'gemini' }, RESPONSES], jobs: 2 });
    assert.deepEqual(report.routes.map((route) => route.name), ['anthropic-claude-sonnet-4-5', 'gemini', 'openai-gpt-5']);
    const tree = await readTree(out);
    const sessions = corpus.good.filter((rel) => rel.startsWith('agent-2/'));
    assert.equal(report.totals.sessions, sessions.length);
    assert.equal(tree.size, sessions.length * 3);
    for (const [name, route] of [['anthropic-claude-sonnet-4-5', ANTHROPIC], ['gemini', GEMINI], ['openai-gpt-5', RESPONSES]] as const) {
      for (const rel of sessions) {
        const answer = await sanitizeOne(path.join(corpus.dir, rel), route);
        const output = tree.get(path.join(name, path.relative('agent-2', rel)));
        if (answer.ok) assert.equal(output, answer.text, `${name}/${rel}`);
        else assert.ok(report.failures.some((failure) => failure.route === name && failure.file.endsWith(rel)), `${name}/${rel} failed as sanitize does`);
      }
    }
    // The route hashes differ, and one route's manifest entries do not make another's current.
    assert.equal(new Set(report.routes.map((route) => route.optionsHash)).size, 3);
  });

  test('--format json writes one array per session, equal to the JSONL lines', async () => {
    const out = path.join(work, 'json');
    const input = path.join(corpus.dir, 'agent-3');
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], format: 'json', jobs: 1 });
    assert.equal(report.failures.length, 0);
    const tree = await readTree(out);
    const sessions = corpus.good.filter((rel) => rel.startsWith('agent-3/'));
    assert.equal(tree.size, sessions.length);
    for (const rel of sessions) {
      const text = tree.get(path.relative('agent-3', rel).replace(/\.jsonl$/, '.json'))!;
      const answer = expected.get(rel) as { text: string };
      const lines = answer.text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown);
      assert.deepEqual(JSON.parse(text), lines, rel);
    }
    const empty = await exportSessions({ inputs: [path.join(corpus.dir, 'broken/empty.jsonl')], outDir: path.join(work, 'json-empty'), routes: [ANTHROPIC], format: 'json', jobs: 1 });
    if (empty.failures.length === 0) assert.deepEqual(JSON.parse(await readFile(path.join(work, 'json-empty/empty.json'), 'utf8')), []);
  });

  test("paths on stdin ('-'), newline- or NUL-separated, mirrored below their deepest common directory", async () => {
    const picked = ['agent-0/s004.jsonl', 'agent-1/archive/s009.jsonl', 'agent-2/s002.jsonl'];
    for (const [separator, out] of [['\n', 'stdin-lines'], ['\0', 'stdin-nul']] as const) {
      const list = picked.map((rel) => path.join(corpus.dir, rel)).join(separator) + separator;
      const report = await exportSessions({ inputs: ['-'], stdin: Readable.from([list]), outDir: path.join(work, out), routes: [ANTHROPIC], jobs: 1 });
      assert.equal(report.totals.sessions, 3);
      const tree = await readTree(path.join(work, out));
      assert.deepEqual([...tree.keys()].sort(), picked);
      for (const rel of picked) assert.equal(tree.get(rel), (expected.get(rel) as { text: string }).text);
    }
    // Files given by name, from one directory: mirrored below it.
    const single = await exportSessions({ inputs: [path.join(corpus.dir, 'agent-0/s004.jsonl'), path.join(corpus.dir, 'agent-0/s008.jsonl')], outDir: path.join(work, 'files'), routes: [ANTHROPIC], jobs: 1 });
    assert.equal(single.totals.exported, 2);
    assert.deepEqual([...(await readTree(path.join(work, 'files'))).keys()].sort(), ['s004.jsonl', 's008.jsonl']);
  });

  test('a missing input is a failure, not a stop; colliding outputs fail the second session', async () => {
    const dir = path.join(work, 'collide');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'a.jsonl'), JSON.stringify({ role: 'user', content: 'one' }) + '\n');
    await writeFile(path.join(dir, 'a.json'), JSON.stringify([{ role: 'user', content: 'two' }]));
    const report = await exportSessions({ inputs: [path.join(dir, 'a.jsonl'), path.join(dir, 'a.json'), path.join(dir, 'missing.jsonl')], outDir: path.join(work, 'collide-out'), routes: [ANTHROPIC], jobs: 1 });
    assert.equal(report.totals.exported, 1);
    assert.deepEqual(
      report.failures.map((failure) => [path.basename(failure.file), failure.code]),
      [
        ['a.json', 'output_failed'],
        ['missing.jsonl', 'input_not_found'],
      ],
    );
    assert.match(report.failures[0]!.reason, /already the output of/);
  });

  test('the output directory inside the input directory is not exported again', async () => {
    const input = path.join(work, 'nested-in');
    await cp(path.join(corpus.dir, 'agent-3'), input, { recursive: true });
    const out = path.join(input, 'exported');
    const first = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    const second = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(second.totals.sessions, first.totals.sessions);
    assert.equal(second.totals.skipped, first.totals.exported);
  });
});

describe('exportSessions: resuming verifies what it skips', () => {
  let input: string;
  let out: string;
  before(async () => {
    input = path.join(work, 'resume-in');
    out = path.join(work, 'resume-out');
    await cp(path.join(corpus.dir, 'agent-1'), input, { recursive: true });
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(report.failures.length, 0);
  });

  test('a changed session, a missing output and a truncated output are redone; the rest is skipped', async () => {
    const first = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    const total = first.totals.skipped;
    await appendFile(path.join(input, 's005.jsonl'), JSON.stringify({ role: 'user', content: 'one more turn' }) + '\n');
    await rm(path.join(out, 's013.jsonl'));
    await truncate(path.join(out, 's017.jsonl'), 10);
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 2 });
    assert.equal(report.totals.exported, 3);
    assert.equal(report.totals.skipped, total - 3);
    for (const rel of ['s005.jsonl', 's013.jsonl', 's017.jsonl']) {
      assert.equal(await readFile(path.join(out, rel), 'utf8'), ((await sanitizeOne(path.join(input, rel), ANTHROPIC)) as { text: string }).text, rel);
    }
  });

  test('other options (a route flag, the format) make an output not current; --force redoes all', async () => {
    const thinking = await exportSessions({ inputs: [input], outDir: out, routes: [{ ...ANTHROPIC, thinking: true }], jobs: 2 });
    assert.equal(thinking.totals.skipped, 0);
    const again = await exportSessions({ inputs: [input], outDir: out, routes: [{ ...ANTHROPIC, thinking: true }], jobs: 2 });
    assert.equal(again.totals.exported, 0);
    const forced = await exportSessions({ inputs: [input], outDir: out, routes: [{ ...ANTHROPIC, thinking: true }], jobs: 2, force: true });
    assert.equal(forced.totals.exported, again.totals.skipped);
    assert.equal(forced.totals.skipped, 0);
  });

  test('a session that turned bad loses its old output; stale temporary files are removed', async () => {
    await writeFile(path.join(input, 's001.jsonl'), '{"role":"user","content":"fine"}\nnot json\n');
    const stray = path.join(out, `.s017.jsonl.th-tmp-99999-3`);
    await writeFile(stray, 'partial');
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [{ ...ANTHROPIC, thinking: true }], jobs: 2 });
    assert.deepEqual(report.failures.map((failure) => [path.basename(failure.file), failure.line, failure.code]), [['s001.jsonl', 2, 'malformed_line']]);
    await assert.rejects(stat(path.join(out, 's001.jsonl')), { code: 'ENOENT' });
    await assert.rejects(stat(stray), { code: 'ENOENT' });
    const manifest = JSON.parse(await readFile(path.join(out, MANIFEST_NAME), 'utf8')) as { entries: Record<string, unknown> };
    assert.equal(manifest.entries['s001.jsonl'], undefined);
  });

  test('a live export holds the directory; a lock left by a dead process is taken over', async () => {
    await writeFile(path.join(out, LOCK_NAME), `${process.pid}\n`);
    await assert.rejects(exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 1 }), { code: 'output_failed', message: /another export \(pid \d+\)/ });
    await writeFile(path.join(out, LOCK_NAME), '2147483646\n');
    const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], jobs: 1 });
    assert.equal(report.interrupted, false);
    await assert.rejects(stat(path.join(out, LOCK_NAME)), { code: 'ENOENT' });
  });
});

describe('exportSessions: memory and bad options', () => {
  test('a session that needs more than the job memory fails as out_of_memory; the export goes on', async () => {
    const dir = path.join(work, 'oom');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'big.jsonl'), JSON.stringify({ role: 'user', content: 'z'.repeat(120_000_000) }) + '\n');
    for (const rel of ['s004.jsonl', 's008.jsonl']) await cp(path.join(corpus.dir, 'agent-0', rel), path.join(dir, rel));
    const report = await exportSessions({ inputs: [dir], outDir: path.join(work, 'oom-out'), routes: [ANTHROPIC], jobs: 1, jobMemoryMb: 64 });
    assert.deepEqual(report.failures.map((failure) => [path.basename(failure.file), failure.code]), [['big.jsonl', 'out_of_memory']]);
    assert.equal(report.totals.exported, 2, 'the lane started a new worker for the next sessions');
    assert.deepEqual(await temporaries(path.join(work, 'oom-out')), []);
  });

  test('bad options throw invalid_option before any work', async () => {
    const base = { inputs: [corpus.dir], outDir: path.join(work, 'never'), routes: [ANTHROPIC] };
    await assert.rejects(exportSessions({ ...base, inputs: [] }), { code: 'invalid_option' });
    await assert.rejects(exportSessions({ ...base, routes: [] }), { code: 'invalid_option' });
    await assert.rejects(exportSessions({ ...base, jobs: 0 }), { code: 'invalid_option' });
    await assert.rejects(exportSessions({ ...base, format: 'xml' as 'json' }), { code: 'invalid_option' });
    await assert.rejects(exportSessions({ ...base, routes: [{ ...ANTHROPIC, colour: 'red' } as typeof ANTHROPIC] }), { code: 'invalid_option', message: /unknown field "colour"/ });
    await assert.rejects(exportSessions({ ...base, routes: [ANTHROPIC, ANTHROPIC] }), { code: 'invalid_option', message: /both named/ });
    await assert.rejects(exportSessions({ ...base, outDir: path.join(corpus.dir, 'agent-0/s004.jsonl/x') }), { code: 'output_failed' });
    await assert.rejects(stat(path.join(work, 'never')), { code: 'ENOENT' });
  });
});

describe('exportSessions --repair', () => {
  test('each session is repaired on a copy first: torn lines no longer fail it, the session is untouched', async () => {
    const dir = path.join(work, 'repair-in');
    await mkdir(dir, { recursive: true });
    const torn = path.join(dir, 'torn.jsonl');
    await generateSession(torn, { messages: 30, format: 'session', seed: 42, payloadScale: 0.02 });
    const lines = (await readFile(torn, 'utf8')).split('\n');
    lines[9] = lines[9]!.slice(0, 80); // a torn line on the active path
    await writeFile(torn, lines.join('\n') + lines[4]!.slice(0, 17)); // and a torn last line
    await cp(path.join(corpus.dir, 'agent-0/s004.jsonl'), path.join(dir, 'whole.jsonl'));
    await writeFile(path.join(dir, 'bare-bad.jsonl'), '{"role":"user","content":"a"}\nnot json\n');
    const tornBytes = await readFile(torn);

    const without = await exportSessions({ inputs: [dir], outDir: path.join(work, 'repair-out'), routes: [ANTHROPIC], jobs: 2 });
    assert.deepEqual(without.failures.map((failure) => [path.basename(failure.file), failure.line]), [['bare-bad.jsonl', 2], ['torn.jsonl', 10]]);

    const out = path.join(work, 'repair-out');
    const report = await exportSessions({ inputs: [dir], outDir: out, routes: [ANTHROPIC], jobs: 2, repair: true });
    assert.equal(report.totals.skipped, 0, '--repair is part of the options hash');
    assert.deepEqual(report.failures.map((failure) => [path.basename(failure.file), failure.line, failure.code]), [['bare-bad.jsonl', 2, 'malformed_line']]);
    assert.match(report.failures[0]!.reason, /\(repair: invalid session header\)$/);
    assert.deepEqual(report.repaired.map((entry) => [entry.output, entry.droppedLines]), [['torn.jsonl', 2]]);
    assert.equal(report.totals.repaired, 1);
    assert.deepEqual(await readFile(torn), tornBytes, 'the session itself is not changed');

    // The output is sanitize's of the repaired copy, with the session's clock.
    const copy = path.join(work, 'repair-check.jsonl');
    await cp(torn, copy);
    const tornMtime = Math.floor((await stat(torn)).mtimeMs);
    await repairSessionFileIfNeeded(copy, { lock: false, now: () => tornMtime });
    const expectedTorn = (await sanitizeOne(copy, ANTHROPIC, torn)) as { text: string };
    assert.equal(await readFile(path.join(out, 'torn.jsonl'), 'utf8'), expectedTorn.text);
    assert.equal(await readFile(path.join(out, 'whole.jsonl'), 'utf8'), ((await sanitizeOne(path.join(dir, 'whole.jsonl'), ANTHROPIC)) as { text: string }).text);
    assert.deepEqual((await readdir(out)).filter((name) => name.startsWith('.') && name !== MANIFEST_NAME), [], 'no copy, backup or lock left');

    const again = await exportSessions({ inputs: [dir], outDir: out, routes: [ANTHROPIC], jobs: 2, repair: true });
    assert.equal(again.totals.skipped, 2);
  });
});
