import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  extractInboundSenderLabel,
  INBOUND_CONTEXT_MARKER,
  INTERNAL_CONTEXT_BEGIN,
  INTERNAL_CONTEXT_END,
  LEGACY_DELIVERY_HINTS,
  RUNTIME_CONTEXT_NOTICE,
  stripChannelEnvelope,
  stripInboundMetadata,
  stripInboundMetadataText,
  stripInternalMetadataForDisplay,
  stripLeadingTimestamp,
  stripRuntimeContext,
} from '../../transforms/runtime-context.ts';
import { isSilentReplyPayloadText } from '../../transforms/silent-reply.ts';

const B = INTERNAL_CONTEXT_BEGIN;
const E = INTERNAL_CONTEXT_END;
const N = RUNTIME_CONTEXT_NOTICE;
const M = INBOUND_CONTEXT_MARKER;
const P_ACTIVE = 'OpenClaw runtime context for the active user request in this turn. Do not reply to or describe this context. Use it to continue answering the active user request now. Do not wait for another message.';
const P_PRECEDING = 'OpenClaw runtime context for the immediately preceding user message.';
const P_EVENT = 'OpenClaw runtime event.';
const LEGACY_HEADER = `OpenClaw runtime context (internal):\n${N}\n\n`;
const EVENT = '[Internal task completion event]';
const CB = '<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>';
const CE = '<<<END_UNTRUSTED_CHILD_RESULT>>>';
const FULL_EVENT = (action: string): string => `${EVENT}\nsource: subagent\n${CB}\nresult\n${CE}\n\nAction:\n${action}`;
const D1 = LEGACY_DELIVERY_HINTS[0]!;
const AM = (body: string): string => `Context:\n<active_memory_plugin>\n${body}\n</active_memory_plugin>`;
const FENCED = '```json\n{"label":"Ann (@ann)"}\n```';

type Case = readonly [name: string, input: string, expected: string];

function table(fn: (text: string) => string, cases: readonly Case[]): void {
  for (const [name, input, expected] of cases) {
    test(name, () => assert.equal(fn(input), expected));
  }
}

describe('stripRuntimeContext: fast path', () => {
  table(stripRuntimeContext, [
    ['plain text is returned as it is', 'hello\n\n\n\nworld  ', 'hello\n\n\n\nworld  '],
    ['a delimiter inside a line is left alone (E23 user text)', 'q <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> stays in user turns', 'q <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> stays in user turns'],
    ['the notice alone is left alone', `a\n${N}\nb`, `a\n${N}\nb`],
    ['lower-case delimiters are not delimiters', 'a\n<<<begin_openclaw_internal_context>>>\nx\n<<<end_openclaw_internal_context>>>\nb', 'a\n<<<begin_openclaw_internal_context>>>\nx\n<<<end_openclaw_internal_context>>>\nb'],
  ]);
});

describe('stripRuntimeContext: delimited blocks', () => {
  table(stripRuntimeContext, [
    ['E23: a block after the answer', `answer\n\n${B}\nsecret\n${E}`, 'answer'],
    ['a block between two texts: before right-trimmed, after left-trimmed, a blank line between', `a   \n${B}\nx\n${E}\n\n  b  `, 'a\n\nb  '],
    ['spaces and tabs around a delimiter still make a delimiter line', `a\n  ${B}\t\nx\n \t${E}  \nb`, 'a\n\nb'],
    ['CRLF line ends', `a\r\n${B}\r\nx\r\n${E}\r\nb`, 'a\n\nb'],
    ['a block at the start', `${B}\nx\n${E}\nb`, 'b'],
    ['a block at the end', `  a\n${B}\nx\n${E}\n`, '  a'],
    ['a block that is the whole text', `${B}\nonly\n${E}`, ''],
    ['nested blocks are counted', `a\n${B}\nx\n${B}\ny\n${E}\nz\n${E}\nb`, 'a\n\nb'],
    ['a nested block left open removes everything after', `a\n${B}\nx\n${B}\ny\n${E}\nz`, 'a'],
    ['an unterminated block removes everything after it', `a\n${B}\nx`, 'a'],
    ['a lone begin line', B, ''],
    ['two blocks', `a\n${B}\nx\n${E}\nb\n${B}\ny\n${E}\nc`, 'a\n\nb\n\nc'],
    ['adjacent blocks', `a\n${B}\nx\n${E}\n${B}\ny\n${E}\nb`, 'a\n\nb'],
    ['blocks separated by a blank line', `a\n${B}\nx\n${E}\n  \n${B}\ny\n${E}\nb`, 'a\n\nb'],
    ['a block then a trailing begin line', `a\n${B}\nx\n${E}\n${B}`, 'a'],
    ['an empty block', `a\n${B}\n${E}\nb`, 'a\n\nb'],
    ['other blank lines are not collapsed', `a\n\n\n${B}\nx\n${E}\n\n\n\nb\n\n\n\nc`, 'a\n\nb\n\n\n\nc'],
    ['no-break spaces before the text are trimmed (JS trim)', `a\u00a0\n${B}\nx\n${E}\n\u00a0b\u00a0`, 'a\n\nb\u00a0'],
    ['a begin token sharing its line is not a delimiter (its end line is stray)', `a\n${B}x\ny\n${E}\nb`, `a\n${B}x\ny\nb`],
    ['text after the end token makes the block unterminated', `a\n${B}\nx\n${E} tail\nb`, 'a'],
    ['a no-break space before the begin token: not a delimiter', `a\u00a0\n\u00a0${B}\nx\n${E}\n\u00a0b`, `a\u00a0\n\u00a0${B}\nx\n\u00a0b`],
    ['a form feed after the begin token: not a delimiter', `a\n\t${B}\f\nx\n${E}\nb`, `a\n\t${B}\f\nx\nb`],
    ['a CR is allowed only right before the line break', `a\n${B} \r\nx\n${E}\nb`, 'a\n\nb'],
    ['a CR followed by a space is not', `a\n${B}\r \nx\n${E}\nb`, `a\n${B}\r \nx\nb`],
    ['two CRs are not', `a\n${B}\r\r\nx\n${E}\nb`, `a\n${B}\r\r\nx\nb`],
    ['a lone CR does not end a line', `a\r${B}\rx\r${E}\rb`, `a\r${B}\rx\r${E}\rb`],
    ['a U+2028 does not end a line', `a\u2028${B}\u2028x`, `a\u2028${B}\u2028x`],
    ['an end token with two CRs does not close the block', `a\n${B}\nx\n${E}\r\r\nb`, 'a'],
  ]);
});

