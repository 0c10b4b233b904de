/**
 * The part of pi's extension API this extension uses, as structural types of our own.
 *
 * pi (`@earendil-works/pi-coding-agent` 1.x, and `@mariozechner/pi-coding-agent` 0.73 before it)
 * is an optional peer and a development dependency only: the declaration files we publish must not
 * name it, or a consumer without pi installed could not type-check them. These types are the
 * subset of pi's `ExtensionAPI`, `ExtensionContext` and `ContextEvent` that the extension reads,
 * wide enough for both lines; test/pi/types.test.ts checks, against both packages' real types,
 * that pi's API is assignable to them, so a change on either side fails the type check here.
 */

/** pi's thinking levels (`ThinkingLevel` of pi-agent-core; `max` since pi 1.x). */
export type PiThinkingLevel = 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** The model pi is about to call (pi-ai `Model`): the fields that decide the route. */
export interface PiModel {
  readonly id: string;
  /** pi's provider name: named in messages, never used to pick the rules (./route.ts). */
  readonly provider: string;
  readonly api: string;
  /** Where the request goes (pi always sets it; optional here for hand-made models). */
  readonly baseUrl?: string;
  /** The model supports reasoning / extended thinking. */
  readonly reasoning: boolean;
}

export interface PiUI {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  /** Footer status under `key`; undefined clears it. */
  setStatus(key: string, text: string | undefined): void;
}

export interface PiExtensionContext {
  readonly ui: PiUI;
  /** False in print and JSON modes, where UI calls do nothing. */
  readonly hasUI: boolean;
  readonly model: PiModel | undefined;
}

/** Fired before every model call with pi's own messages (a deep copy), before `convertToLlm`. */
export interface PiContextEvent {
  readonly type: 'context';
  messages: unknown[];
}

export interface PiContextEventResult {
  messages?: unknown[];
}

export type PiContextHandler = (event: PiContextEvent, ctx: PiExtensionContext) => PiContextEventResult | void | Promise<PiContextEventResult | void>;

/** What the extension factory receives. */
export interface PiExtensionAPI {
  on(event: 'context', handler: PiContextHandler): void;
  getThinkingLevel(): PiThinkingLevel;
  /** The names of the tools the next request defines (none: the request carries no tools). */
  getActiveTools?(): string[];
}
