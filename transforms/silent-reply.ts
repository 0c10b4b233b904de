/**
 * Silent-reply detection (spec thinking.md §4.2): is an assistant text only the "say nothing"
 * token (`NO_REPLY` by default), in any of the forms agents write it?
 *
 * Used by normalize-assistant-replay-content (§4.1 steps 5 and 7) on every assistant text of a
 * transcript, so the common case (the token does not occur at all) is one precompiled regex test.
 *
 * Silent when the trimmed text is any of:
 * a. the token, repeated with whitespace between, any case (`no_reply`, `NO_REPLY NO_REPLY`), also
 *    once a leading and a trailing run of Unicode punctuation are removed (`**NO_REPLY**`,
 *    `...NO_REPLY!!`; a backtick is a symbol, so `` `NO_REPLY` `` is not silent);
 * b. a JSON string whose value, trimmed, is exactly the token (`"NO_REPLY"`);
 * c. a JSON object with exactly one key, `action`, whose string value trimmed is exactly the token;
 * d. the token after a reasoning prefix: closed `<think>…</think>`-style blocks (then the rest is (a)
 *    or a final token after a silent-intent sentence), an unclosed opening tag or a plain
 *    `Thinking:` / `reasoning` line (then the rest is (a) or reasoning notes ending in the token).
 */

export const SILENT_REPLY_TOKEN = 'NO_REPLY';

const TAG_NAME = String.raw`(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)`;
const CLOSED_REASONING_TAG = new RegExp(String.raw`^\s*<\s*${TAG_NAME}\b[^<>]*>[\s\S]*?<\s*\/\s*${TAG_NAME}\s*>\s*`, 'i');
const OPEN_REASONING_TAG = new RegExp(String.raw`^\s*<\s*${TAG_NAME}\b[^<>]*>`, 'i');
const PLAIN_REASONING_PREFIX = /^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n/i;
const LEADING_PUNCTUATION = /^\p{P}+/u;
const TRAILING_PUNCTUATION = /\p{P}+$/u;

/** "I will stay quiet.", "we don't reply here", "the bot has nothing to add". */
export const SILENT_INTENT_TEXT =
  /^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$/i;

/** Words that mark reasoning notes as an actual answer, so a trailing token there is not silent. */
export const SUBSTANTIVE_ANSWER_CUE =
  /\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send|service\s+is|resolved|retry|yes|no,|sure)\b/i;

const REASONING_LABEL_ONLY = /^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$/i;

interface TokenMatchers {
  /** Whether the token occurs anywhere, in any case: the cheap gate every other test sits behind. */
  readonly present: (text: string) => boolean;
  readonly exact: RegExp;
  /** The token at the very end, after start, whitespace, `*` or `.`. */
  readonly finalToken: RegExp;
}

const matchersByToken = new Map<string, TokenMatchers>();

function foldAsciiLetter(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/**
 * A case-insensitive "contains the token" test. A case-insensitive regex scan is several times
 * slower than `indexOf`, and this gate runs on every assistant text; so for an ASCII token with
 * a character that has no case (the `_` of `NO_REPLY`), the text is searched for that character
 * and only the windows around it are compared, folding ASCII letters (a regex with `i` and no `u`
 * matches an ASCII letter only with an ASCII letter). Other tokens use the regex.
 */
function presenceTest(token: string, fallback: RegExp): (text: string) => boolean {
  let anchor = -1;
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code > 127) return (text) => fallback.test(text);
    if (anchor === -1 && foldAsciiLetter(code) === code && !(code >= 97 && code <= 122)) anchor = i;
  }
  if (anchor === -1) return (text) => fallback.test(text);
  const folded = Array.from(token, (char) => foldAsciiLetter(char.charCodeAt(0)));
  const anchorChar = token[anchor]!;
  return (text) => {
    for (let at = text.indexOf(anchorChar, anchor); at !== -1; at = text.indexOf(anchorChar, at + 1)) {
      const start = at - anchor;
      if (start + token.length > text.length) return false;
      let i = 0;
      while (i < token.length && foldAsciiLetter(text.charCodeAt(start + i)) === folded[i]) i++;
      if (i === token.length) return true;
    }
    return false;
  };
}

