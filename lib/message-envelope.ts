/**
 * Checks the envelope of a session `message` entry without parsing it: the text of a line before
 * its top-level `"message":` key, as session writers put it (`{"type":"message","id":"…",
 * "parentId":"…"|null,"timestamp":"…",`).
 *
 * The reader parses the message on its own (so an untouched one keeps its text as the raw line)
 * and used to parse the envelope too, as `JSON.parse(prefix + '"message":0}')`: a short string,
 * but built and parsed per line, about 40% of the time of reading a message entry. This scan
 * answers the same question for the members it understands (string keys without escapes, string
 * or null values) and gives up on anything else, so the caller parses the line whole, as before.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;

/** Where the JSON string starting at `start` (its opening quote) ends (after its closing quote), or -1 when it is not valid JSON. */
function stringEnd(text: string, start: number, limit: number): number {
  for (let i = start + 1; i < limit; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code < 0x20) return -1;
    if (code !== BACKSLASH) continue;
    const escaped = text.charCodeAt(++i);
    if (escaped === 117 /* u */) {
      for (let k = 1; k <= 4; k++) {
        const hex = text.charCodeAt(i + k);
        if (!((hex >= 48 && hex <= 57) || (hex >= 65 && hex <= 70) || (hex >= 97 && hex <= 102))) return -1;
      }
      i += 4;
    } else if (!(escaped === QUOTE || escaped === BACKSLASH || escaped === 47 || escaped === 98 || escaped === 102 || escaped === 110 || escaped === 114 || escaped === 116)) {
      return -1;
    }
  }
  return -1;
}

/**
 * Whether `line.slice(0, at)` followed by `"message":` opens a JSON object whose members before
 * that key are all `"key":"string"` or `"key":null` and whose last `type` is `"message"`:
 * true exactly when `JSON.parse(line.slice(0, at) + '"message":0}')` would give such an object.
 * False also for shapes it does not read (whitespace, escaped keys, other values); the caller
 * then parses the whole line.
 */
export function isPlainMessageEnvelope(line: string, at: number): boolean {
  if (line.charCodeAt(0) !== OPEN_BRACE) return false;
  let i = 1;
  let isMessage = false;
  while (i < at) {
    if (line.charCodeAt(i) !== QUOTE) return false;
    const keyEnd = stringEnd(line, i, at);
    if (keyEnd < 0 || line.charCodeAt(keyEnd) !== COLON) return false;
    // An escaped key could spell "type" or "message": the full parse decides those.
    const key = line.slice(i + 1, keyEnd - 1);
    if (key.includes('\\')) return false;
    i = keyEnd + 1;
    if (line.charCodeAt(i) === QUOTE) {
      const valueEnd = stringEnd(line, i, at);
      if (valueEnd < 0) return false;
      if (key === 'type') isMessage = valueEnd - i === 9 && line.startsWith('message', i + 1);
      i = valueEnd;
    } else if (line.startsWith('null', i)) {
      if (key === 'type') isMessage = false;
      i += 4;
    } else {
      return false;
    }
    if (line.charCodeAt(i) !== COMMA) return false;
    i++;
  }
  return i === at && isMessage;
}