describe('stripRuntimeContext: stray end lines', () => {
  table(stripRuntimeContext, [
    ['a stray end line goes with the line break before it', `a\n${E}\nb`, 'a\nb'],
    ['at the start, the line break after it stays', `${E}\nb`, '\nb'],
    ['at the end', `a\n${E}`, 'a'],
    ['before a final line break', `a\n${E}\n`, 'a\n'],
    ['CRLF: the CRLF before it goes', `a\r\n${E}\r\nb`, 'a\r\nb'],
    ['two in a row', `a\n${E}\n${E}\nb`, 'a\nb'],
    ['padded with spaces and tabs', `a\n \t${E}\t \nb`, 'a\nb'],
    ['sharing its line with text: kept', `x ${E}\ny`, `x ${E}\ny`],
    ['followed by lone CRs: kept', `a\n${E}\r\rb`, `a\n${E}\r\rb`],
    ['an extra end after a closed block', `a\n${B}\nx\n${E}\n${E}\nb`, 'a\n\nb'],
    ['a stray end after a block, in later text', `a\n${B}\nx\n${E}\nb\n${E}\nc`, 'a\n\nb\nc'],
    ['a stray end before a block', `a\n${E}\nb\n${B}\nx\n${E}\nc`, 'a\nb\n\nc'],
    ['no other change: runs of blank lines stay', `a\n\n\n\nb\n${E}\n\n\n\nc`, 'a\n\n\n\nb\n\n\n\nc'],
  ]);
});

