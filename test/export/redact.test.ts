/** `export --redact secrets`: outputs without secrets, and the report's counts per rule and per session. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportSessions } from '../../lib/index.ts';
import { REPORT_HTML_NAME, REPORT_NAME, formatSummary, type ExportReport } from '../../lib/export/report.ts';
import { runCli } from '../helpers/run-cli.ts';
import { ANTHROPIC } from './corpus.ts';
import { ENV_DUMP, SECRETS } from '../secrets/corpus.ts';

let dir: string;
const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/w"}';

function sessionFile(texts: string[]): string {
  let parent: string | null = null;
  const lines = [header];
  texts.forEach((text, i) => {
    const id = `m${i}`;
    const message = i % 2 === 0 ? { role: 'user', content: text, timestamp: i + 1 } : { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', timestamp: i + 1 };
    lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: new Date(1784505600000 + i * 1000).toISOString(), message }));
    parent = id;
  });
  return lines.join('\n') + '\n';
}

const github = SECRETS.find((c) => c.kind === 'github token')!;
const anthropic = SECRETS.find((c) => c.kind === 'anthropic key')!;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-export-redact-'));
  await mkdir(path.join(dir, 'in'));
  await writeFile(path.join(dir, 'in', 'env.jsonl'), sessionFile(['cat .env', ENV_DUMP.text, 'and ' + github.text, 'ok']));
  await writeFile(path.join(dir, 'in', 'keys.jsonl'), sessionFile([anthropic.text, 'noted', github.text, 'ok']));
  await writeFile(path.join(dir, 'in', 'clean.jsonl'), sessionFile(['hello', 'hi']));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the library: no secret in any output; the report counts per rule and per session', async () => {
  const out = path.join(dir, 'out-lib');
  const report = await exportSessions({ inputs: [path.join(dir, 'in')], outDir: out, routes: [{ ...ANTHROPIC, redact: { secrets: true } }], jobs: 2 });
  assert.equal(report.totals.exported, 3);
  for (const name of ['env.jsonl', 'keys.jsonl', 'clean.jsonl']) {
    const text = await readFile(path.join(out, name), 'utf8');
    for (const secret of [...ENV_DUMP.secrets, github.secret, anthropic.secret]) assert.ok(!text.includes(secret), `${name} holds a secret`);
  }
  const written = await readFile(path.join(out, REPORT_NAME), 'utf8');
  for (const secret of [...ENV_DUMP.secrets, github.secret, anthropic.secret]) assert.ok(!written.includes(secret), 'the report holds a secret');
  const json = JSON.parse(written) as ExportReport;
  assert.match(json.redactions?.ruleSet ?? '', /^@secretlint\/secretlint-rule-preset-recommend@\d+\.\d+\.\d+$/);
  assert.deepEqual({ ...json.redactions, ruleSet: undefined }, {
    ruleSet: undefined,
    secrets: 9,
    byRule: { anthropic: 1, aws: 2, 'database-connection-string': 1, 'generic-assignment': 1, github: 3, stripe: 1 },
    sessions: 2,
    listed: [
      { file: path.join(dir, 'in', 'env.jsonl'), output: 'env.jsonl', secrets: 7, byRule: { aws: 2, 'database-connection-string': 1, stripe: 1, 'generic-assignment': 1, github: 2 }, messages: 2, unsignedThinking: 0 },
      { file: path.join(dir, 'in', 'keys.jsonl'), output: 'keys.jsonl', secrets: 2, byRule: { anthropic: 1, github: 1 }, messages: 2, unsignedThinking: 0 },
    ],
    unlisted: 0,
  });
  assert.equal(json.rules['redact-secrets']?.github, 3);
  assert.equal(json.ruleSessions['redact-secrets']?.github?.sessions, 2);
  assert.match(formatSummary(json, 'r.json'), /export: 9 secrets redacted in 2 sessions \(anthropic 1, aws 2, database-connection-string 1, generic-assignment 1, github 3, stripe 1\)/);

  const html = await readFile(path.join(out, REPORT_HTML_NAME), 'utf8');
  assert.match(html, /<section id="redactions"><h2>Secrets redacted<\/h2>/);
  assert.match(html, /data-field="redactions.secrets" data-value="9"/);
  assert.match(html, /data-field="redactions.byRule.github" data-value="3"/);
  assert.equal((html.match(/class="redacted-session"/g) ?? []).length, 2);
  for (const secret of [...ENV_DUMP.secrets, github.secret, anthropic.secret]) assert.ok(!html.includes(secret), 'the page holds a secret');
});

test('the command: --redact secrets changes the options hash (a re-run redacts what an earlier export left)', async () => {
  const out = path.join(dir, 'out-cli');
  const route = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];
  const plain = await runCli(['export', '--out', out, '-q', ...route, path.join(dir, 'in')]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok((await readFile(path.join(out, 'keys.jsonl'), 'utf8')).includes(github.secret));
  assert.equal((JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport).redactions, undefined);
  const redacted = await runCli(['export', '--out', out, ...route, '--redact', 'secrets', path.join(dir, 'in')]);
  assert.equal(redacted.code, 0, redacted.stderr);
  assert.match(redacted.stderr, /3 exported, 0 already current/);
  assert.match(redacted.stderr, /export: 9 secrets redacted in 2 sessions/);
  assert.ok(!(await readFile(path.join(out, 'keys.jsonl'), 'utf8')).includes(github.secret));
});

test('a clean archive: the section says nothing was found', async () => {
  const out = path.join(dir, 'out-clean');
  const report = await exportSessions({ inputs: [path.join(dir, 'in', 'clean.jsonl')], outDir: out, routes: [{ ...ANTHROPIC, redact: { secrets: true } }], jobs: 1 });
  assert.deepEqual({ ...report.redactions, ruleSet: undefined }, { ruleSet: undefined, secrets: 0, byRule: {}, sessions: 0, listed: [], unlisted: 0 });
  assert.match(await readFile(path.join(out, REPORT_HTML_NAME), 'utf8'), /No secret was found in the outputs of this run/);
});
