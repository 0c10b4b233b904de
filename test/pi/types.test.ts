/**
 * The extension's own structural pi types against pi's real ones, for both lines the package
 * supports: pi 1.x (`@earendil-works/pi-coding-agent`, 1.6) and 0.73 (`@mariozechner/pi-coding-agent`),
 * both development dependencies. The assignments below fail `tsc` (npm run typecheck) when either
 * pi's extension API stops fitting them. At run time: the factory registers exactly one `context`
 * handler, and takes every thinking level either line has.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as Pi1 from '@earendil-works/pi-coding-agent';
import type * as Pi073 from '@mariozechner/pi-coding-agent';
import transcriptHygiene, { type PiContextEvent, type PiExtensionAPI, type PiExtensionContext, type PiModel, type PiThinkingLevel } from '../../lib/pi/extension.ts';

// pi 1.x calls the factory with its API, and the handler with its event and context.
const asPi1Factory: Pi1.ExtensionFactory = transcriptHygiene;
const fitsPi1Api = (api: Pi1.ExtensionAPI): PiExtensionAPI => api;
const fitsPi1Context = (ctx: Pi1.ExtensionContext): PiExtensionContext => ctx;
const fitsPi1Event = (event: Pi1.ContextEvent): PiContextEvent => event;
const fitsPi1Level = (level: ReturnType<Pi1.ExtensionAPI['getThinkingLevel']>): PiThinkingLevel => level;
const fitsPi1Model = (model: NonNullable<Pi1.ExtensionContext['model']>): PiModel => model;

// pi 0.73 the same.
const asPi073Factory: Pi073.ExtensionFactory = transcriptHygiene;
const fitsPi073Api = (api: Pi073.ExtensionAPI): PiExtensionAPI => api;
const fitsPi073Context = (ctx: Pi073.ExtensionContext): PiExtensionContext => ctx;
const fitsPi073Event = (event: Pi073.ContextEvent): PiContextEvent => event;
const fitsPi073Model = (model: NonNullable<Pi073.ExtensionContext['model']>): PiModel => model;

test('the factory registers one context handler and nothing else', () => {
  void [asPi1Factory, fitsPi1Api, fitsPi1Context, fitsPi1Event, fitsPi1Level, fitsPi1Model];
  void [asPi073Factory, fitsPi073Api, fitsPi073Context, fitsPi073Event, fitsPi073Model];
  for (const level of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] satisfies PiThinkingLevel[]) {
    const registered: string[] = [];
    transcriptHygiene({ on: (event) => void registered.push(event), getThinkingLevel: () => level });
    assert.deepEqual(registered, ['context']);
  }
});
