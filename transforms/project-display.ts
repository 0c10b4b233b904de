/**
 * project-display (spec turns-images-policy.md §7, the gateway history display projection, E24).
 *
 * Not a replay step: the replay copy keeps user turns verbatim (§7, E23). This projection is for
 * showing or exporting a transcript to people. Legacy sessions persisted the runtime-enriched
 * prompt, so their user turns carry wrappers the user never typed; this takes them out:
 * - user turns: (1) runtime-context blocks and prefaces, (2) inbound metadata (timestamp prefix,
 *   `⟦openclaw:ctx⟧` header blocks, legacy delivery hints; a sender label found there becomes the
 *   message's `senderLabel`), (3) the channel envelope and `[message_id: …]` lines;
 * - assistant turns: steps 1 and 2 only (E24: an assistant's leading `[WebChat …]` stays);
 * - user turns whose `provenance` is `inter_session`: the inter-session marker is removed from
 *   their first text too (§6's strip, where §6 put it), before the three steps, so an envelope
 *   under it is reached.
 * The text is read where the display reads it: string content, `text` and `input_text` blocks,
 * and a string `text` field on the message. Every other role, block and field is left alone.
 *
 * The reference also re-labels forwarded inter-session user turns as assistant "Forwarded from …"
 * messages; the spec read that part from the reference's code without running it and gives no
 * exact shape, so this projection keeps their role and `provenance` (a viewer can label them from
 * it) and only removes the marker.
 *
 * The three text functions live in `runtime-context.ts` (§7's text rules, shared with the
 * assistant replay normalization); this file only decides where they apply.
 *
 * Unit: message (stateless). Counters: `projected` (messages changed), `senderLabels` (labels set).
 * Untouched messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { stripChannelEnvelope, stripInboundMetadata, stripInternalMetadataForDisplay, stripRuntimeContext } from './runtime-context.ts';
import { normalizeProvenance, stripInterSessionMarker } from './annotate-inter-session-provenance.ts';

interface Projected {
  text: string;
  senderLabel?: string;
}

function isDisplayTextBlock(block: unknown): block is ContentBlock & { text: string } {
  return isRecord(block) && (block.type === 'text' || block.type === 'input_text') && typeof block.text === 'string';
}

function projectUserText(text: string, forwarded: boolean): Projected {
  const unmarked = forwarded ? stripInterSessionMarker(text) : text;
  const inbound = stripInboundMetadata(stripRuntimeContext(unmarked));
  const out: Projected = { text: stripChannelEnvelope(inbound.text) };
  if (inbound.senderLabel !== undefined) out.senderLabel = inbound.senderLabel;
  return out;
}

function projectAssistantText(text: string): Projected {
  return { text: stripInternalMetadataForDisplay(text) };
}

/**
 * The display form of one message: the same object when nothing was stripped, else a copy with
 * the stripped text (and, for a user turn, the sender label found in its inbound metadata).
 */
export function projectForDisplay(message: Message): Message {
  const role = message.role;
  if (role !== 'user' && role !== 'assistant') return message;
  // The marker sits in the first text only (§6 annotates that one), so only the first text loses it.
  let markerPending = role === 'user' && normalizeProvenance(message.provenance)?.kind === 'inter_session';
  let senderLabel: string | undefined;
  const take = (text: string): string => {
    let projected: Projected;
    if (role === 'user') {
      projected = projectUserText(text, markerPending);
      markerPending = false;
    } else {
      projected = projectAssistantText(text);
    }
    if (senderLabel === undefined && projected.senderLabel !== undefined) senderLabel = projected.senderLabel;
    return projected.text;
  };

  const original = message.content;
  let content = original;
  if (typeof original === 'string') {
    content = take(original);
  } else if (Array.isArray(original)) {
    let next: unknown[] | undefined;
    for (let index = 0; index < original.length; index++) {
      const block: unknown = original[index];
      if (!isDisplayTextBlock(block)) continue;
      const text = take(block.text);
      if (text === block.text) continue;
      next ??= original.slice();
      next[index] = { ...block, text };
    }
    if (next !== undefined) content = next as ContentBlock[];
  }
  const ownText = message.text;
  const text = typeof ownText === 'string' ? take(ownText) : ownText;

  const labelChanged = senderLabel !== undefined && message.senderLabel !== senderLabel;
  if (content === original && text === ownText && !labelChanged) return message;
  const out: Record<string, unknown> = { ...message };
  if (content !== original) out.content = content;
  if (text !== ownText) out.text = text;
  if (labelChanged) out.senderLabel = senderLabel;
  return out as Message;
}

export const projectDisplayRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'project-display',
    summary: 'For showing a transcript to people: removes runtime context, inbound metadata and channel envelopes from legacy user turns (runtime context and metadata from assistant turns).',
    counters: ['projected', 'senderLabels'],
  },
  apply(message, ctx) {
    const out = projectForDisplay(message);
    if (out === message) return out;
    ctx.count('projected');
    if (out.senderLabel !== message.senderLabel) ctx.count('senderLabels');
    return out;
  },
};