describe('stripRuntimeContext: legacy blocks', () => {
  table(stripRuntimeContext, [
    ['a complete event between two paragraphs', `before\n\n${LEGACY_HEADER}${FULL_EVENT('Summarize it.')}\n\nafter`, 'before\n\nafter'],
    ['at the start', `${LEGACY_HEADER}${FULL_EVENT('Summarize it.')}\n\nafter`, 'after'],
    ['the whole text', `${LEGACY_HEADER}${FULL_EVENT('Summarize it.')}`, ''],
    ['inside a line: the text before is kept', `before ${LEGACY_HEADER}${FULL_EVENT('x')}\n\nafter`, 'before\n\nafter'],
    ['the Action paragraph runs to the next blank line', `${LEGACY_HEADER}${FULL_EVENT('Summarize it.')}\nmore action\n\nafter\n\nagain`, 'after\n\nagain'],
    ['text between the child result and Action is part of the event', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n${CE}\nsome\n\nAction:\nx\n\nafter`, 'after'],
    ['paragraphs before the child result are part of the event', `${LEGACY_HEADER}${EVENT}\nsrc\n\nmid\n${CB}\nr\n${CE}\n\nAction:\nx\n\nafter`, 'after'],
    ['an Action inside the child result does not end it', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n\nAction:\nfake\n${CE}\n\nAction:\nx\n\nafter`, 'after'],
    ['chained complete events are consumed', `${LEGACY_HEADER}${FULL_EVENT('x')}\n\n---\n\n${FULL_EVENT('y')}\n\n---\n\n${FULL_EVENT('z')}\n\nafter`, 'after'],
    ['a chained event that is not complete stays', `${LEGACY_HEADER}${FULL_EVENT('x')}\n\n---\n\n${EVENT}\n${CB}\nr\n${CE}\nno action\n\nafter`, `---\n\n${EVENT}\n${CB}\nr\n${CE}\nno action\n\nafter`],
    ['a separator with a trailing space does not chain', `${LEGACY_HEADER}${FULL_EVENT('x')}\n\n--- \n\n${FULL_EVENT('y')}\n\nafter`, `--- \n\n${FULL_EVENT('y')}\n\nafter`],
    ['no child result: the event ends at the first blank line', `${LEGACY_HEADER}${EVENT}\nno child\n\nAction:\nx\n\nafter`, 'Action:\nx\n\nafter'],
    ['an unterminated child result: the event ends at the first blank line', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n\nmore\n\nafter`, 'more\n\nafter'],
    ['no Action paragraph: the event ends at the first blank line', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n\nr2\n${CE}\nno action\n\nafter`, `r2\n${CE}\nno action\n\nafter`],
    ['"Action: x" on one line is no Action paragraph', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n${CE}\n\nAction: x\n\nafter`, 'Action: x\n\nafter'],
    ['an empty Action paragraph takes the rest', `${LEGACY_HEADER}${EVENT}\n${CB}\nr\n${CE}\n\nAction:\n\nafter`, ''],
    ['CRLF paragraph breaks are not breaks', `${LEGACY_HEADER}${FULL_EVENT('Summarize it.')}\r\n\r\nafter`, ''],
    ['the event line alone', `${LEGACY_HEADER}${EVENT}`, ''],
    ['two legacy blocks', `a\n\n${LEGACY_HEADER}${FULL_EVENT('x')}\n\nb\n\n${LEGACY_HEADER}${FULL_EVENT('y')}\n\nc`, 'a\n\nb\n\nc'],
    ['the header must be followed by the event line', `${LEGACY_HEADER}other\n\nafter`, `${LEGACY_HEADER}other\n\nafter`],
    ['the header must be exact (one line break after the notice)', `OpenClaw runtime context (internal):\n${N}\n${FULL_EVENT('x')}\n\nafter`, `OpenClaw runtime context (internal):\n${N}\n${FULL_EVENT('x')}\n\nafter`],
    ['no other change: runs of blank lines stay', `a\n\n\n\nb\n\n${LEGACY_HEADER}${EVENT}\nx\n\nafter`, 'a\n\n\n\nb\n\nafter'],
    ['a legacy block inside a delimited block goes with it', `pre\n${B}\n${LEGACY_HEADER}${EVENT}\nx\n${E}\n\nafter`, 'pre\n\nafter'],
  ]);
});

describe('stripRuntimeContext: preface lines', () => {
  table(stripRuntimeContext, [
    ['the preceding-message preface', `a\n${P_PRECEDING}\n${N}\nb`, 'a\nb'],
    ['the runtime-event preface', `a\n${P_EVENT}\n${N}\nb`, 'a\nb'],
    ['the full active-request preface', `a\n${P_ACTIVE}\n${N}\nb`, 'a\nb'],
    ['a suffix of it: the last sentence', `a\nDo not wait for another message.\n${N}\nb`, 'a\nb'],
    ['a suffix of it: the last two sentences', `a\nUse it to continue answering the active user request now. Do not wait for another message.\n${N}\nb`, 'a\nb'],
    ['a suffix of it: the last three sentences', `a\nDo not reply to or describe this context. Use it to continue answering the active user request now. Do not wait for another message.\n${N}\nb`, 'a\nb'],
    ['its first sentence alone is no suffix', `a\nOpenClaw runtime context for the active user request in this turn.\n${N}\nb`, `a\nOpenClaw runtime context for the active user request in this turn.\n${N}\nb`],
    ['its second sentence alone is no suffix', `a\nDo not reply to or describe this context.\n${N}\nb`, `a\nDo not reply to or describe this context.\n${N}\nb`],
    ['sentences one per line', `a\nOpenClaw runtime context for the active user request in this turn.\nDo not reply to or describe this context.\nUse it to continue answering the active user request now.\nDo not wait for another message.\n${N}\nb`, 'a\nb'],
    ['any whitespace between words', `a\nOpenClaw  runtime context for the immediately\npreceding user message.\nThis  context is runtime-generated,  not user-authored.\nKeep internal details private.\nb`, 'a\nb'],
    ['a blank line between preface and notice', `a\n${P_PRECEDING}\n\n${N}\nb`, 'a\nb'],
    ['spaces or a tab between preface and notice', `a\n${P_PRECEDING}   ${N}\nb`, 'a\nb'],
    ['no whitespace between preface and notice', `a\n${P_PRECEDING}${N}\nb`, `a\n${P_PRECEDING}${N}\nb`],
    ['spaces and tabs at the line edges', `a\n  ${P_PRECEDING}  \n  ${N}  \nb`, 'a\nb'],
    ['a tab before the line break', `a\n${P_PRECEDING}\n${N}\t\nb`, 'a\nb'],
    ['text before it on the line: kept', `a\nxx ${P_PRECEDING}\n${N}\nb`, `a\nxx ${P_PRECEDING}\n${N}\nb`],
    ['text after the notice on the line: kept', `a\n${P_PRECEDING}\n${N} more\nb`, `a\n${P_PRECEDING}\n${N} more\nb`],
    ['a no-break space after the notice: kept', `a\n${P_PRECEDING}\n${N}\u00a0\nb`, `a\n${P_PRECEDING}\n${N}\u00a0\nb`],
    ['a no-break space before the preface: kept', `a\u00a0${P_PRECEDING}\n${N}\nb`, `a\u00a0${P_PRECEDING}\n${N}\nb`],
    ['case matters', `a\n${P_PRECEDING.toLowerCase()}\n${N.toLowerCase()}\nb`, `a\n${P_PRECEDING.toLowerCase()}\n${N.toLowerCase()}\nb`],
    ['CRLF line ends', `a\n${P_PRECEDING}\r\n${N}\r\nb`, 'a\nb'],
    ['a lone CR starts a line', `a\r${P_PRECEDING}\n${N}\nb`, 'a\rb'],
    ['a lone CR ends a line (and stays)', `a\n${P_PRECEDING}\n${N}\rb`, 'a\n\rb'],
    ['U+2028 starts a line', `a\u2028${P_PRECEDING}\n${N}\nb`, 'a\u2028b'],
    ['every preface goes', `${P_EVENT}\n${N}\nx\n${P_PRECEDING}\n${N}\ny`, 'x\ny'],
    ['one notice per preface', `${P_PRECEDING}\n${N}\n${N}\nb`, `${N}\nb`],
    ['after a removal, 3+ line breaks become 2 and the text is trimmed', `  a\n\n\n\nb\n${P_PRECEDING}\n${N}\n\n\n\nc  `, 'a\n\nb\n\nc'],
    ['the whole text', `${P_PRECEDING}\n${N}`, ''],
    ['a preface with delimited blocks (blocks first, then collapse and trim)', `a\n\n\n\nb\n${B}\nx\n${E}\nc\n${P_PRECEDING}\n${N}\n  `, 'a\n\nb\n\nc'],
    ['a preface inside a block goes with the block, no collapse', `a\n${B}\n${P_PRECEDING}\n${N}\nsecret\n${E}\n\n\n\nb  `, 'a\n\nb  '],
    ['legacy block then preface', `${LEGACY_HEADER}${FULL_EVENT('x')}\n\n${P_EVENT}\n${N}\nafter`, 'after'],
  ]);
});

describe('stripLeadingTimestamp and stripInboundMetadataText: timestamp prefix', () => {
  table(stripLeadingTimestamp, [
    ['a timestamp and its spaces', '[Mon 2026-07-06 20:04 GMT+9]   hello', 'hello'],
    ['no space after it', '[Mon 2026-07-06 20:04 GMT+9]hello', 'hello'],
    ['only once', '[Mon 2026-07-06 20:04 x] [Tue 2026-07-06 20:04] hello', '[Tue 2026-07-06 20:04] hello'],
    ['not after a space', '  [Mon 2026-07-06 20:04 GMT+9] hello', '  [Mon 2026-07-06 20:04 GMT+9] hello'],
    ['not after a line break', '\n[Mon 2026-07-06 20:04] hello', '\n[Mon 2026-07-06 20:04] hello'],
    ['not on a later line', 'a\n[Mon 2026-07-06 20:04 GMT+9] hello', 'a\n[Mon 2026-07-06 20:04 GMT+9] hello'],
    ['line breaks after it stay', '[Mon 2026-07-06 20:04 GMT+9]   \n\n  hello  ', '\n\n  hello  '],
    ['a channel envelope is no timestamp', '[WebChat 2026-01-05T10:00Z] sure', '[WebChat 2026-01-05T10:00Z] sure'],
  ]);
  table(stripInboundMetadataText, [
    ['again after the metadata went', `${D1}\n[Mon 2026-07-06 20:04 GMT+9] hello`, 'hello'],
    ['twice when a sentinel is present', `[Mon 2026-07-06 20:04] [Tue 2026-07-06 20:04] hello\n${D1}`, 'hello'],
    ['twice even when nothing else goes', `[Mon 2026-07-06 20:04] [Tue 2026-07-06 20:04] ${M} hello`, `${M} hello`],
    ['once without a sentinel', '[Mon 2026-07-06 20:04] [Tue 2026-07-06 20:04] hello', '[Tue 2026-07-06 20:04] hello'],
    ['first, so a hint behind it is a hint line', `[Mon 2026-07-06 20:04] ${D1}\n\nhello`, 'hello'],
    ['first, so a Context: line behind it starts an active-memory block', `[Mon 2026-07-06 20:04] ${AM('x')}\nhi`, 'hi'],
    ['a timestamp then only blank space', '[Mon 2026-07-06 20:04 GMT+9] ', ''],
  ]);
});

describe('stripInboundMetadataText: marker header blocks', () => {
  table(stripInboundMetadataText, [
    ['E24: a Sender block with its fenced JSON', `Sender: ${M}\n${FENCED}\n\nhello bot`, 'hello bot'],
    ['a Conversation info block', `Conversation info: ${M}\n${FENCED}\n\nhello`, 'hello'],
    ['any label: lines up to a blank line, and the blank line', `Foo bar: ${M}\nline1\nline2\n\nhello`, 'hello'],
    ['in the middle: the blank line after a fence stays', `hello\n\nSender: ${M}\n${FENCED}\n\nbye`, 'hello\n\n\nbye'],
    ['in the middle: the blank lines after a plain block go', `hello\n\nFoo: ${M}\nz\n   \nbye`, 'hello\n\nbye'],
    ['several blank lines after a plain block go', `a\nFoo: ${M}\nz\n\n\nb`, 'a\nb'],
    ['several blank lines after a fence stay', `a\nFoo: ${M}\n\`\`\`json\n{}\n\`\`\`\n\n\nb`, 'a\n\n\nb'],
    ['a header right before a blank line: the blank lines go', `a\nFoo: ${M}\n\n\nb`, 'a\nb'],
    ['the fence ends at the closing fence line', `Sender: ${M}\n${FENCED}\nhello\n\nbye`, 'hello\n\nbye'],
    ['a blank line inside the fence', `Sender: ${M}\n\`\`\`json\n{"a":1}\n\nstill\n\`\`\`\nhello\n\nbye`, 'hello\n\nbye'],
    ['an unclosed fence takes the rest', `Sender: ${M}\n\`\`\`json\n{"a":1}\n\nnever closed`, ''],
    ['a closing fence with text after it does not close', `Sender: ${M}\n${FENCED} trailing\nx\n\nhello`, ''],
    ['a closing fence of four backticks does not close', `Foo: ${M}\n\`\`\`json\n{}\n\`\`\`\`\nafter\n\nw`, ''],
    ['a padded closing fence closes', `Foo: ${M}\n\`\`\`json\n{}\n   \`\`\`   \nafter\n\nw`, 'after\n\nw'],
    ['an indented opening fence', `Sender: ${M}\n  ${FENCED}\n\nhello`, 'hello'],
    ['a blank line between header and fence: the fence stays', `Sender: ${M}\n\n${FENCED}\n\nhello`, `${FENCED}\n\nhello`],
    ['a fence that is not json is a plain block', `Foo: ${M}\n\`\`\`js\n{}\n\`\`\`\n\nw`, 'w'],
    ['a plain block runs over a later header, delivery hint and active memory', `a\nFoo: ${M}\n${D1}\n${AM('x')}\nb\n\nc`, 'a\nc'],
    ['a header at the end', `a\nFoo: ${M}\n`, 'a'],
    ['a header alone', `Sender: ${M}`, ''],
    ['a header and a fenced header', `Sender: ${M}\nA: ${M}\nline\n\nhello`, 'hello'],
    ['an indented header', `  Foo: ${M}\nz\n\nw`, 'w'],
    ['a header without a colon', `Foo ${M}\nmore\n\nlast`, 'last'],
    ['a header glued to the marker', `x${M}\nz\n\nw`, 'w'],
    ['a header that is text ending in the marker', `hello Context: ${M}\nmore\n\nlast`, 'last'],
    ['a timestamp line ending in the marker', `a\n[Mon 2026-07-06 20:04] ${M}`, 'a'],
    ['a no-break space after the marker', `Foo: ${M}\u00a0\nz\n\nw`, 'w'],
    ['the marker alone is no header', `  ${M}  \nz\n\nw`, `  ${M}  \nz\n\nw`],
    ['the marker inside a line is no header', `a ${M} b`, `a ${M} b`],
    ['the marker first on a line is no header', `${M}: x\nz\n\nw`, `${M}: x\nz\n\nw`],
    ['inside a code fence it is still a header', `a\n\`\`\`\nFoo: ${M}\nz\n\`\`\`\n\nw`, 'a\n```\nw'],
    ['CRLF lines', `a\r\nFoo: ${M}\r\nz\r\n\r\nw`, 'a\r\nw'],
    ['CRLF lines with a fence', `a\r\nFoo: ${M}\r\n\`\`\`json\r\n{}\r\n\`\`\`\r\n\r\nw`, 'a\r\n\r\nw'],
  ]);
});

