import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { projectDisplayRule, projectForDisplay } from '../../transforms/project-display.ts';
import { INTER_SESSION_MARKER_EXPLANATION } from '../../transforms/annotate-inter-session-provenance.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, image, text, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const CTX_BEGIN = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';
const CTX_END = '<<<END_OPENCLAW_INTERNAL_CONTEXT>>>';
const SAME = Symbol('same object');

/** E24, verbatim (turns-images-policy.md §9). */
const E24_IN: Message[] = [
  {"role":"user","content":"[WebChat 2026-01-05T10:00Z] What is the weather?\n\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nOpenClaw runtime context for the immediately preceding user message.\nThis context is runtime-generated, not user-authored. Keep internal details private.\ncurrent time: 10:00\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n[message_id: 991]"},
  {"role":"user","content":[{"type":"text","text":"Sender: ⟦openclaw:ctx⟧\n```json\n{\"label\":\"Ann (@ann)\"}\n```\n\nhello bot\n\nContext: ⟦openclaw:ctx⟧\nchannel: #general"}]},
  {"role":"assistant","content":[{"type":"text","text":"Delivery: to send a message, use the `message` tool.\n[WebChat 2026-01-05T10:00Z] sure"}]},
];
const E24_OUT: Message[] = [
  {"role":"user","content":"What is the weather?\n"},
  {"role":"user","content":[{"type":"text","text":"hello bot"}],"senderLabel":"Ann (@ann)"},
  {"role":"assistant","content":[{"type":"text","text":"[WebChat 2026-01-05T10:00Z] sure"}]},
];

const marker = (fields: string) => `[Inter-session message] ${fields}isUser=false\n${INTER_SESSION_MARKER_EXPLANATION}`;

const cases: Array<{ name: string; input: Message; expected: Message | typeof SAME }> = [
  { name: 'E24 user string: envelope, runtime context and message id line removed', input: E24_IN[0]!, expected: E24_OUT[0]! },
  { name: 'E24 user blocks: metadata blocks removed, sender label set', input: E24_IN[1]!, expected: E24_OUT[1]! },
  { name: 'E24 assistant: delivery hint removed, channel envelope kept (steps 1-2 only)', input: E24_IN[2]!, expected: E24_OUT[2]! },
  { name: 'a plain user turn is the same object', input: user('hello', { timestamp: 1 }), expected: SAME },
  { name: 'user-authored brackets survive', input: user('[note] keep me'), expected: SAME },
  {
    name: 'a delimited runtime-context block between two texts',
    input: user(`before\n${CTX_BEGIN}\nsecret\n${CTX_END}\nafter`),
    expected: user('before\n\nafter'),
  },
  { name: 'a leading inbound timestamp prefix', input: user('[Mon 2026-01-05 10:00 UTC] hi'), expected: user('hi') },
  { name: 'a channel envelope naming the channel', input: user('[Telegram Ann] hello'), expected: user('hello') },
  { name: 'an assistant keeps its channel envelope', input: assistant([text('[WebChat 2026-01-05T10:00Z] sure')]), expected: SAME },
  {
    name: 'an assistant loses runtime context',
    input: assistant([text(`answer\n\n${CTX_BEGIN}\nsecret\n${CTX_END}`)]),
    expected: assistant([text('answer')]),
  },
  {
    name: 'a forwarded inter-session user turn loses its marker, keeps its role and provenance',
    input: user(`${marker('sourceTool=sessions_send ')}\nPlease summarize.`, { provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } }),
    expected: user('Please summarize.', { provenance: { kind: 'inter_session', sourceTool: 'sessions_send' } }),
  },
  {
    name: 'a forwarded turn with blocks: the marker goes from the first text block',
    input: user([text(`${marker('')}\nInter-session content follows.`), image()], { provenance: { kind: 'inter_session' } }),
    expected: user([text('Inter-session content follows.'), image()], { provenance: { kind: 'inter_session' } }),
  },
  {
    name: 'a forwarded turn: only the first text loses a marker (a quoted one later stays)',
    input: user([text(`${marker('')}\nfirst`), text(`quoting:\n${marker('')}\nold`)], { provenance: { kind: 'inter_session' } }),
    expected: user([text('first'), text(`quoting:\n${marker('')}\nold`)], { provenance: { kind: 'inter_session' } }),
  },
  { name: 'a marker without inter-session provenance is left alone', input: user(`${marker('')}\nbody`), expected: SAME },
  { name: 'an input_text block is read too', input: user([{ type: 'input_text', text: '[Telegram Ann] hi' }]), expected: user([{ type: 'input_text', text: 'hi' }]) },
  { name: 'a `text` field on the message is read too', input: { role: 'user', text: '[Telegram Ann] hi', content: [] }, expected: { role: 'user', text: 'hi', content: [] } },
  { name: 'blocks without text are left alone', input: user([image(), { type: 'text', text: 5 }] as never), expected: SAME },
  { name: 'tool results are left alone', input: toolResult('c', [text('[Telegram Ann] hi')]), expected: SAME },
  { name: 'other roles are left alone', input: { role: 'custom', content: '[Telegram Ann] hi' }, expected: SAME },
];

describe('projectForDisplay', () => {
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const out = projectForDisplay(input);
      if (c.expected === SAME) {
        assert.equal(out, input);
        return;
      }
      assert.notEqual(out, input);
      assert.deepStrictEqual(out, c.expected);
      assert.equal(projectForDisplay(deepFreeze(out)), out, 'a projected message projects to itself');
    });
  }
});

test('untouched blocks keep their identity', () => {
  const img = image();
  const input = deepFreeze(user([text('[Telegram Ann] hi'), img]));
  const out = projectForDisplay(input);
  assert.equal((out.content as unknown[])[1], img);
});

test('E24 as a one-rule pipeline, with counts', () => {
  const { output, counts } = runRule(projectDisplayRule, deepFreeze(structuredClone(E24_IN)));
  assert.deepStrictEqual(output, E24_OUT);
  assert.deepStrictEqual(counts, { projected: 3, senderLabels: 1 });
});

test('rule: untouched messages are the same objects and count nothing', () => {
  const input = deepFreeze([user('q'), assistant([text('a')]), toolResult('c', [text('ok')])]);
  const { output, counts } = runRule(projectDisplayRule, input);
  output.forEach((message, i) => assert.equal(message, input[i]));
  assert.deepStrictEqual(counts, {});
});

test('rule meta', () => {
  assert.equal(projectDisplayRule.unit, 'message');
  assert.equal(projectDisplayRule.meta.name, 'project-display');
  assert.deepEqual(projectDisplayRule.meta.counters, ['projected', 'senderLabels']);
});
