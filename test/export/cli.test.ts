import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPORT_EXIT, REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { ANTHROPIC, GEMINI, sanitizeOne } from './corpus.ts';
import { runCli as run } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];


let dir: string;
let sessions: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-export-cli-'));
  sessions = path.join(dir, 'sessions');
  await mkdir(path.join(sessions, 'a'), { recursive: true });
  await writeFile(path.join(sessions, 'a/demo.jsonl'), await readFile(demo));
  await writeFile(path.join(sessions, 'a/two.jsonl'), JSON.stringify({ role: 'user', content: 'hello' }) + '\n' + JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'stop' }) + '\n');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('transcript-hygiene export', () => {
  test('--help documents the options and export\'s own exit codes', async () => {
    const result = await run(['export', '--help']);
    assert.equal(result.code, 0);
    for (const flag of ['--out', '--route-file', '--jobs', '--force', '--repair', '--format', '--quiet', '--job-memory']) assert.ok(result.stdout.includes(flag), flag);
    assert.match(result.stdout, /Exit codes \(export's own\): 0 .*; 2 some sessions\nfailed .*; 1 usage error/s);
    assert.equal((await run(['help', 'export'])).stdout, result.stdout);
    assert.match((await run(['help'])).stdout, /\n {2}export {5}/);
  });

  test('usage errors exit 1 (not 2 as for the other commands)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['export', ...route, sessions], /missing --out DIR/],
      [['export', '--out', path.join(dir, 'o'), ...route], /no input/],
      [['export', '--out', path.join(dir, 'o'), '--provider', 'anthropic', sessions], /missing --model-api, --model-id/],
      [['export', '--out', path.join(dir, 'o'), sessions], /missing --provider/],
      [['export', '--out', path.join(dir, 'o'), '--jobs', '0', ...route, sessions], /--jobs must be a positive integer/],
      [['export', '--out', path.join(dir, 'o'), '--format', 'csv', ...route, sessions], /--format must be jsonl or json/],
      [['export', '--out', path.join(dir, 'o'), '--colour', ...route, sessions], /unknown option '--colour'/],
      [['export', '--out', path.join(dir, 'o'), '--route-file', path.join(dir, 'missing.json'), sessions], /cannot read the route file/],
      [['export', '--out', demo, ...route, sessions], /cannot create the output directory/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      assert.equal(result.code, EXPORT_EXIT.usage, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
    assert.equal((await run(['sanitize', '--bogus'])).code, 2, 'the other commands keep 2');
  });

  test('all exported: exit 0, one plain line per output, then the summary', async () => {
    const out = path.join(dir, 'ok');
    const result = await run(['export', '--out', out, '--jobs', '1', ...route, sessions]);
    assert.equal(result.code, EXPORT_EXIT.ok, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.match(lines[0]!, /^export: 2 sessions: 2 to export \(.* kB\), 0 already current, 1 job$/);
    assert.match(lines[1]!, /^export: \[1\/2\] ok .*\.jsonl \(.*\)$/);
    assert.match(lines[2]!, /^export: \[2\/2\] ok /);
    assert.match(lines[3]!, /^export: 2 sessions: 2 exported, 0 already current, 0 failed; .* MB\/s\)$/);
    assert.equal(lines[4], `export: report in ${path.join(out, REPORT_NAME)}`);
    assert.equal(await readFile(path.join(out, 'a/demo.jsonl'), 'utf8'), ((await sanitizeOne(path.join(sessions, 'a/demo.jsonl'), ANTHROPIC)) as { text: string }).text);
    assert.equal(result.stdout, '', 'nothing on stdout');

    const again = await run(['export', '--out', out, '--quiet', ...route, sessions]);
    assert.equal(again.code, 0);
    assert.equal(again.stderr, '', '--quiet: nothing when all went well');
  });

  test('some failed: exit 2, the failures in the summary and the report, even with --quiet', async () => {
    const input = path.join(dir, 'mixed');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'good.jsonl'), JSON.stringify({ role: 'user', content: 'hello' }) + '\n');
    await writeFile(path.join(input, 'bad.jsonl'), JSON.stringify({ role: 'user', content: 'hello' }) + '\n{"role":\n');
    const out = path.join(dir, 'mixed-out');
    const result = await run(['export', '--out', out, '-q', ...route, input]);
    assert.equal(result.code, EXPORT_EXIT.someFailed);
    assert.match(result.stderr, /^export: 2 sessions: 1 exported, 0 already current, 1 failed;/);
    assert.match(result.stderr, /\n {2}FAILED .*bad\.jsonl:2: not valid JSON/);
    const report = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
    assert.deepEqual(report.failures.map((failure) => [path.basename(failure.file), failure.line, failure.code]), [['bad.jsonl', 2, 'malformed_line']]);
  });

  test('--route-file with the route flags: one tree per route; --format json; paths from stdin', async () => {
    const routes = path.join(dir, 'routes.json');
    await writeFile(routes, JSON.stringify({ routes: [{ name: 'gemini', ...GEMINI }] }));
    const out = path.join(dir, 'routes-out');
    const list = [path.join(sessions, 'a/demo.jsonl'), path.join(sessions, 'a/two.jsonl')].join('\n');
    const result = await run(['export', '--out', out, '--route-file', routes, '--format', 'json', '-j', '2', ...route, '-'], list);
    assert.equal(result.code, 0, result.stderr);
    const tree = (await readdir(out, { recursive: true })).map(String).filter((name) => name.endsWith('.json') && !path.basename(name).startsWith('.') && name !== REPORT_NAME).sort();
    assert.deepEqual(tree, ['anthropic-claude-sonnet-4-5/demo.json', 'anthropic-claude-sonnet-4-5/two.json', 'gemini/demo.json', 'gemini/two.json']);
    const gemini = (await sanitizeOne(path.join(sessions, 'a/demo.jsonl'), GEMINI)) as { text: string };
    const expected = gemini.text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(JSON.parse(await readFile(path.join(out, 'gemini/demo.json'), 'utf8')), expected);
    assert.match(result.stderr, /\[gemini\]/);
  });

  test('a route file alone is enough; a bad one is a usage error naming the problem', async () => {
    const routes = path.join(dir, 'routes-only.json');
    await writeFile(routes, JSON.stringify([{ ...ANTHROPIC, thinking: true }]));
    const ok = await run(['export', '--out', path.join(dir, 'route-only-out'), '--route-file', routes, '-q', sessions]);
    assert.equal(ok.code, 0, ok.stderr);
    const report = JSON.parse(await readFile(path.join(dir, 'route-only-out', REPORT_NAME), 'utf8')) as ExportReport;
    assert.equal(report.routes[0]!.thinking, true);
    await writeFile(routes, '[{"provider": "anthropic"}]');
    const bad = await run(['export', '--out', path.join(dir, 'route-bad-out'), '--route-file', routes, sessions]);
    assert.equal(bad.code, EXPORT_EXIT.usage);
    assert.match(bad.stderr, /route 1: "modelApi" must be a non-empty string/);
    await writeFile(routes, '{"routes": 3}');
    assert.match((await run(['export', '--out', path.join(dir, 'route-bad-out'), '--route-file', routes, sessions])).stderr, /expected a non-empty JSON array of routes/);
    await writeFile(routes, '[');
    assert.match((await run(['export', '--out', path.join(dir, 'route-bad-out'), '--route-file', routes, sessions])).stderr, /not valid JSON/);
  });
});
