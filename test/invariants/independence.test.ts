import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../../', import.meta.url));
const IMPORT_FROM = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT_FROM)].map((match) => match[1]!);
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts')).map((name) => join(root, dir, name));
}

test('the provider checks import no rule: a bug in a fix cannot hide from the check', () => {
  const files = tsFiles('lib/invariants');
  assert.ok(files.length > 5);
  for (const file of files) assert.deepEqual(importsOf(file).filter((spec) => spec.includes('transforms/')), [], file);
});

test('the session reader and the runner take shared helpers from lib/, not from a rule', () => {
  for (const file of [...tsFiles('lib/session'), join(root, 'lib/run.ts')]) {
    assert.deepEqual(importsOf(file).filter((spec) => spec.includes('transforms/')), [], file);
  }
});
