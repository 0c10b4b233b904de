/**
 * The published artifact works without the sources: packed, installed into an empty folder
 * with runtime dependencies only, then used from plain JavaScript, from a strict TypeScript
 * consumer, and through its bin; publint and attw find nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { packAndInstall, root, type PackedInstall } from '../helpers/packed.ts';
import { startAnthropicEmulator } from '../pi/emulator/server.ts';
import { runPi } from '../pi/run-pi.ts';
import { SESSION_CASES } from '../pi/sessions.ts';

const run = promisify(execFile);
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

describe('the packed package', () => {
  let packed: PackedInstall;
  before(async () => {
    packed = await packAndInstall();
  });
  after(async () => {
    await packed?.remove();
  });

  test('the tarball holds compiled code, types, the bin, README and LICENSE, and nothing of the development', () => {
    const files = packed.files;
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'bin/transcript-hygiene.js', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/cli/main.js']) {
      assert.ok(files.includes(needed), `${needed} is shipped`);
    }
    const development = files.filter((file) => /^(test|bench|fixtures|\.ci|lib|transforms)\//.test(file) || (file.endsWith('.ts') && !file.endsWith('.d.ts')) || file.startsWith('tsconfig'));
    assert.deepEqual(development, [], 'no sources, tests, benchmarks, recorded fixtures or CI files');
  });

  test('installing it brings no TypeScript tooling', async () => {
    const installed = await readdir(path.join(packed.app, 'node_modules'));
    for (const tool of ['tsx', 'typescript', 'esbuild', 'c8', 'fast-check']) assert.ok(!installed.includes(tool), `${tool} is not installed`);
    assert.ok(installed.includes('stream-json') && installed.includes('through2'));
  });

  test('a plain .mjs imports the library and sanitizes, streams included', async () => {
    const script = path.join(packed.app, 'use.mjs');
    await writeFile(
      script,
      `import { sanitizeSessionHistory, createRuleStream, ruleNamesFor, resolveTranscriptPolicy } from 'transcript-hygiene';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', now: () => 1 };
const messages = [
  { role: 'user', content: [{ type: 'text', text: '  ' }] },
  { role: 'user', content: 'read it' },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'call|1', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse' },
];
const replay = await sanitizeSessionHistory(messages, route);
const streamed = [];
await pipeline(Readable.from(messages), ...ruleNamesFor(route).map((name) => createRuleStream(name, route)), new Writable({ objectMode: true, write(m, _e, cb) { streamed.push(m); cb(); } }));
console.log(JSON.stringify({ replay, streamed, frozen: Object.isFrozen(resolveTranscriptPolicy(route)) }));
`,
    );
    const { stdout } = await run(process.execPath, [script], { cwd: packed.app });
    const { replay, streamed, frozen } = JSON.parse(stdout) as { replay: { role: string; content: unknown }[]; streamed: unknown[]; frozen: boolean };
    assert.deepEqual(replay.map((message) => message.role), ['user', 'assistant', 'toolResult']);
    assert.match(JSON.stringify(replay[1]!.content), /"id":"call1"/, 'the id is sanitized for Anthropic');
    assert.deepEqual(streamed, replay);
    assert.equal(frozen, true);
  });

  test('a plain .mjs lists the sessions of an OpenClaw database and reads one (node:sqlite; on Node 20, installed without install scripts, one line saying better-sqlite3 needs its build)', async () => {
    const database = path.join(packed.app, 'openclaw-agent.sqlite');
    await copyFile(path.join(root, 'fixtures', 'openclaw-db', 'state', 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), database);
    const script = path.join(packed.app, 'database.mjs');
    await writeFile(
      script,
      `import { openOpenClawDatabase, listDatabaseSessions, readDatabaseSessionMessages } from 'transcript-hygiene';
try {
  const db = await openOpenClawDatabase('openclaw-agent.sqlite');
  const sessions = await listDatabaseSessions(db);
  db.close();
  const messages = await readDatabaseSessionMessages({ path: 'openclaw-agent.sqlite', session: 'agent:main:large', options: {} });
  console.log(JSON.stringify({ keys: sessions.map((s) => s.key).sort(), messages: messages.length, roles: [...new Set(messages.map((m) => m.role))].sort() }));
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}
`,
    );
    const result = JSON.parse((await run(process.execPath, [script], { cwd: packed.app })).stdout) as { keys?: string[]; messages?: number; roles?: string[]; code?: string; message?: string };
    if (process.getBuiltinModule?.('node:sqlite') !== undefined) {
      assert.deepEqual(result.keys, [
        'agent:main:branches',
        'agent:main:compaction',
        'agent:main:compaction-reset',
        'agent:main:exclude',
        'agent:main:images',
        'agent:main:large',
        'agent:main:main',
        'agent:main:navigation',
        'agent:main:providers',
        'agent:main:reset-compaction',
        'agent:main:reset-kept',
        'agent:main:reset-plain',
        'agent:main:v1',
      ]);
      assert.equal(result.messages, 600);
      assert.deepEqual(result.roles, ['assistant', 'toolResult', 'user']);
    } else {
      assert.equal(result.code, 'sqlite_unavailable', JSON.stringify(result));
      assert.match(result.message!, /npm install better-sqlite3 --allow-scripts=better-sqlite3/);
    }
  });

  test('a strict TypeScript consumer (nodenext, exactOptionalPropertyTypes) type-checks against the shipped types', async () => {
    await writeFile(
      path.join(packed.app, 'consumer.ts'),
      `import { sanitizeSessionHistory, createHygieneStream, createRuleStream, ruleNamesFor, isHygieneError, type HygieneStats, type Message, type RuleName, type TranscriptPolicy } from 'transcript-hygiene';
const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' } as const;
const replay: Message[] = await sanitizeSessionHistory([], { ...route, onStats: (stats: HygieneStats) => void stats.messagesIn });
const names: RuleName[] = ruleNamesFor(route);
const stream: NodeJS.ReadWriteStream = createHygieneStream(route);
const one = createRuleStream(names[0] ?? 'drop-non-object-messages', route);
// @ts-expect-error: the route is required (without it a fallback policy would run)
void sanitizeSessionHistory([], {});
// @ts-expect-error: rule names are a union, not any string
void createRuleStream('drop-blank-user-txt', route);
export function describe(error: unknown, policy: TranscriptPolicy): string {
  return isHygieneError(error) ? error.code : String(policy) + replay.length + String(stream) + String(one);
}
`,
    );
    await writeFile(
      path.join(packed.app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules', '@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', packed.app]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    assert.equal('failed' in result ? result.stdout : '', '');
  });

  test('a TypeScript 4.9 consumer (node16 resolution) type-checks against the shipped types: they import .js, not .ts', async () => {
    const ts49 = path.join(packed.dir, 'ts49');
    await run('npm', ['install', '--prefix', ts49, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', 'typescript@4.9.5'], { maxBuffer: 16 * 1024 * 1024 });
    await writeFile(
      path.join(packed.app, 'consumer49.ts'),
      `import { sanitizeSessionHistory, createRuleStream, type Message } from 'transcript-hygiene';
const route = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
export const replay: Promise<Message[]> = sanitizeSessionHistory([], route);
export const one = createRuleStream('drop-blank-user-text', route);
`,
    );
    const config = path.join(packed.app, 'tsconfig.ts49.json');
    await writeFile(
      config,
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')] },
        files: ['consumer49.ts'],
      }),
    );
    const tsc = path.join(ts49, 'node_modules', 'typescript', 'bin', 'tsc');
    assert.match((await run(process.execPath, [tsc, '--version'])).stdout, /Version 4\.9\.5/);
    const result = await run(process.execPath, [tsc, '-p', config]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    assert.equal('failed' in result ? result.stdout : '', '');
  });

  test("the README's library examples type-check against the shipped types", async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Library\n'), readme.indexOf('\n### The package\n'));
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    assert.ok(blocks.length >= 2, 'the Library section has its examples');
    const files: string[] = [];
    for (const [i, block] of blocks.entries()) {
      const file = `readme-example-${i}.ts`;
      await writeFile(path.join(packed.app, file), `${block}\nexport {};\n`);
      files.push(file);
    }
    const config = path.join(packed.app, 'tsconfig.readme.json');
    await writeFile(
      config,
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')] },
        files,
      }),
    );
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', config]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    assert.equal('failed' in result ? result.stdout : '', '');
  });

  test('the installed bin answers --help and --version and sanitizes a file', async () => {
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const help = await run(packed.bin, ['--help']);
    assert.match(help.stdout, /^transcript-hygiene: clean an AI-agent transcript/);
    assert.equal((await run(packed.bin, ['--version'])).stdout, `${manifest.version}\n`);
    const demo = path.join(packed.app, 'demo.jsonl');
    await copyFile(path.join(root, 'fixtures', 'sessions', 'demo.jsonl'), demo);
    const { stdout } = await run(packed.bin, ['sanitize', demo, ...route]);
    const installed = await run(process.execPath, [path.join(root, 'bin', 'transcript-hygiene.js'), 'sanitize', demo, ...route]);
    assert.equal(stdout, installed.stdout, 'the compiled command writes what the sources write');
    assert.equal(stdout.trim().split('\n').length, 8);
  });

  test('sharp is optional: without it in-limit images pass and an oversized one becomes a replacement text', async () => {
    const withoutSharp = await packed.installAgain('app-without-sharp', ['--omit=optional']);
    await assert.rejects(readdir(path.join(withoutSharp, 'node_modules', 'sharp')), { code: 'ENOENT' });
    const sharp = (await import('sharp')).default;
    const picture = async (width: number, height: number) =>
      (await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } }).png().toBuffer()).toString('base64');
    const session = [
      { role: 'user', content: [{ type: 'text', text: 'small' }, { type: 'image', data: await picture(40, 30), mimeType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'seen' }], stopReason: 'stop' },
      { role: 'user', content: [{ type: 'text', text: 'large' }, { type: 'image', data: await picture(2400, 60), mimeType: 'image/png' }] },
    ];
    const input = path.join(packed.dir, 'images.jsonl');
    await writeFile(input, session.map((message) => JSON.stringify(message)).join('\n') + '\n');
    const sanitizeWith = async (app: string) => {
      const { stdout } = await run(path.join(app, 'node_modules', '.bin', 'transcript-hygiene'), ['sanitize', input, ...route]);
      return stdout.trim().split('\n').map((line) => JSON.parse(line) as { content: { type: string; text?: string; data?: string }[] });
    };
    const [small, , large] = await sanitizeWith(withoutSharp);
    assert.equal(small!.content[1]!.data, (session[0]!.content[1] as { data: string }).data, 'an image within the limits passes as it is');
    assert.equal(large!.content[1]!.type, 'text');
    assert.match(large!.content[1]!.text!, /^\[session:history\] omitted image payload: Error: Image processor unavailable: sharp is not installed \(an optional dependency: npm install sharp\)$/);
    const [, , resized] = await sanitizeWith(packed.app);
    assert.equal(resized!.content[1]!.type, 'image', 'with sharp the large image is re-encoded instead');
  });

  test("exports['./pi'] is the compiled pi extension, and the real pi runs it: a broken session is accepted", async () => {
    const resolver = path.join(packed.app, 'resolve-pi.mjs');
    await writeFile(resolver, "const url = import.meta.resolve('transcript-hygiene/pi'); const { default: extension } = await import(url); console.log(JSON.stringify({ url, kind: typeof extension }));");
    const { url, kind } = JSON.parse((await run(process.execPath, [resolver], { cwd: packed.app })).stdout) as { url: string; kind: string };
    assert.equal(kind, 'function', 'the default export is the extension factory');
    assert.match(url, /node_modules\/transcript-hygiene\/dist\/lib\/pi\/extension\.js$/);
    const sessionCase = SESSION_CASES.find((candidate) => candidate.name.startsWith('user steering message'))!;
    const emulator = await startAnthropicEmulator({ idleMs: 120_000, answer: 'emulator: accepted' });
    try {
      const piRun = await runPi({ baseUrl: emulator.url, session: sessionCase.lines, prompts: ['Please continue.'], extensions: [new URL(url).pathname] });
      const statuses = emulator.requests.map((request) => request.status);
      assert.equal(piRun.code, 0, `pi exited ${piRun.code}: ${piRun.stderr.slice(0, 600)}`);
      assert.deepEqual(statuses, [200], 'one request, accepted');
      assert.match(piRun.stdout, /emulator: accepted/);
    } finally {
      await emulator.close();
    }
  });

  test('pi 1.x loads the installed package by its "pi" manifest (the folder, as pi install and -e npm: do): a broken session is accepted', async () => {
    const sessionCase = SESSION_CASES.find((candidate) => candidate.name.startsWith('user steering message'))!;
    const packageDir = path.join(packed.app, 'node_modules', 'transcript-hygiene');
    const emulator = await startAnthropicEmulator({ idleMs: 120_000, answer: 'emulator: accepted' });
    try {
      const piRun = await runPi({ baseUrl: emulator.url, session: sessionCase.lines, prompts: ['Please continue.'], extensions: [packageDir], pi: '1.x' });
      assert.equal(piRun.code, 0, `pi exited ${piRun.code}: ${piRun.stderr.slice(0, 600)}`);
      assert.deepEqual(emulator.requests.map((request) => request.status), [200], 'one request, accepted');
      assert.match(piRun.stdout, /emulator: accepted/);
    } finally {
      await emulator.close();
    }
  });

  test('publint and attw (ESM-only profile) find nothing in the tarball', async () => {
    const publint = await run(process.execPath, [path.join(root, 'node_modules', 'publint', 'src', 'cli.js'), 'run', '--strict', packed.tarball]);
    assert.match(publint.stdout, /All good!/);
    const attwBin = path.join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const attw = await run(process.execPath, [attwBin, packed.tarball, '--profile', 'esm-only', '--format', 'json']).catch((error: { stdout: string }) => error);
    const { analysis } = JSON.parse(attw.stdout) as { analysis: { problems: { kind: string; resolutionKind?: string }[] } };
    // The package is ESM only: a require() from CommonJS (node10, node16-cjs) is out of scope.
    const problems = analysis.problems.filter((problem) => !['node10', 'node16-cjs'].includes(problem.resolutionKind ?? ''));
    assert.deepEqual(problems, []);
  });
});
