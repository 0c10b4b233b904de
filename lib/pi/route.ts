/**
 * The hygiene route of the call pi is about to make: the model's provider, api and id, whether the
 * model declares reasoning, and whether thinking is on for this request (pi sends a thinking
 * budget only when the model reasons and the thinking level is not `off`; that is when the
 * request-time trailing-prefill rule applies).
 */
import type { HygieneOptions } from '../options.ts';
import type { PiModel, PiThinkingLevel } from './types.ts';

export type PiRoute = Required<Pick<HygieneOptions, 'provider' | 'modelApi' | 'modelId' | 'reasoning' | 'thinking'>>;

export function routeOf(model: PiModel, thinkingLevel: PiThinkingLevel | undefined): PiRoute {
  const reasoning = model.reasoning === true;
  return {
    provider: String(model.provider),
    modelApi: String(model.api),
    modelId: String(model.id),
    reasoning,
    thinking: reasoning && thinkingLevel !== undefined && thinkingLevel !== 'off',
  };
}

/** One line naming the route, for messages. */
export function describeRoute(route: PiRoute): string {
  return `${route.provider}/${route.modelId} (${route.modelApi}${route.thinking ? ', thinking' : ''})`;
}
