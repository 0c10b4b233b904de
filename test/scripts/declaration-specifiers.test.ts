import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: a plain .mjs script without declarations
import { rewriteSpecifiers } from '../../scripts/declaration-specifiers.mjs';

const rewrite = rewriteSpecifiers as (text: string) => string;

test('relative .ts specifiers in declarations become .js: from, import(), export from, side effects', () => {
  const before = [
    "import type { A } from './a.ts';",
    "export { b } from '../lib/b.ts';",
    'export type C = import("./c.ts").C;',
    "import './d.ts';",
    "export * from './e.ts';",
  ].join('\n');
  assert.equal(
    rewrite(before),
    ["import type { A } from './a.js';", "export { b } from '../lib/b.js';", 'export type C = import("./c.js").C;', "import './d.js';", "export * from './e.js';"].join('\n'),
  );
});

test('package specifiers, .d.ts files and text that only looks alike stay as they are', () => {
  const kept = ["import { x } from 'pkg/x.ts';", "import type { T } from './t.d.ts.js';", "const s = 'from ./a.ts';", "import { y } from 'node:fs';"].join('\n');
  assert.equal(rewrite(kept), kept);
});
