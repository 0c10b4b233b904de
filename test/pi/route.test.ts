import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRoute, routeOf } from '../../lib/pi/route.ts';

test("the route is pi's model, with thinking on only when the model reasons and the level is not off", () => {
  const claude = { provider: 'anthropic', api: 'anthropic-messages', id: 'claude-sonnet-4-5', reasoning: true };
  assert.deepEqual(routeOf(claude, 'high'), { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', reasoning: true, thinking: true });
  assert.equal(routeOf(claude, 'off').thinking, false);
  assert.equal(routeOf(claude, undefined).thinking, false);
  assert.equal(routeOf({ ...claude, reasoning: false }, 'high').thinking, false);
  assert.equal(describeRoute(routeOf(claude, 'minimal')), 'anthropic/claude-sonnet-4-5 (anthropic-messages, thinking)');
});
