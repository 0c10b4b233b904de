import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptedToolName, isToolNameAccepted, UNNAMED_TOOL, type ToolNameRule } from '../../lib/tool-names.ts';

const RULES: readonly ToolNameRule[] = ['claude', 'gemini', 'strict'];

test('claude takes any non-blank name up to 200 characters', () => {
  for (const name of ['mcp.s3/list_objects', 'list files', 'ünï', 'x'.repeat(200), ' padded ']) assert.ok(isToolNameAccepted(name, 'claude'), name);
  for (const name of ['', '   ', 'x'.repeat(201), undefined, 5]) assert.ok(!isToolNameAccepted(name, 'claude'), String(name));
});

test('gemini: a letter or underscore first, then [a-zA-Z0-9_.:-], 64 at most', () => {
  for (const name of ['read', '_x', 'ns:tool.v-1_x', `a${'b'.repeat(63)}`]) assert.ok(isToolNameAccepted(name, 'gemini'), name);
  for (const name of ['1read', '-x', '.x', 'a/b', 'a b', `a${'b'.repeat(64)}`, '']) assert.ok(!isToolNameAccepted(name, 'gemini'), name);
});

test('strict: ^[a-zA-Z0-9_-]{1,64}$', () => {
  for (const name of ['read', '1read', '-x', 'x'.repeat(64)]) assert.ok(isToolNameAccepted(name, 'strict'), name);
  for (const name of ['ns:tool', 'a.b', 'a/b', ' read', 'x'.repeat(65), '']) assert.ok(!isToolNameAccepted(name, 'strict'), name);
});

test('acceptedToolName: readable, accepted by every rule, stable, a fixed point', () => {
  assert.equal(acceptedToolName('mcp.s3/list_objects'), 'mcp_s3_list_objects');
  assert.equal(acceptedToolName(' list  files '), 'list_files');
  assert.equal(acceptedToolName('1read'), '_1read');
  assert.equal(acceptedToolName(''), UNNAMED_TOOL);
  assert.equal(acceptedToolName('   '), UNNAMED_TOOL);
  assert.equal(acceptedToolName(undefined), UNNAMED_TOOL);
  assert.match(acceptedToolName('ünï'), /^_n_$/);
  assert.match(acceptedToolName('読む'), /^tool_[0-9a-f]{8}$/);
  const long = `server.${'x'.repeat(80)}`;
  const shortened = acceptedToolName(long);
  assert.equal(shortened.length, 64);
  assert.ok(shortened.startsWith('server_xxx'));
  assert.match(shortened, /_[0-9a-f]{8}$/);
  assert.notEqual(acceptedToolName(`${long}a`), shortened, 'long names with one start stay apart');
  for (const name of ['mcp.s3/list_objects', long, '1read', '', '読む', '-', 'a'.repeat(300), 'tool name with spaces and / slashes']) {
    const derived = acceptedToolName(name);
    assert.equal(acceptedToolName(name), derived, 'stable');
    for (const rule of RULES) assert.ok(isToolNameAccepted(derived, rule), `${JSON.stringify(name)} -> ${derived} on ${rule}`);
    assert.equal(acceptedToolName(derived), derived, 'fixed point');
  }
});
