/**
 * The extension's own structural pi types against pi's real ones (0.73, the dev dependency): the
 * assignments below fail `tsc` when pi's extension API stops fitting them. At run time: the
 * factory registers exactly one `context` handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextEvent, ExtensionAPI, ExtensionContext, ExtensionFactory } from '@mariozechner/pi-coding-agent';
import transcriptHygiene, { type PiContextEvent, type PiExtensionAPI, type PiExtensionContext } from '../../lib/pi/extension.ts';

// pi calls the factory with its API, and the handler with its event and context.
const asPiFactory: ExtensionFactory = transcriptHygiene;
const fitsApi = (api: ExtensionAPI): PiExtensionAPI => api;
const fitsContext = (ctx: ExtensionContext): PiExtensionContext => ctx;
const fitsEvent = (event: ContextEvent): PiContextEvent => event;

test('the factory registers one context handler and nothing else', () => {
  void [asPiFactory, fitsApi, fitsContext, fitsEvent];
  const registered: string[] = [];
  transcriptHygiene({ on: (event) => void registered.push(event), getThinkingLevel: () => 'off' });
  assert.deepEqual(registered, ['context']);
});
