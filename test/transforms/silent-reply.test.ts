import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isSilentReplyPayloadText, SILENT_REPLY_TOKEN } from '../../transforms/silent-reply.ts';

/** Every bullet of spec thinking.md §4.2, then its "Observed (run)" lists verbatim. */
const cases: Array<{ name: string; text: string; silent: boolean }> = [
  // (a) exact: the token, repeated, any case, edge punctuation removed
  { name: '(a) the token', text: 'NO_REPLY', silent: true },
  { name: '(a) lower case with spaces', text: ' no_reply ', silent: true },
  { name: '(a) repeated with a space', text: 'NO_REPLY NO_REPLY', silent: true },
  { name: '(a) repeated across lines and tabs', text: 'NO_REPLY\nNO_REPLY\tno_reply', silent: true },
  { name: '(a) trailing full stop', text: 'NO_REPLY.', silent: true },
  { name: '(a) lower case with trailing full stop', text: 'no_reply.', silent: true },
  { name: '(a) markdown bold (asterisks are punctuation)', text: '**NO_REPLY**', silent: true },
  { name: '(a) leading and trailing punctuation runs', text: '...NO_REPLY!!', silent: true },
  { name: '(a) brackets and quotes are punctuation', text: '«NO_REPLY»', silent: true },
  { name: '(a) inverted exclamation mark', text: '¡NO_REPLY!', silent: true },
  { name: '(a) underscores are punctuation', text: '_NO_REPLY_', silent: true },
  { name: '(a) a backtick is a symbol, not punctuation', text: '`NO_REPLY`', silent: false },
  { name: '(a) an emoji after the token', text: 'NO_REPLY ✅', silent: false },
  { name: '(a) a zero-width space is not whitespace', text: 'NO_REPLY\u200b', silent: false },
  { name: '(a) no-break spaces around the token', text: '\u00a0NO_REPLY\u00a0', silent: true },
  { name: '(a) words after the token', text: 'NO_REPLY because', silent: false },
  { name: '(a) a space inside the token', text: 'NO REPLY', silent: false },
  { name: '(a) no underscore', text: 'NOREPLY', silent: false },
  { name: '(a) another token', text: 'HEARTBEAT_OK', silent: false },
  { name: '(a) empty', text: '', silent: false },
  { name: '(a) blank', text: '  \n ', silent: false },
  // (b) JSON string
  { name: '(b) a JSON string', text: '"NO_REPLY"', silent: true },
  { name: '(b) a JSON string with padding inside', text: '" NO_REPLY "', silent: true },
  { name: '(b) a JSON string with an escaped newline', text: '"NO_REPLY\\n"', silent: true },
  { name: '(b) a lower-case JSON string matches (a) after punctuation removal', text: '"no_reply"', silent: true },
  { name: '(b) an unterminated JSON string still matches (a)', text: '"NO_REPLY', silent: true },
  // (c) envelope
  { name: '(c) an action envelope', text: '{"action":"NO_REPLY"}', silent: true },
  { name: '(c) an action envelope with spaces', text: '{ "action" : "NO_REPLY" }', silent: true },
  { name: '(c) a padded action value', text: '{"action":" NO_REPLY "}', silent: true },
  { name: '(c) a lower-case action value', text: '{"action":"no_reply"}', silent: false },
  { name: '(c) a second key', text: '{"action":"NO_REPLY","x":1}', silent: false },
  { name: '(c) another key name', text: '{"Action":"NO_REPLY"}', silent: false },
  { name: '(c) a JSON array', text: '["NO_REPLY"]', silent: true },
  // (d) reasoning-prefixed: closed tags
  { name: '(d) a think block then the token', text: '<think>x</think> NO_REPLY', silent: true },
  { name: '(d) two blocks, no space', text: '<think>x</think><think>y</think>NO_REPLY', silent: true },
  { name: '(d) a thinking block', text: '<thinking>a</thinking> NO_REPLY', silent: true },
  { name: '(d) an mm:think block', text: '<mm:think>a</mm:think> NO_REPLY', silent: true },
  { name: '(d) a thought block', text: '<thought>a</thought>NO_REPLY', silent: true },
  { name: '(d) an antthinking block', text: '<antthinking>a</antthinking> NO_REPLY', silent: true },
  { name: '(d) spaces inside the tags', text: '< think >a</ think > NO_REPLY', silent: true },
  { name: '(d) attributes on the opening tag', text: '<think foo=1>a</think> NO_REPLY', silent: true },
  { name: '(d) an unknown tag name', text: '<thinkx>a</thinkx> NO_REPLY', silent: false },
  { name: '(d) a block then a quoted token (quotes are punctuation, so (a))', text: '<think>a</think> "NO_REPLY"', silent: true },
  { name: '(d) a block then an envelope is not (a)', text: '<think>a</think> {"action":"NO_REPLY"}', silent: false },
  { name: '(d) a block then bold token', text: '<think>a</think> **NO_REPLY**', silent: true },
  { name: '(d) a block, a silent-intent sentence, the token', text: '<thinking>a</thinking>\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) a block, a long silent-intent sentence', text: '<think>a</think> We will remain silent in this chat. NO_REPLY', silent: true },
  { name: '(d) a block, silent intent on its own line', text: "<think>a</think> I'll stay quiet\nNO_REPLY", silent: true },
  { name: '(d) a block, then an answer and the token', text: '<think>a</think> Sure. NO_REPLY', silent: false },
  { name: '(d) a block, a dot glued to the token', text: '<think>a</think> .NO_REPLY', silent: true },
  { name: '(d) a block, an asterisk glued to the token', text: '<think>a</think>*NO_REPLY', silent: true },
  // (d) unclosed opening tag
  { name: '(d) an unclosed tag then the token', text: '<think>NO_REPLY', silent: true },
  { name: '(d) an unclosed tag, notes ending in the token', text: '<think>plan NO_REPLY', silent: false },
  { name: '(d) an unclosed tag, notes then silent intent', text: '<think>The user thanked me.\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) an unclosed tag, silent intent, token on its own line', text: '<think>The user thanked me.\nI will stay quiet.\nNO_REPLY', silent: true },
  { name: '(d) an unclosed tag, a substantive cue before the intent', text: '<think>Please check.\nI will stay quiet. NO_REPLY', silent: false },
  { name: '(d) an unclosed tag, a reasoning label', text: '<think>internal notes NO_REPLY', silent: false },
  { name: '(d) an unclosed tag, a bare reasoning label', text: '<think>reasoning NO_REPLY', silent: true },
  { name: '(d) an unclosed tag, "private thoughts note"', text: '<think>private thoughts note NO_REPLY', silent: true },
  { name: '(d) an unclosed tag, an answer on the line before', text: '<think>Sure.\nNO_REPLY', silent: false },
  // (d) plain prefix line
  { name: '(d) Thinking: then the token', text: 'Thinking:\nNO_REPLY', silent: true },
  { name: '(d) reasoning, silent intent, the token', text: 'reasoning\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) analysis: then the token', text: 'analysis:\nNO_REPLY', silent: true },
  { name: '(d) the prefix line must end at a line break', text: 'Reasoning: plan\nNO_REPLY', silent: false },
  { name: '(d) spaces around the colon', text: 'Thought : \n NO_REPLY', silent: true },
  { name: '(d) a CRLF after the prefix', text: 'thinking: \r\nNO_REPLY', silent: true },
  { name: '(d) a blank line after the prefix', text: 'analysis\n\nNO_REPLY', silent: true },
  { name: '(d) notes then a silent-intent line', text: 'Thinking:\nThe user said thanks.\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) a cue ("sure") in the notes', text: 'Thinking:\nsure thing\nI will stay quiet. NO_REPLY', silent: false },
  { name: '(d) a cue ("yes") in the notes', text: 'Thinking:\nYes.\nI will stay quiet. NO_REPLY', silent: false },
  { name: '(d) a cue ("no,") in the notes', text: 'Thinking:\nno,thanks\nI will stay quiet. NO_REPLY', silent: false },
  { name: '(d) "no, thanks" is no cue: `\\b` after the comma needs a word character', text: 'Thinking:\nno, thanks\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) "no" without a comma is not a cue', text: 'Thinking:\nno thanks\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) blank lines between notes and intent', text: 'Thinking:\nok\n\nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) whitespace-only line before the intent', text: 'Thinking:\nfoo\n   \nI will stay quiet. NO_REPLY', silent: true },
  { name: '(d) a leading blank line in the notes', text: 'Thinking:\n\nfoo\nI will stay quiet.\n\nNO_REPLY', silent: true },
  { name: '(d) the intent line is not the last', text: 'Thinking:\nI will stay quiet.\nfoo NO_REPLY', silent: false },
  { name: '(d) a label-only remainder', text: 'reasoning\nanalysis notes NO_REPLY', silent: true },
  { name: '(d) arbitrary words before the token', text: 'reasoning\nsome words NO_REPLY', silent: false },
  { name: '(d) "I have nothing to add"', text: 'reasoning\nI have nothing to add NO_REPLY', silent: true },
  { name: '(d) "The bot has nothing to say."', text: 'reasoning\nThe bot has nothing to say.\nNO_REPLY', silent: true },
  { name: '(d) "the assistant should not respond in this thread"', text: 'reasoning\nthe assistant should not respond in this thread NO_REPLY', silent: true },
  { name: '(d) "openclaw won\'t reply here."', text: "reasoning\nopenclaw won't reply here. NO_REPLY", silent: true },
  { name: '(d) "I\'ll stay silent for now"', text: "reasoning\n I'll stay silent for now NO_REPLY ", silent: true },
  { name: '(d) the token repeated after the prefix', text: 'reasoning\nNO_REPLY NO_REPLY', silent: true },
  { name: '(d) bold token after the prefix', text: 'reasoning\n**NO_REPLY**', silent: true },
  { name: '(d) a word glued by * is not a final token', text: 'reasoning\nfoo*NO_REPLY', silent: false },
  { name: '(d) a word glued by _ is not a final token', text: 'reasoning\nfoo_NO_REPLY', silent: false },
  // no prefix at all
  { name: 'silent intent without a reasoning prefix', text: 'I will stay quiet. NO_REPLY', silent: false },
  { name: 'an answer then the token', text: 'Sure. NO_REPLY', silent: false },
  { name: 'a word on the line before the token', text: 'x\nNO_REPLY', silent: false },
  { name: 'the token then a word on the next line', text: 'NO_REPLY\nx', silent: false },
];

