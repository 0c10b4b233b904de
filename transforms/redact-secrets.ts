/**
 * redact-secrets (ours; on with the `redact` option, DESIGN.md "Third round").
 *
 * Invariant: no string a model or a reader of the output sees holds a secret the scanner
 * (lib/secrets/: secretlint's recommended rules, the generic high-entropy `NAME=value`
 * detector, the user's patterns) finds; each becomes `[REDACTED:<rule id>]`. Scanned: text
 * content (a string, `text` blocks) of every role, thinking text, every string value of a
 * tool call's arguments (deep, keys left alone), tool-result text, the text fields of the
 * harness messages the runtime replays as user turns (summaries, bash command and output), and
 * file names and paths of images (`fileName`, `__openclaw.media` `path` and `url`). Never
 * scanned: ids, names, signatures, image data, timestamps, or any other field.
 *
 * A thinking block whose text changes loses its signature fields (`thinkingSignature`,
 * `signature`, `thought_signature`, `thoughtSignature`): a signature covers the exact text, and
 * the thinking rules after this one then treat the block as any unsigned one. The rule runs
 * first, so every later rule sees only redacted text.
 *
 * Unit: message (stateless). Counters: one per detector id (secrets replaced),
 * `redactedMessages`, `unsignedThinking`. Untouched messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import { isRecord, type Message } from '../lib/types.ts';
import { scannerFor } from '../lib/secrets/redact-options.ts';
import type { SecretScanner } from '../lib/secrets/scanner.ts';

const SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature', 'thoughtSignature'] as const;
const TOOL_CALL_TYPES: ReadonlySet<unknown> = new Set(['toolCall', 'toolUse', 'functionCall', 'tool_use', 'function_call', 'tool_call']);
/** Fields of a tool call block that hold its arguments (pi-ai's, and the other providers' names). */
const ARGUMENT_FIELDS = ['arguments', 'input', 'args', 'partialJson'] as const;
/** Message-level text fields of the harness roles the runtime replays as user turns. */
const MESSAGE_TEXT_FIELDS = ['summary', 'command', 'output', 'errorMessage'] as const;
const IMAGE_NAME_FIELDS = ['fileName', 'filename'] as const;
const MEDIA_FIELDS = ['path', 'url'] as const;

export type OnRedacted = (rule: string) => void;

export const REDACT_RULE = 'redact-secrets';
/** This rule's counters that are not a detector's id. */
export const REDACT_TALLIES: readonly string[] = ['redactedMessages', 'unsignedThinking'];

/** Every string value inside `value` (objects and arrays, deep), redacted; the same value when none changed. */
function redactDeep(value: unknown, scanner: SecretScanner, onRedacted: OnRedacted): unknown {
  if (typeof value === 'string') return scanner.redact(value, onRedacted);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = redactDeep(value[i], scanner, onRedacted);
      if (next !== value[i]) (out ??= [...value])[i] = next;
    }
    return out ?? value;
  }
  if (isRecord(value)) {
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const next = redactDeep(value[key], scanner, onRedacted);
      if (next !== value[key]) (out ??= { ...value })[key] = next;
    }
    return out ?? value;
  }
  return value;
}

/** The string fields `fields` of `record` redacted; the same object when none changed. */
function redactFields<T extends Record<string, unknown>>(record: T, fields: readonly string[], scanner: SecretScanner, onRedacted: OnRedacted): T {
  let out: Record<string, unknown> | undefined;
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    const next = scanner.redact(value, onRedacted);
    if (next !== value) (out ??= { ...record })[field] = next;
  }
  return (out as T | undefined) ?? record;
}