describe('stripInboundMetadataText: Context tail, delivery hints, active memory, edges', () => {
  table(stripInboundMetadataText, [
    ['E24: Context: marker removes everything after it', `hello bot\n\nContext: ${M}\nchannel: #general`, 'hello bot'],
    ['the Context line may be padded', `hello\n  Context: ${M}  \nmore`, 'hello'],
    ['at the very end', `hello\nContext: ${M}`, 'hello'],
    ['lower-case context is a plain header', `hello\n\ncontext: ${M}\nchannel\n\nmore`, 'hello\n\nmore'],
    ['two spaces make it a plain header', `hello\n\nContext:  ${M}\nchannel\n\nmore`, 'hello\n\nmore'],
    ['no space makes it a plain header', `hello\n\nContext:${M}\nchannel\n\nmore`, 'hello\n\nmore'],
    ['text before it makes it a plain header', `hello\n\nX Context: ${M}\nchannel\n\nmore`, 'hello\n\nmore'],
    ['each legacy delivery hint line goes (1)', `a\n${LEGACY_DELIVERY_HINTS[0]}\nb`, 'a\nb'],
    ['each legacy delivery hint line goes (2)', `a\n${LEGACY_DELIVERY_HINTS[1]}\nb`, 'a\nb'],
    ['each legacy delivery hint line goes (3)', `a\n${LEGACY_DELIVERY_HINTS[2]}\nb`, 'a\nb'],
    ['each legacy delivery hint line goes (4)', `a\n${LEGACY_DELIVERY_HINTS[3]}\nb`, 'a\nb'],
    [
      'the newer after-delivered-reply hint stays',
      'a\nDelivery: Final assistant text is not automatically delivered in this run, and your reply to the earlier message was already sent. Treat this as a follow-up: send another message with the `message` tool only if this new message genuinely warrants one; otherwise no reply is needed.\nb',
      'a\nDelivery: Final assistant text is not automatically delivered in this run, and your reply to the earlier message was already sent. Treat this as a follow-up: send another message with the `message` tool only if this new message genuinely warrants one; otherwise no reply is needed.\nb',
    ],
    ['E24 assistant: the hint goes, the channel envelope stays', `${D1}\n[WebChat 2026-01-05T10:00Z] sure`, '[WebChat 2026-01-05T10:00Z] sure'],
    ['a hint alone', D1, ''],
    ['a padded hint', `a\n  ${D1}  \nb`, 'a\nb'],
    ['a hint sharing its line stays', `x ${D1}\nb`, `x ${D1}\nb`],
    ['a hint with text after it stays', `a\n${D1} more\nb`, `a\n${D1} more\nb`],
    ['a hint inside a code fence goes too', `a\n\`\`\`\n${D1}\n\`\`\`\nb`, 'a\n```\n```\nb'],
    ['only the hint line goes: blank lines around it stay', `a\n\n\n\n${D1}\n\n\n\nb`, 'a\n\n\n\n\n\n\nb'],
    ['CRLF', `a\r\n${D1}\r\nb`, 'a\r\nb'],
    ['empty lines at the edges go, whitespace-only lines stay', `\n  \nhello\n${D1}\n \n\n`, '  \nhello\n '],
    ['empty lines at the edges go even when nothing else does', `\n\nhello ${M} x`, `hello ${M} x`],
    ['a hint inside a line is a sentinel too', `\n\nhello ${D1} x`, `hello ${D1} x`],
    ['a lone CR line is not empty', `\r\nhello\n${D1}`, '\r\nhello'],
    ['without a sentinel nothing is trimmed', '\n\nhello', '\n\nhello'],
    ['an active-memory block', `${AM('x')}\n\nhello`, 'hello'],
    ['an active-memory block in the middle, with the blank lines after it', `hello\n\n${AM('x')}\n\n\nbye`, 'hello\n\nbye'],
    ['a blank line inside the active-memory block', `hello\n${AM('x\n\ny')}\n\nbye`, 'hello\nbye'],
    ['padded Context: and tags', `  Context:  \n  <active_memory_plugin>  \nx\n  </active_memory_plugin>  \n\nhello`, 'hello'],
    ['CRLF active memory', `a\nContext:\r\n<active_memory_plugin>\r\nx\r\n</active_memory_plugin>\r\n\r\nc`, 'a\nc'],
    ['only the first block after Context:', `hello\n${AM('x')}\n<active_memory_plugin>\ny\n</active_memory_plugin>\nbye`, 'hello\n<active_memory_plugin>\ny\n</active_memory_plugin>\nbye'],
    ['two Context: blocks', `${AM('x')}\n${AM('y')}\nc`, 'c'],
    ['the first closing tag ends it', `hi\n${AM('x')}\n</active_memory_plugin>\nbye`, 'hi\n</active_memory_plugin>\nbye'],
    ['an unterminated block stays (the Context: line still counts as a sentinel)', '\n\nhi\nContext:\n<active_memory_plugin>\nx', 'hi\nContext:\n<active_memory_plugin>\nx'],
    ['a Context: line alone is a sentinel', '\n\nhi\nContext:\nfoo', 'hi\nContext:\nfoo'],
    ['the open tag must be the next line', 'Context:\n\n<active_memory_plugin>\nx\n</active_memory_plugin>\n\nhello', 'Context:\n\n<active_memory_plugin>\nx\n</active_memory_plugin>\n\nhello'],
    ['tags sharing a line do not count', 'a\nContext:\n<active_memory_plugin>x\n</active_memory_plugin>\nc', 'a\nContext:\n<active_memory_plugin>x\n</active_memory_plugin>\nc'],
    ['a closing tag with text after it does not close', 'hello\nContext:\n<active_memory_plugin>\nx\n</active_memory_plugin> tail\nbye', 'hello\nContext:\n<active_memory_plugin>\nx\n</active_memory_plugin> tail\nbye'],
    ['"Context:" inside a line is no sentinel', '\n\nhello Context:\n<active_memory_plugin>\nx\n</active_memory_plugin>', '\n\nhello Context:\n<active_memory_plugin>\nx\n</active_memory_plugin>'],
    ['a marker header inside active memory goes with it', `a\nContext:\n<active_memory_plugin>\nFoo: ${M}\n</active_memory_plugin>\nc`, 'a\nc'],
    ['active memory goes before headers are read', `Foo: ${M}\nx\nContext:\n<active_memory_plugin>\n\n</active_memory_plugin>\nq\n\nz`, 'z'],
    ['active memory, then the Context tail', `${AM('x')}\n\nContext: ${M}\nq`, ''],
  ]);
});