for (const c of cases) {
  test(`isSilentReplyPayloadText: ${c.name}`, () => {
    assert.equal(isSilentReplyPayloadText(c.text), c.silent);
    assert.equal(isSilentReplyPayloadText(c.text.trim()), c.silent, 'trimmed first');
  });
}

test('isSilentReplyPayloadText: the default token is NO_REPLY', () => {
  assert.equal(SILENT_REPLY_TOKEN, 'NO_REPLY');
  assert.equal(isSilentReplyPayloadText('NO_REPLY', SILENT_REPLY_TOKEN), true);
});

test('isSilentReplyPayloadText: another token replaces NO_REPLY in every form', () => {
  const token = 'HEARTBEAT_OK';
  assert.equal(isSilentReplyPayloadText('heartbeat_ok.', token), true);
  assert.equal(isSilentReplyPayloadText('"HEARTBEAT_OK"', token), true);
  assert.equal(isSilentReplyPayloadText('{"action":"HEARTBEAT_OK"}', token), true);
  assert.equal(isSilentReplyPayloadText('<think>x</think> HEARTBEAT_OK', token), true);
  assert.equal(isSilentReplyPayloadText('reasoning\nI will stay quiet. HEARTBEAT_OK', token), true);
  assert.equal(isSilentReplyPayloadText('NO_REPLY', token), false);
});

