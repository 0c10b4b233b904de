import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { withCallerObjects } from '../../lib/incremental/caller-objects.ts';
import { privateCopy } from '../../lib/incremental/same-json.ts';

/** Every object and array reachable from `value`. */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  for (const item of Object.values(value)) objectsOf(item, into);
  return into;
}

const caller = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'hmm', thinkingSignature: 'sig' },
    { type: 'text', text: 'hi' },
    { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'a.ts' } },
  ],
  usage: { input: 1, output: 2, cost: { total: 0 } },
  timestamp: 5,
};

test('a rule-made message gets the caller\'s objects where it kept a part of the copy, new ones elsewhere', () => {
  const kept = privateCopy(caller) as typeof caller;
  // A rule dropped the thinking and rewrote the call's id, as the rules do: a spread of the kept copy.
  const made = { ...kept, content: [kept.content[1]!, { ...kept.content[2]!, id: 'toolu01' }] };
  const out = withCallerObjects(made, kept, caller) as typeof made;
  assert.deepEqual(out, made);
  assert.equal(out.usage, caller.usage);
  assert.equal(out.content[0], caller.content[1]);
  // The rewritten block is new, but its arguments are the caller's (the kept block's, a level down).
  assert.notEqual(out.content[1], caller.content[2]);
  assert.equal((out.content[1] as { arguments: unknown }).arguments, caller.content[2]!.arguments);
  assert.notEqual(out, made);
  assert.notEqual(out.content, made.content);
  for (const object of objectsOf(out)) assert.ok(!Object.isFrozen(object), 'a kept (frozen) object went out');
});

test('a part the copy does not hold is copied whole', () => {
  const kept = privateCopy(caller) as typeof caller;
  const made = { role: 'toolResult', content: [{ type: 'text', text: 'synthetic' }], usage: kept.usage };
  const out = withCallerObjects(made, kept, caller) as typeof made;
  assert.deepEqual(out, made);
  assert.notEqual(out.content[0], made.content[0]);
  assert.equal(out.usage, caller.usage);
});

test('property: equal to what the rule made and sharing nothing kept, whichever input is named as the source', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  fc.assert(
    fc.property(json, json, fc.array(fc.nat(), { maxLength: 6 }), (a, b, picks) => {
      const source = { role: 'assistant', content: [a, b, { type: 'text', text: 'x' }], extra: { a, b } };
      const callerCopy = structuredClone(source);
      const kept = privateCopy(source) as typeof source;
      const other = privateCopy({ role: 'user', content: [b] }) as Record<string, unknown>;
      // Made from pieces of the kept copy (some picked twice, some dropped) and new values.
      const pieces: unknown[] = [...kept.content, kept.extra, other.content, { fresh: a }];
      const made = { role: 'assistant', content: picks.map((pick) => pieces[pick % pieces.length]), extra: kept.extra };
      for (const [named, namedCaller] of [
        [kept, callerCopy],
        [other, structuredClone(other)],
      ] as const) {
        const out = withCallerObjects(made, named, namedCaller);
        assert.deepEqual(out, made);
        for (const object of objectsOf(out)) assert.ok(!Object.isFrozen(object), 'a kept (frozen) object went out');
      }
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 2000) },
  );
});