function redactBlock(block: unknown, scanner: SecretScanner, onRedacted: OnRedacted, onUnsigned: () => void): unknown {
  if (!isRecord(block)) return block;
  const type = block.type;
  if (type === 'text') return redactFields(block, ['text'], scanner, onRedacted);
  if (type === 'thinking') {
    const out = redactFields(block, ['thinking'], scanner, onRedacted);
    if (out === block) return block;
    let unsigned = false;
    for (const field of SIGNATURE_FIELDS) {
      if (field in out) {
        delete out[field];
        unsigned = true;
      }
    }
    if (unsigned) onUnsigned();
    return out;
  }
  if (TOOL_CALL_TYPES.has(type)) {
    let out: Record<string, unknown> | undefined;
    for (const field of ARGUMENT_FIELDS) {
      if (!(field in block)) continue;
      const next = redactDeep(block[field], scanner, onRedacted);
      if (next !== block[field]) (out ??= { ...block })[field] = next;
    }
    return out ?? block;
  }
  if (type === 'image') return redactFields(block, IMAGE_NAME_FIELDS, scanner, onRedacted);
  if (type === 'tool_result' || type === 'toolResult') {
    // A nested result block (Anthropic's shape): its content is text or blocks.
    const out = redactFields(block, ['text'], scanner, onRedacted);
    const content = redactContent(out.content, scanner, onRedacted, onUnsigned);
    return content === out.content ? out : { ...out, content };
  }
  return block;
}

function redactContent(content: unknown, scanner: SecretScanner, onRedacted: OnRedacted, onUnsigned: () => void): unknown {
  if (typeof content === 'string') return scanner.redact(content, onRedacted);
  if (!Array.isArray(content)) return content;
  let out: unknown[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const next = redactBlock(content[i], scanner, onRedacted, onUnsigned);
    if (next !== content[i]) (out ??= [...content])[i] = next;
  }
  return out ?? content;
}

/** `__openclaw.media` entries with their `path` and `url` redacted; the same value when none changed. */
function redactMediaFacts(meta: unknown, scanner: SecretScanner, onRedacted: OnRedacted): unknown {
  if (!isRecord(meta) || !Array.isArray(meta.media)) return meta;
  let media: unknown[] | undefined;
  meta.media.forEach((entry: unknown, i: number) => {
    if (!isRecord(entry)) return;
    const next = redactFields(entry, MEDIA_FIELDS, scanner, onRedacted);
    if (next !== entry) (media ??= [...(meta.media as unknown[])])[i] = next;
  });
  return media === undefined ? meta : { ...meta, media };
}

/**
 * The message with every secret in its text replaced (see the file's header), or the same
 * object when it holds none. `onRedacted` is called once per secret with its rule id,
 * `onUnsigned` once per thinking block that lost its signature.
 */
export function redactSecrets(message: Message, scanner: SecretScanner, onRedacted: OnRedacted = () => {}, onUnsigned: () => void = () => {}): Message {
  let out: Record<string, unknown> | undefined;
  const content = redactContent(message.content, scanner, onRedacted, onUnsigned);
  if (content !== message.content) (out ??= { ...message }).content = content;
  const fields = redactFields(message, MESSAGE_TEXT_FIELDS, scanner, onRedacted);
  if (fields !== message) {
    out ??= { ...message };
    for (const field of MESSAGE_TEXT_FIELDS) if (fields[field] !== message[field]) out[field] = fields[field];
  }
  const meta = redactMediaFacts(message.__openclaw, scanner, onRedacted);
  if (meta !== message.__openclaw) (out ??= { ...message }).__openclaw = meta;
  return (out as Message | undefined) ?? message;
}

export function redactSecretsEnabled(_policy: TranscriptPolicy, options: ResolvedHygieneOptions): boolean {
  return options.redact !== undefined;
}

export const redactSecretsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: REDACT_RULE,
    summary:
      'With the redact option: replaces each secret found in text, thinking, tool-call arguments, tool results and image file names with [REDACTED:<rule id>] (secretlint\'s recommended rules, a generic high-entropy NAME=value detector, user patterns); a thinking block it changes loses its signature.',
    counters: ['redactedMessages', 'unsignedThinking', '<rule id>'],
  },
  apply(message, ctx) {
    const redact = ctx.options.redact;
    if (redact === undefined) return message;
    const out = redactSecrets(
      message,
      scannerFor(redact),
      (rule) => ctx.count(rule),
      () => ctx.count('unsignedThinking'),
    );
    if (out !== message) ctx.count('redactedMessages');
    return out;
  },
};
