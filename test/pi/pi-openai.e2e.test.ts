/**
 * End to end with the real pi CLI (1.6.0 on Node 24, 0.73.1 on the tests' node) in print mode,
 * against the strict OpenAI Responses and chat completions emulators: each broken session
 * (openai-sessions.ts) is rejected with its case's 400 without the extension and answered with it,
 * with its user text and tool outputs still in the accepted request. The provider is a name pi
 * does not know, so the rules come from the request (a GPT model on either API: OpenAI's).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startChatCompletionsEmulator, startResponsesEmulator, type LoggedRequest } from './emulator/server.ts';
import { EXTENSION_SOURCE, PI_LINES, inPool, runPi, type PiLine, type PiRun } from './run-pi.ts';
import { OPENAI_SESSION_CASES, type OpenAISessionCase } from './openai-sessions.ts';

const PROMPT = 'Please continue where we left off.';
const ANSWER = 'emulator: request accepted';

interface CaseRun {
  readonly run: PiRun;
  readonly requests: readonly LoggedRequest[];
}

async function runCase(line: PiLine, sessionCase: OpenAISessionCase, withExtension: boolean): Promise<CaseRun> {
  const start = sessionCase.api === 'openai-responses' ? startResponsesEmulator : startChatCompletionsEmulator;
  const emulator = await start({ idleMs: 180_000, answer: ANSWER });
  try {
    const run = await runPi({
      baseUrl: `${emulator.url}/v1`,
      session: sessionCase.lines,
      prompts: [PROMPT],
      extensions: withExtension ? [EXTENSION_SOURCE] : [],
      api: sessionCase.api,
      modelId: sessionCase.modelId,
      pi: line,
    });
    return { run, requests: [...emulator.requests] };
  } finally {
    await emulator.close();
  }
}

function describeRun(label: string, { run, requests }: CaseRun): string {
  const log = requests.map((request) => `${request.status} ${request.path} ${request.violations.map((violation) => violation.rule).join(',')}`).join('; ');
  return `${label}: exit ${run.code}; requests [${log}]\nstdout: ${run.stdout.slice(0, 400)}\nstderr: ${run.stderr.slice(0, 800)}`;
}

describe('pi CLI with the extension, against the strict OpenAI emulators', () => {
  const results = new Map<string, { without: CaseRun; with: CaseRun }>();
  const key = (line: PiLine, sessionCase: OpenAISessionCase): string => `${line}\n${sessionCase.name}`;

  before(async () => {
    const pairs = PI_LINES.flatMap((line) => OPENAI_SESSION_CASES.map((sessionCase) => ({ line, sessionCase })));
    const jobs = pairs.flatMap((pair) => [
      { ...pair, withExtension: false },
      { ...pair, withExtension: true },
    ]);
    const runs = await inPool(jobs, 3, (job) => runCase(job.line, job.sessionCase, job.withExtension));
    pairs.forEach((pair, index) => results.set(key(pair.line, pair.sessionCase), { without: runs[2 * index]!, with: runs[2 * index + 1]! }));
  });

  after(() => results.clear());

  for (const line of PI_LINES) for (const sessionCase of OPENAI_SESSION_CASES) {
    test(`pi ${line}: ${sessionCase.name}`, () => {
      const { without, with: withExtension } = results.get(key(line, sessionCase))!;

      const rejected = without.requests.filter((request) => request.status !== 404);
      assert.ok(rejected.length >= 1, describeRun('without', without));
      assert.ok(rejected.every((request) => request.status === 400), describeRun('without', without));
      assert.equal(rejected[0]!.violations[0]!.rule, sessionCase.rejectedBy, describeRun('without', without));
      assert.notEqual(without.run.code, 0, describeRun('without', without));

      const accepted = withExtension.requests.filter((request) => request.status === 200);
      assert.equal(withExtension.run.code, 0, describeRun('with', withExtension));
      assert.equal(accepted.length, 1, describeRun('with', withExtension));
      assert.ok(withExtension.run.stdout.includes(ANSWER), describeRun('with', withExtension));
      const sent = JSON.stringify(accepted[0]!.body);
      for (const text of [...sessionCase.mustKeep, PROMPT]) assert.ok(sent.includes(JSON.stringify(text).slice(1, -1)), `the accepted request lost ${JSON.stringify(text)}:\n${sent.slice(0, 3000)}`);
    });
  }
});
