/**
 * The hygiene route of the call pi is about to make: the rules of the request (./request-rules.ts:
 * by the model's api, id and base URL, never pi's provider name), the model id, whether the model
 * declares reasoning, and whether thinking is on for this request (pi sends a thinking budget only
 * when the model reasons and the thinking level is not `off`; that is when the request-time
 * trailing-prefill rule applies).
 */
import type { HygieneOptions } from '../options.ts';
import { requestRules } from './request-rules.ts';
import type { PiModel, PiThinkingLevel } from './types.ts';

export type PiRoute = Required<Pick<HygieneOptions, 'provider' | 'modelApi' | 'modelId' | 'reasoning' | 'thinking'>>;

export interface PiCall {
  /** What the hygiene runs with. */
  readonly route: PiRoute;
  /** Whose rules these are, for the status line (`anthropic`, `generic openai-completions`). */
  readonly rules: string;
  /** pi's provider name and model id, for messages. */
  readonly piModel: string;
}

export function routeOf(model: PiModel, thinkingLevel: PiThinkingLevel | undefined): PiCall {
  const reasoning = model.reasoning === true;
  const modelId = String(model.id);
  const rules = requestRules({ api: String(model.api), modelId, baseUrl: typeof model.baseUrl === 'string' ? model.baseUrl : undefined });
  return {
    route: {
      provider: rules.provider,
      modelApi: rules.modelApi,
      modelId,
      reasoning,
      thinking: reasoning && thinkingLevel !== undefined && thinkingLevel !== 'off',
    },
    rules: rules.label,
    piModel: `${String(model.provider)}/${modelId}`,
  };
}

/** One line naming the call, for messages. */
export function describeCall(call: PiCall): string {
  return `${call.piModel} (${call.rules} rules, ${call.route.modelApi}${call.route.thinking ? ', thinking' : ''})`;
}
