import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectInputKind, detectProbeKind } from '../../lib/session/detect.ts';

test('the first line that parses decides', () => {
  assert.equal(detectInputKind('{"type":"session","id":"x"}\n', false), 'session');
  assert.equal(detectInputKind('{"type":"message","id":"a","parentId":null,"message":{}}\n', false), 'session');
  assert.equal(detectInputKind('{"role":"user","content":"x"}\n', false), 'messages');
  assert.equal(detectInputKind('{"role":"user","type":"odd"}\n', false), 'messages');
  assert.equal(detectInputKind('42\n', false), 'messages');
  assert.equal(detectInputKind('{"no":"type"}\n', false), 'messages');
  assert.equal(detectInputKind('garbage{{\n\n{"type":"session","id":"x"}\n', false), 'session');
  assert.equal(detectInputKind('\uFEFF{"type":"session","id":"x"}', true), 'session');
  assert.equal(detectInputKind('  [{"role":"user"}]', false), 'json');
});

test('undecided until a whole line arrives, unless the input is complete', () => {
  assert.equal(detectInputKind('{"type":"sess', false), undefined);
  assert.equal(detectInputKind('garbage\n', false), undefined);
  assert.equal(detectInputKind('', true), 'messages');
  assert.equal(detectInputKind('garbage', true), 'messages');
});

test('a probe cut in its first line is judged by the first keys', () => {
  assert.equal(detectProbeKind('{"type":"message","id":"a","message":{"content":"' + 'x'.repeat(100), false), 'session');
  assert.equal(detectProbeKind('{"role":"user","content":"' + 'x'.repeat(100), false), 'messages');
  assert.equal(detectProbeKind('xyz', false), 'messages');
  assert.equal(detectProbeKind('{"role":"user"}\n', true), 'messages');
});
