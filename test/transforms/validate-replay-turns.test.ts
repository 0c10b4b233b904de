/**
 * The turn rules together, in the order and under the conditions proposed for lib/pipeline.ts:
 * step 16 (the bootstrap turns), then `validateReplayTurns` (assistant merge, dangling-call strip,
 * user merge). Runs the spec's worked examples that touch §3 (turns-images-policy.md §9) verbatim,
 * `usage` aside, through one chain per route.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions, type HygieneOptions, type ResolvedHygieneOptions } from '../../lib/options.ts';
import { resolveTranscriptPolicy, type TranscriptPolicy } from '../../lib/policy.ts';
import type { Rule } from '../../lib/rule.ts';
import type { Message } from '../../lib/types.ts';
import { insertGoogleBootstrapTurnRule } from '../../transforms/insert-google-bootstrap-turn.ts';
import { insertBedrockBootstrapTurnRule } from '../../transforms/insert-bedrock-bootstrap-turn.ts';
import { mergeConsecutiveAssistants, mergeConsecutiveAssistantsRule } from '../../transforms/merge-consecutive-assistants.ts';
import { stripDanglingToolCalls, stripDanglingToolCallsRule } from '../../transforms/strip-dangling-tool-calls.ts';
import { mergeConsecutiveUsers, mergeConsecutiveUsersRule } from '../../transforms/merge-consecutive-users.ts';
import { dropBlankUserTextRule } from '../../transforms/drop-blank-user-text.ts';
import { dropBlankTextBlocksRule } from '../../transforms/drop-blank-text-blocks.ts';
import { TEST_NOW, deepFreeze } from '../helpers/build.ts';
import { generateTurns } from '../helpers/random-turns.ts';

interface Entry {
  rule: Rule;
  step: string;
  when: (policy: TranscriptPolicy, options: ResolvedHygieneOptions) => boolean;
}

/** The entries proposed for lib/pipeline.ts STAGES, after step 14. */
const TURN_STAGES: readonly Entry[] = [
  { rule: insertGoogleBootstrapTurnRule, step: '16', when: (policy) => policy.applyGoogleTurnOrdering },
  { rule: insertBedrockBootstrapTurnRule, step: '16', when: (_policy, options) => options.modelApi === 'bedrock-converse-stream' },
  { rule: mergeConsecutiveAssistantsRule, step: 'validate', when: (policy) => policy.validateGeminiTurns || policy.validateAnthropicTurns },
  { rule: stripDanglingToolCallsRule, step: 'validate', when: (policy) => policy.validateAnthropicTurns },
  { rule: mergeConsecutiveUsersRule, step: 'validate', when: (policy) => policy.validateAnthropicTurns && policy.mergeConsecutiveUserTurns },
];

const ROUTES = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' },
  fable: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-fable-5-1' },
  google: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  local: { provider: 'my-local', modelApi: 'openai-completions', modelId: 'qwen3-32b' },
  responses: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  bedrock: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
} satisfies Record<string, HygieneOptions>;

function turnRulesFor(route: HygieneOptions): Rule[] {
  const options = resolveHygieneOptions(route);
  const policy = resolveTranscriptPolicy(options);
  return TURN_STAGES.filter((entry) => entry.when(policy, options)).map((entry) => entry.rule);
}

function run(rules: readonly Rule[], route: HygieneOptions, messages: readonly Message[], extra: HygieneOptions = {}): Message[] {
  const options = resolveHygieneOptions({ ...route, now: () => TEST_NOW, ...extra });
  const output: Message[] = [];
  const chain = createRuleChain(rules, { policy: resolveTranscriptPolicy(options), options, stats: new StatsRecorder() }, (m) => output.push(m));
  try {
    for (const message of messages) chain.write(message);
    chain.end();
  } finally {
    chain.dispose();
  }
  return output;
}

test('which turn rules run for which route', () => {
  const names = (route: HygieneOptions) => turnRulesFor(route).map((rule) => rule.meta.name);
  assert.deepEqual(names(ROUTES.anthropic), ['merge-consecutive-assistants', 'strip-dangling-tool-calls', 'merge-consecutive-users']);
  assert.deepEqual(names(ROUTES.fable), ['merge-consecutive-assistants', 'strip-dangling-tool-calls']);
  assert.deepEqual(names(ROUTES.google), ['insert-google-bootstrap-turn', 'merge-consecutive-assistants']);
  assert.deepEqual(names(ROUTES.local), ['insert-google-bootstrap-turn', 'merge-consecutive-assistants', 'strip-dangling-tool-calls', 'merge-consecutive-users']);
  assert.deepEqual(names(ROUTES.responses), []);
  assert.deepEqual(names(ROUTES.bedrock), ['insert-bedrock-bootstrap-turn', 'merge-consecutive-assistants', 'strip-dangling-tool-calls', 'merge-consecutive-users']);
});