describe('stripInternalMetadataForDisplay: steps 1 then 2', () => {
  table(stripInternalMetadataForDisplay, [
    ['E23 assistant text', `answer\n\n${B}\nsecret\n${E}`, 'answer'],
    ['E24 assistant text', `${D1}\n[WebChat 2026-01-05T10:00Z] sure`, '[WebChat 2026-01-05T10:00Z] sure'],
    ['a timestamp behind a block leads after step 1', `${B}\nx\n${E}\n[Mon 2026-07-06 20:04] hi`, 'hi'],
    ['step 1 first: a begin token behind a timestamp is no delimiter', `[Mon 2026-07-06 20:04] ${B}\nx\n${E}\nhi`, `${B}\nx\nhi`],
    ['a block then a hint', `hi\n\n${D1}\n\n${B}\nx\n${E}\n\n\n\nbye`, 'hi\n\n\nbye'],
    ['a hint then a preface', `${D1}\n${P_EVENT}\n${N}\nhi`, 'hi'],
    ['a block then the marker alone', `\n\nhi\n${B}\nx\n${E}\n${M}`, 'hi\n\n' + M],
    ['a block then a hint at the end', `  hi\n${B}\nx\n${E}\n\n${D1}`, '  hi'],
    ['a block that leaves the token: the caller sees it is silent', `${B}\nonly\n${E}\nNO_REPLY`, 'NO_REPLY'],
    ['plain text', 'The weather is fine.', 'The weather is fine.'],
  ]);
});

