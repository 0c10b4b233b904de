/**
 * Every bench script answers `--help` with its own doc comment and refuses an option it does not
 * know in one line with exit code 2, before it measures anything (bench/args.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import { docCommentOf } from '../../bench/args.ts';
import { root, runBenchScript, type BenchRun } from '../helpers/run-bench.ts';

const benchDir = path.join(root, 'bench');
const scripts = readdirSync(benchDir)
  .filter((name) => name.endsWith('.ts') && readFileSync(path.join(benchDir, name), 'utf8').includes('benchArgs(import.meta.url'))
  .sort();

function run(script: string, args: string[]): Promise<BenchRun> {
  return runBenchScript(script, args, { timeout: 60_000 });
}

test('docCommentOf takes the first doc comment without its marks', () => {
  assert.equal(docCommentOf('// x\n/**\n * One.\n *\n * Two.\n */\nconst a = 1; /** later */'), 'One.\n\nTwo.');
  assert.equal(docCommentOf('const a = 1;'), undefined);
});

test('every bench script with options answers --help and refuses an unknown option', async () => {
  assert.ok(scripts.length >= 10, `bench scripts found: ${scripts.join(', ')}`);
  const limit = pLimit(4);
  await Promise.all(
    scripts.map((script) =>
      limit(async () => {
        const doc = docCommentOf(readFileSync(path.join(benchDir, script), 'utf8'));
        assert.ok(doc !== undefined && doc.length > 40, `${script} has a doc comment`);
        const help = await run(script, ['--help']);
        assert.equal(help.code, 0, `${script} --help: ${help.stderr}`);
        assert.equal(help.stdout.trim(), doc, `${script} --help prints its doc comment`);
        const unknown = await run(script, ['--no-such-option']);
        assert.equal(unknown.code, 2, `${script} --no-such-option exits 2`);
        assert.equal(unknown.stdout, '');
        assert.match(unknown.stderr, new RegExp(`^bench/${script.replace('.', '\\.')}: Unknown option '--no-such-option'.*\\n$`));
      }),
    ),
  );
});

test('a value a bench script cannot use is one line and exit code 2, before any work', async () => {
  const sizes = await run('runner.ts', ['--sizes', '1000,x']);
  assert.equal(sizes.code, 2);
  assert.equal(sizes.stderr, "bench/runner.ts: --sizes: x is not a message count (--help lists the options)\n");
  const route = await run('runner.ts', ['--route', 'nope', '--sizes', '10']);
  assert.equal(route.code, 2);
  assert.match(route.stderr, /^bench\/runner\.ts: --route: nope is not one of anthropic, openai-responses .*\n$/);
  // The children the benches start: a missing argument is named, not a stack trace from the first use of it.
  const runCase = await run('run-case.ts', ['in.jsonl']);
  assert.equal(runCase.code, 2);
  assert.equal(runCase.stderr, 'bench/run-case.ts: expected IN OUT PROVIDER MODEL_API MODEL_ID [SESSION], got 1 argument (--help lists the options)\n');
  // A misspelt workload used to fall back to `agent` and generate the wrong transcript.
  const workload = await run('generate.ts', ['--messages', '10', '--workload', 'mixed-detials', 'out.jsonl']);
  assert.equal(workload.code, 2);
  assert.equal(workload.stderr, 'bench/generate.ts: --workload: mixed-detials is not one of agent, mixed-provider, mixed-details (--help lists the options)\n');
  const floor = await run('floor.ts', ['in.jsonl', 'out.jsonl', 'extra']);
  assert.equal(floor.code, 2);
  assert.equal(floor.stderr, 'bench/floor.ts: expected IN OUT, got 3 arguments (--help lists the options)\n');
});