interface Example {
  name: string;
  route: HygieneOptions;
  /** Rules of earlier steps the example needs (blank-text cleanup for E8). */
  before?: Rule[];
  input: unknown[];
  output: unknown[];
}

const pipelineExamples: Example[] = [
  {
    name: 'E3 anthropic-merge',
    route: ROUTES.anthropic,
    input: [{"role":"user","content":"/status","timestamp":1},{"role":"user","content":[{"type":"text","text":"real prompt"}],"timestamp":2,"idempotencyKey":"k2"},{"role":"assistant","content":[{"type":"text","text":"a1"}],"stopReason":"stop","timestamp":3,"model":"m1"},{"role":"assistant","content":[{"type":"text","text":"a2"}],"stopReason":"toolUse","timestamp":4},{"role":"user","content":"next","timestamp":5}],
    output: [{"role":"user","content":[{"type":"text","text":"/status"},{"type":"text","text":"real prompt"}],"timestamp":2,"idempotencyKey":"k2"},{"role":"assistant","content":[{"type":"text","text":"a1"},{"type":"text","text":"a2"}],"stopReason":"toolUse","timestamp":3,"model":"m1"},{"role":"user","content":"next","timestamp":5}],
  },
  {
    name: 'E4 anthropic-appendonly-no-user-merge',
    route: ROUTES.fable,
    input: [{"role":"user","content":"/status","timestamp":1},{"role":"user","content":"real prompt","timestamp":2},{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop","timestamp":3}],
    output: [{"role":"user","content":"/status","timestamp":1},{"role":"user","content":"real prompt","timestamp":2},{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop","timestamp":3}],
  },
  {
    name: 'E5 google-bootstrap-and-merge',
    route: ROUTES.google,
    input: [{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"again"}],"stopReason":"stop","timestamp":2},{"role":"user","content":"q1","timestamp":3},{"role":"user","content":"q2","timestamp":4}],
    output: [{"role":"user","content":"(session bootstrap)","timestamp":TEST_NOW},{"role":"assistant","content":[{"type":"text","text":"hello"},{"type":"text","text":"again"}],"stopReason":"stop","timestamp":1},{"role":"user","content":"q1","timestamp":3},{"role":"user","content":"q2","timestamp":4}],
  },
  {
    name: 'E6 local-completions-bootstrap-both-merges',
    route: ROUTES.local,
    input: [{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1},{"role":"user","content":"q1","timestamp":2},{"role":"user","content":"q2","timestamp":3},{"role":"assistant","content":[{"type":"text","text":"x"}],"stopReason":"stop","timestamp":4},{"role":"assistant","content":[{"type":"text","text":"y"}],"stopReason":"stop","timestamp":5}],
    output: [{"role":"user","content":"(session bootstrap)","timestamp":TEST_NOW},{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1},{"role":"user","content":[{"type":"text","text":"q1"},{"type":"text","text":"q2"}],"timestamp":3},{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}],"stopReason":"stop","timestamp":4}],
  },
  {
    name: 'E7 openai-responses-no-validation',
    route: ROUTES.responses,
    input: [{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"again"}],"stopReason":"stop","timestamp":2},{"role":"user","content":"q1","timestamp":3},{"role":"user","content":"q2","timestamp":4}],
    output: [{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"again"}],"stopReason":"stop","timestamp":2},{"role":"user","content":"q1","timestamp":3},{"role":"user","content":"q2","timestamp":4}],
  },
  {
    name: 'E8 blank-user-and-assistant-dropped (with the step 4 and 5 blank-text rules)',
    route: ROUTES.anthropic,
    before: [dropBlankUserTextRule, dropBlankTextBlocksRule],
    input: [{"role":"user","content":"q","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"  "}],"stopReason":"stop","timestamp":2},{"role":"user","content":[{"type":"text","text":" "},{"type":"text","text":"\n"}],"timestamp":3},{"role":"user","content":"  ","timestamp":4},{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"real"}],"stopReason":"stop","timestamp":5}],
    output: [{"role":"user","content":"q","timestamp":1},{"role":"assistant","content":[{"type":"text","text":"real"}],"stopReason":"stop","timestamp":5}],
  },
];

describe('§9 pipeline examples (the turn steps of the route, in order)', () => {
  for (const example of pipelineExamples) {
    for (const budget of [undefined, 1024]) {
      test(`${example.name} (memoryBudgetBytes ${budget ?? 'default'})`, () => {
        const input = deepFreeze(structuredClone(example.input)) as Message[];
        const rules = [...(example.before ?? []), ...turnRulesFor(example.route)];
        assert.deepStrictEqual(run(rules, example.route, input, { memoryBudgetBytes: budget }), example.output);
      });
    }
  }
});

/** The reference's `validateAnthropicTurns(messages)` (merging users), as the three whole-array cores. */
function validateAnthropicTurns(messages: readonly Message[]): Message[] {
  return mergeConsecutiveUsers(stripDanglingToolCalls(mergeConsecutiveAssistants(messages)));
}
const ANTHROPIC_VALIDATION = [mergeConsecutiveAssistantsRule, stripDanglingToolCallsRule, mergeConsecutiveUsersRule];

const directExamples: Array<Omit<Example, 'route' | 'before'>> = [
  {
    name: 'E12 anthropic-dangling-tool-calls',
    input: [{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"next"},{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read","arguments":{}}],"stopReason":"toolUse"},{"role":"user","content":"again"},{"role":"assistant","content":[{"type":"toolCall","id":"c4","name":"read","arguments":{}}],"stopReason":"aborted"}],
    output: [{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"next"},{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}],"stopReason":"toolUse"},{"role":"user","content":"again"},{"role":"assistant","content":[],"stopReason":"aborted"}],
  },
  {
    name: 'E13 anthropic-dangling-with-thinking',
    input: [{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"sig"},{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"write","arguments":{}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"next"}],
    output: [{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]},{"role":"user","content":"next"}],
  },
  {
    name: 'E14 merge-field-semantics',
    input: [{"role":"user","content":"a","timestamp":1,"provenance":{"kind":"inter_session"},"x":1},{"role":"user","content":[{"type":"text","text":"b"}],"y":2},{"role":"assistant","content":"string content is lost","stopReason":"stop"},{"role":"assistant","content":[{"type":"text","text":"kept"}],"stopReason":"stop","usage":{"input":9}}],
    output: [{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"y":2,"timestamp":1},{"role":"assistant","content":[{"type":"text","text":"kept"}],"stopReason":"stop","usage":{"input":9}}],
  },
];