describe('stripInboundMetadata and extractInboundSenderLabel', () => {
  test('E24: the Sender label is read and the metadata removed', () => {
    assert.deepEqual(stripInboundMetadata(`Sender: ${M}\n${FENCED}\n\nhello bot\n\nContext: ${M}\nchannel: #general`), {
      text: 'hello bot',
      senderLabel: 'Ann (@ann)',
    });
  });
  test('no metadata: the text alone', () => {
    assert.deepEqual(stripInboundMetadata('hello'), { text: 'hello' });
    assert.deepEqual(stripInboundMetadata(`a\n${D1}\nb`), { text: 'a\nb' });
  });
  const labels: Array<[string, string, string | undefined]> = [
    ['Sender label', `Sender: ${M}\n\`\`\`json\n{"label":"Ann","name":"N"}\n\`\`\``, 'Ann'],
    ['Sender name when the label is blank', `Sender: ${M}\n\`\`\`json\n{"label":"  ","name":" Nia "}\n\`\`\``, 'Nia'],
    ['Sender username, e164, id in turn', `Sender: ${M}\n\`\`\`json\n{"label":5,"e164":"+1","id":"i"}\n\`\`\``, '+1'],
    ['Conversation info sender object name', `Conversation info: ${M}\n\`\`\`json\n{"chat_id":"c","sender":{"id":"7","name":"Bek","username":"bek"}}\n\`\`\``, 'Bek'],
    ['Conversation info sender object id', `Conversation info: ${M}\n\`\`\`json\n{"sender":{"id":"7"}}\n\`\`\``, '7'],
    ['Conversation info sender string', `Conversation info: ${M}\n\`\`\`json\n{"sender":"Ann"}\n\`\`\``, 'Ann'],
    ['Sender wins over Conversation info', `Conversation info: ${M}\n\`\`\`json\n{"sender":"B"}\n\`\`\`\nSender: ${M}\n\`\`\`json\n{"label":"A"}\n\`\`\``, 'A'],
    ['a padded header and fence', `  Sender: ${M}  \n  \`\`\`json  \n{"label":"A"}\n  \`\`\`  `, 'A'],
    ['no fence right after the header', `Sender: ${M}\n\n\`\`\`json\n{"label":"A"}\n\`\`\``, undefined],
    ['an unclosed fence', `Sender: ${M}\n\`\`\`json\n{"label":"A"}`, undefined],
    ['not JSON', `Sender: ${M}\n\`\`\`json\n{label:A}\n\`\`\``, undefined],
    ['a JSON array', `Sender: ${M}\n\`\`\`json\n["A"]\n\`\`\``, undefined],
    ['an empty fence', `Sender: ${M}\n\`\`\`json\n\`\`\``, undefined],
    ['another label', `From: ${M}\n\`\`\`json\n{"label":"A"}\n\`\`\``, undefined],
    ['no marker', 'Sender:\n```json\n{"label":"A"}\n```', undefined],
  ];
  for (const [name, input, expected] of labels) {
    test(`extractInboundSenderLabel: ${name}`, () => assert.equal(extractInboundSenderLabel(input), expected));
  }
});

