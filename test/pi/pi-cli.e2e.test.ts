/**
 * End to end with the real pi CLI, pi 1.6.0 on Node 24 and 0.73.1 on the tests' node: each broken
 * session (sessions.ts) is resumed in print mode against the strict Anthropic emulator, once without the extension and once with it (loaded from
 * its TypeScript source with `-e`). Without it the emulator must reject the request with the
 * case's rule, which proves the case still breaks through pi; with it the emulator must accept
 * the request, and that accepted request must still hold the session's user text, its real tool
 * outputs and pi's own messages.
 *
 * pi start-up is CPU-bound, so the runs go a few at a time, all before the assertions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAnthropicEmulator, type LoggedRequest } from './emulator/server.ts';
import { EXTENSION_SOURCE, PI_LINES, inPool, runPi, type PiLine, type PiRun } from './run-pi.ts';
import { SESSION_CASES, type SessionCase } from './sessions.ts';
import { isRecord } from '../../lib/types.ts';

const PROMPT = 'Please continue where we left off.';
const ANSWER = 'emulator: request accepted';

interface CaseRun {
  readonly run: PiRun;
  readonly requests: readonly LoggedRequest[];
}

async function runCase(line: PiLine, sessionCase: SessionCase, withExtension: boolean): Promise<CaseRun> {
  const emulator = await startAnthropicEmulator({ idleMs: 180_000, answer: ANSWER });
  try {
    const run = await runPi({
      baseUrl: emulator.url,
      session: sessionCase.lines,
      prompts: [PROMPT],
      extensions: withExtension ? [EXTENSION_SOURCE] : [],
      pi: line,
    });
    return { run, requests: [...emulator.requests] };
  } finally {
    await emulator.close();
  }
}

/** Every text the request sends: text blocks, string contents and tool results' content. */
function sentTexts(body: unknown): string[] {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (isRecord(value)) {
      if (typeof value.text === 'string') texts.push(value.text);
      if (value.type === 'tool_result') visit(value.content);
    }
  };
  if (isRecord(body) && Array.isArray(body.messages)) for (const message of body.messages) if (isRecord(message)) visit(message.content);
  return texts;
}

/** The ids of the request's `tool_use` blocks. */
function sentToolUseIds(body: unknown): string[] {
  const ids: string[] = [];
  if (!isRecord(body) || !Array.isArray(body.messages)) return ids;
  for (const message of body.messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) if (isRecord(block) && block.type === 'tool_use' && typeof block.id === 'string') ids.push(block.id);
  }
  return ids;
}

function describeRun(label: string, { run, requests }: CaseRun): string {
  const log = requests.map((request) => `${request.status} ${request.violations.map((violation) => violation.rule).join(',')}`).join('; ');
  return `${label}: exit ${run.code}; requests [${log}]\nstdout: ${run.stdout.slice(0, 400)}\nstderr: ${run.stderr.slice(0, 800)}`;
}

describe('pi CLI with the extension, against the strict Anthropic emulator', () => {
  const results = new Map<string, { without: CaseRun; with: CaseRun }>();
  const key = (line: PiLine, sessionCase: SessionCase): string => `${line}\n${sessionCase.name}`;

  before(async () => {
    const pairs = PI_LINES.flatMap((line) => SESSION_CASES.map((sessionCase) => ({ line, sessionCase })));
    const jobs = pairs.flatMap((pair) => [
      { ...pair, withExtension: false },
      { ...pair, withExtension: true },
    ]);
    const runs = await inPool(jobs, 3, (job) => runCase(job.line, job.sessionCase, job.withExtension));
    pairs.forEach((pair, index) => results.set(key(pair.line, pair.sessionCase), { without: runs[2 * index]!, with: runs[2 * index + 1]! }));
  });

  after(() => results.clear());

  for (const line of PI_LINES) for (const sessionCase of SESSION_CASES) {
    test(`pi ${line}: ${sessionCase.name}`, () => {
      const { without, with: withExtension } = results.get(key(line, sessionCase))!;

      // Without the extension: rejected, with the case's rule, and pi reports the failure.
      const rejected = without.requests.filter((request) => request.path.endsWith('/messages'));
      assert.ok(rejected.length >= 1, describeRun('without', without));
      assert.ok(
        rejected.every((request) => request.status === 400),
        describeRun('without', without),
      );
      assert.equal(rejected[0]!.violations[0]!.rule, sessionCase.rejectedBy, describeRun('without', without));
      assert.notEqual(without.run.code, 0, describeRun('without', without));

      // With it: accepted, answered, and nothing of the session's content lost.
      const accepted = withExtension.requests.filter((request) => request.status === 200);
      assert.equal(withExtension.run.code, 0, describeRun('with', withExtension));
      assert.equal(accepted.length, 1, describeRun('with', withExtension));
      assert.ok(withExtension.run.stdout.includes(ANSWER), describeRun('with', withExtension));
      const sent = sentTexts(accepted[0]!.body).join('\n');
      for (const text of [...sessionCase.mustKeep, PROMPT]) assert.ok(sent.includes(text), `the accepted request lost ${JSON.stringify(text)}:\n${sent}`);
      // Anthropic's rules ran (the provider name is one pi does not know): its valid ids went out as they were.
      const ids = sentToolUseIds(accepted[0]!.body);
      for (const id of sessionCase.keepIds) assert.ok(ids.includes(id), `${id} was rewritten: ${ids.join(', ')}`);
    });
  }
});
