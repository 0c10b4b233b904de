/**
 * drop-non-object-messages: only objects are messages.
 *
 * A `null`, number, string or array in the message list would make a provider reject the
 * request (and makes the reference throw on some routes); we drop it on every route and
 * count it. Unit: message. Counter: `dropped`.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

export function isMessageObject(value: unknown): value is Message {
  return isRecord(value);
}

export const dropNonObjectMessagesRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-non-object-messages',
    summary: 'Drops entries of the message list that are not objects (null, numbers, strings, arrays).',
    counters: ['dropped'],
  },
  apply(message, ctx) {
    if (isMessageObject(message)) return message;
    ctx.count('dropped');
    return null;
  },
};