describe('stripChannelEnvelope (step 3)', () => {
  table(stripChannelEnvelope, [
    ['an envelope with an ISO minute', '[WebChat 2026-01-05T10:00Z] hi', 'hi'],
    ['an envelope with a local minute', '[Ann 2026-01-05 10:00 UTC] hi', 'hi'],
    ['an envelope naming a channel', '[Telegram Ann] hello', 'hello'],
    ['a two-word channel', '[Google Chat Team] hello', 'hello'],
    ['Zalo Personal', '[Zalo Personal Ann] hello', 'hello'],
    ['a channel name needs a space after it', '[TelegramX] hello', '[TelegramX] hello'],
    ['user brackets survive', '[note] keep me', '[note] keep me'],
    ['not after whitespace', ' [Telegram Ann] hello', ' [Telegram Ann] hello'],
    ['whitespace after the envelope goes', '[Telegram Ann]\n\nhello', 'hello'],
    ['message id lines go', 'hi\n[message_id: 991]\nthere', 'hi\nthere'],
    ['a padded message id line', 'hi\n  [message_id: 1]  ', 'hi'],
    ['a message id inside a line stays', 'hi [message_id: 1]', 'hi [message_id: 1]'],
    ['a message id line in fenced code stays', '```\n[message_id: 1]\n```\n[message_id: 2]', '```\n[message_id: 1]\n```'],
    ['plain text', 'hello', 'hello'],
  ]);
  test('E24 user string through steps 1, 2 and 3', () => {
    const input = '[WebChat 2026-01-05T10:00Z] What is the weather?\n\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nOpenClaw runtime context for the immediately preceding user message.\nThis context is runtime-generated, not user-authored. Keep internal details private.\ncurrent time: 10:00\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n[message_id: 991]';
    const step2 = stripInboundMetadata(stripRuntimeContext(input));
    assert.deepEqual(step2, { text: '[WebChat 2026-01-05T10:00Z] What is the weather?\n\n[message_id: 991]' });
    assert.equal(stripChannelEnvelope(step2.text), 'What is the weather?\n');
  });
  test('E24 user blocks through steps 1, 2 and 3', () => {
    const input = 'Sender: ⟦openclaw:ctx⟧\n```json\n{"label":"Ann (@ann)"}\n```\n\nhello bot\n\nContext: ⟦openclaw:ctx⟧\nchannel: #general';
    const step2 = stripInboundMetadata(stripRuntimeContext(input));
    assert.deepEqual({ ...step2, text: stripChannelEnvelope(step2.text) }, { text: 'hello bot', senderLabel: 'Ann (@ann)' });
  });
});