function matchersFor(token: string): TokenMatchers {
  let matchers = matchersByToken.get(token);
  if (matchers === undefined) {
    const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    matchers = {
      present: presenceTest(token, new RegExp(escaped, 'i')),
      exact: new RegExp(String.raw`^\s*${escaped}(?:\s+${escaped})*\s*$`, 'i'),
      finalToken: new RegExp(String.raw`(?:^|[\s*.])${escaped}\s*$`, 'i'),
    };
    if (matchersByToken.size >= 16) matchersByToken.clear();
    matchersByToken.set(token, matchers);
  }
  return matchers;
}

/** (a): the token alone (repeated), or with its edge punctuation removed. */
function isExactToken(text: string, m: TokenMatchers): boolean {
  if (m.exact.test(text)) return true;
  const unpunctuated = text.trim().replace(LEADING_PUNCTUATION, '').replace(TRAILING_PUNCTUATION, '');
  return m.exact.test(unpunctuated);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** (b) and (c): `"NO_REPLY"` and `{"action":"NO_REPLY"}`. */
function isJsonToken(trimmed: string, token: string): boolean {
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if (first === '"' && last === '"') {
    if (!trimmed.includes(token)) return false;
    const value = parseJson(trimmed);
    return typeof value === 'string' && value.trim() === token;
  }
  if (first === '{' && last === '}') {
    if (!trimmed.includes(token)) return false;
    const value = parseJson(trimmed);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    if (keys.length !== 1 || keys[0] !== 'action') return false;
    const action = (value as { action: unknown }).action;
    return typeof action === 'string' && action.trim() === token;
  }
  return false;
}

/** The text without its final token, trimmed; undefined when there is no final token. */
function withoutFinalToken(text: string, m: TokenMatchers): string | undefined {
  const stripped = text.replace(m.finalToken, '').trim();
  return stripped === text.trim() ? undefined : stripped;
}

/** After a closed reasoning block: "…I will stay quiet. NO_REPLY". */
function isFinalTokenWithSilentIntent(rest: string, m: TokenMatchers): boolean {
  const stripped = withoutFinalToken(rest, m);
  return stripped !== undefined && (stripped === '' || SILENT_INTENT_TEXT.test(stripped));
}

/** After an unclosed tag or a plain reasoning line: reasoning notes that end in the token. */
function isPlainReasoningFinalToken(rest: string, m: TokenMatchers): boolean {
  const stripped = withoutFinalToken(rest, m);
  if (stripped === undefined) return false;
  if (stripped === '' || SILENT_INTENT_TEXT.test(stripped)) return true;
  const lines = stripped.split(/\r?\n/);
  let lastIndex = lines.length - 1;
  while (lastIndex >= 0 && lines[lastIndex]!.trim() === '') lastIndex--;
  if (lastIndex > 0 && SILENT_INTENT_TEXT.test(lines[lastIndex]!)) {
    const preceding = lines.slice(0, lastIndex).join('\n');
    if (preceding.trim() !== '' && !SUBSTANTIVE_ANSWER_CUE.test(preceding)) return true;
  }
  return REASONING_LABEL_ONLY.test(stripped);
}

/** (d): the token after a reasoning prefix. */
function isReasoningPrefixedToken(text: string, m: TokenMatchers): boolean {
  let rest = text;
  let removed = false;
  for (;;) {
    const match = CLOSED_REASONING_TAG.exec(rest);
    if (match === null || match[0].length === 0) break;
    rest = rest.slice(match[0].length);
    removed = true;
  }
  if (removed) return isExactToken(rest, m) || isFinalTokenWithSilentIntent(rest, m);
  const open = OPEN_REASONING_TAG.exec(text);
  if (open !== null) {
    rest = text.slice(open[0].length);
    return isExactToken(rest, m) || isPlainReasoningFinalToken(rest, m);
  }
  const plain = PLAIN_REASONING_PREFIX.exec(text);
  if (plain !== null) {
    rest = text.slice(plain[0].length);
    return isExactToken(rest, m) || isPlainReasoningFinalToken(rest, m);
  }
  return false;
}

/**
 * True when an assistant text is only the silent-reply token in one of its accepted forms
 * (spec thinking.md §4.2). The text is trimmed first; non-strings and blank texts are not silent.
 */
export function isSilentReplyPayloadText(text: unknown, token: string = SILENT_REPLY_TOKEN): boolean {
  if (typeof text !== 'string' || token === '') return false;
  const m = matchersFor(token);
  if (!m.present(text)) return false;
  const trimmed = text.trim();
  return isExactToken(trimmed, m) || isJsonToken(trimmed, token) || isReasoningPrefixedToken(trimmed, m);
}