test('isSilentReplyPayloadText: a token with regex characters is matched literally', () => {
  assert.equal(isSilentReplyPayloadText('A.B', 'A.B'), true);
  assert.equal(isSilentReplyPayloadText('AxB', 'A.B'), false);
  assert.equal(isSilentReplyPayloadText('(x)+', '(x)+'), true);
});

test('isSilentReplyPayloadText: the presence gate finds the token in any case, among other underscores', () => {
  assert.equal(isSilentReplyPayloadText('No_RePlY'), true);
  assert.equal(isSilentReplyPayloadText('snake_case and more_words\nno_reply.'), false);
  assert.equal(isSilentReplyPayloadText('reasoning\nmy_var is set.\nI will stay quiet. nO_rEpLy'), true);
  assert.equal(isSilentReplyPayloadText('_NO_'), false);
  assert.equal(isSilentReplyPayloadText('NO_REPL'), false);
  assert.equal(isSilentReplyPayloadText('hello', 'HELLO'), true, 'a token without a caseless character');
  assert.equal(isSilentReplyPayloadText('é', 'É'), true, 'a non-ASCII token folds as a case-insensitive regex does');
});

test('isSilentReplyPayloadText: non-strings and an empty token are never silent', () => {
  for (const value of [undefined, null, 5, {}, ['NO_REPLY'], { text: 'NO_REPLY' }]) assert.equal(isSilentReplyPayloadText(value), false);
  assert.equal(isSilentReplyPayloadText('NO_REPLY', ''), false);
});

test('isSilentReplyPayloadText: a long text without the token is not silent (fast path)', () => {
  const long = 'All good, thanks for the update. '.repeat(200_000);
  const start = process.hrtime.bigint();
  assert.equal(isSilentReplyPayloadText(long), false);
  assert.ok(Number(process.hrtime.bigint() - start) < 200e6, 'a single scan, well under 200 ms for 6.6 MB');
});

interface Recorded {
  silent: Array<[string, boolean]>;
}
const recorded = JSON.parse(readFileSync(new URL('../../fixtures/oracle/assistant-replay-text.json', import.meta.url), 'utf8')) as Recorded;

test('isSilentReplyPayloadText: agrees with every answer recorded from the reference', () => {
  assert.ok(recorded.silent.length >= 90);
  for (const [text, silent] of recorded.silent) {
    assert.equal(isSilentReplyPayloadText(text.trim()), silent, JSON.stringify(text));
  }
});