test('the fast paths hand back the same string and stay cheap on long text', () => {
  const long = 'Nothing internal here, only a long answer with [brackets] and Context words.\n'.repeat(100_000);
  const start = process.hrtime.bigint();
  assert.equal(stripInternalMetadataForDisplay(long), long);
  assert.equal(stripChannelEnvelope(long), long);
  assert.ok(Number(process.hrtime.bigint() - start) < 300e6, 'a few substring scans over 7.7 MB');
});

interface Recorded {
  strip: Record<string, Array<[string, string]>>;
}
const recorded = JSON.parse(readFileSync(new URL('../../fixtures/oracle/assistant-replay-text.json', import.meta.url), 'utf8')) as Recorded;

describe('stripInternalMetadataForDisplay agrees with the answers recorded from the reference', () => {
  for (const [group, rows] of Object.entries(recorded.strip)) {
    test(`${group} (${rows.length} texts)`, () => {
      for (const [input, answer] of rows) {
        const out = stripInternalMetadataForDisplay(input);
        const label = JSON.stringify(input);
        if (answer === 'SILENT') assert.ok(isSilentReplyPayloadText(out.trim()), label);
        else if (answer === 'BLANK') assert.equal(out, '', label);
        else if (answer.startsWith('BLANK:')) assert.equal(out, JSON.parse(answer.slice('BLANK:'.length)) as string, label);
        else assert.equal(out, answer, label);
      }
    });
  }
});