describe('§9 validateAnthropicTurns examples (the three validation rules alone)', () => {
  for (const example of directExamples) {
    test(example.name, () => {
      const input = deepFreeze(structuredClone(example.input)) as Message[];
      assert.deepStrictEqual(validateAnthropicTurns(input), example.output);
      assert.deepStrictEqual(run(ANTHROPIC_VALIDATION, ROUTES.anthropic, input), example.output);
      assert.deepStrictEqual(run(ANTHROPIC_VALIDATION, ROUTES.anthropic, input, { memoryBudgetBytes: 1024 }), example.output);
    });
  }
});

test('the merged assistant run of E3 reads its stopReason from the last turn, its other fields from the first', () => {
  const out = run(turnRulesFor(ROUTES.anthropic), ROUTES.anthropic, deepFreeze(structuredClone(pipelineExamples[0]!.input)) as Message[]);
  assert.equal(JSON.stringify(out[1]), '{"role":"assistant","content":[{"type":"text","text":"a1"},{"type":"text","text":"a2"}],"stopReason":"toolUse","timestamp":3,"model":"m1"}');
});

describe('the chained rules equal the reference order of whole-array passes on generated inputs', () => {
  // Gemini merge, then validateAnthropicTurns (its own assistant merge, the strip, the user merge):
  // one assistant merge suffices because the merge is idempotent.
  const reference = (messages: readonly Message[]) => validateAnthropicTurns(mergeConsecutiveAssistants(messages));
  for (const budget of [undefined, 1024]) {
    test(`memoryBudgetBytes ${budget ?? 'default'}`, () => {
      for (let seed = 0; seed < 60; seed++) {
        const input = deepFreeze(generateTurns(seed));
        assert.deepStrictEqual(run(ANTHROPIC_VALIDATION, ROUTES.local, input, { memoryBudgetBytes: budget }), reference(input), `seed ${seed}`);
      }
    });
  }
});
