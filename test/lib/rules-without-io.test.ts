import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Modules that read or write transcripts or files: the output side, not a rule's business. */
const IO_MODULES = [
  /(^|\/)lib\/jsonl\.ts$/,
  /(^|\/)lib\/json-array\.ts$/,
  /(^|\/)lib\/run\.ts$/,
  /(^|\/)lib\/stage\.ts$/,
  /(^|\/)lib\/cli(\.ts|\/)/,
  /(^|\/)lib\/session\//,
  /(^|\/)lib\/export\//,
  /^(node:)?(fs|fs\/promises|stream|stream\/promises|net|http|https|child_process|readline)$/,
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

test('no rule under transforms/ imports IO (the JSONL reader or writer, files, streams)', async () => {
  const dir = path.join(root, 'transforms');
  const files = (await readdir(dir)).filter((name) => name.endsWith('.ts'));
  assert.ok(files.length > 30, `${files.length} rule files found`);
  const offending: string[] = [];
  let imports = 0;
  for (const file of files) {
    const text = await readFile(path.join(dir, file), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      imports++;
      const resolved = specifier.startsWith('.') ? path.relative(root, path.resolve(dir, specifier)) : specifier;
      if (IO_MODULES.some((pattern) => pattern.test(resolved))) offending.push(`transforms/${file} imports ${specifier}`);
    }
  }
  assert.ok(imports > files.length, `${imports} imports read`);
  assert.deepEqual(offending, []);
});
