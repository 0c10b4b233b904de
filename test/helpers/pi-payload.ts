/**
 * The request pi-ai (the runtime's transport, @mariozechner/pi-ai 0.73.1, a dev dependency through
 * pi) would send for a message list: its own payload builder runs, `onPayload` captures the body
 * and throws, so nothing goes on the network.
 */
import { getModel, stream, type Api, type Context, type Model } from '@mariozechner/pi-ai';
import type { Message } from '../../lib/types.ts';

class Captured extends Error {}

/** The provider's request body for `messages` on `model`, as pi-ai builds it. */
export async function piPayload(model: Model<Api>, messages: readonly Message[], context: Partial<Context> = {}): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> | undefined;
  const events = stream(model, { messages: messages as unknown as Context["messages"], ...context }, {
    apiKey: 'test-key-not-used',
    onPayload: (payload: unknown) => {
      body = payload as Record<string, unknown>;
      throw new Captured('captured');
    },
  });
  for await (const event of events) {
    if (event.type === 'error' || event.type === 'done') break;
  }
  if (body === undefined) throw new Error(`pi-ai built no payload for ${model.provider}/${model.id}`);
  return body;
}

/** A model of pi-ai's catalogue, failing loudly when the catalogue lacks it; `changes` override fields (another api). */
export function piModel(provider: string, id: string, changes: Partial<Model<Api>> = {}): Model<Api> {
  const model = (getModel as (p: string, m: string) => Model<Api> | undefined)(provider, id);
  if (model === undefined) throw new Error(`pi-ai has no model ${provider}/${id}`);
  return { ...model, ...changes };
}
