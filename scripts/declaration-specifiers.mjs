#!/usr/bin/env node
/**
 * After `tsc -p tsconfig.build.json`: rewrites the relative `.ts` import specifiers that the
 * emitted declaration files keep (tsc rewrites them in the JavaScript only) to `.js`, the files
 * that sit beside them in dist/. TypeScript before 5.0 refuses a `.ts` specifier (TS2691), and
 * every consumer resolves `./x.js` to `./x.d.ts`.
 *
 *   node scripts/declaration-specifiers.mjs [DIR]   (default: dist)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `from '../x.ts'`, `import('./x.ts')`, `import './x.ts'` (relative only) -> `.js`. */
export function rewriteSpecifiers(text) {
  return text.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, (_match, head, quote, stem) => `${head}${quote}${stem}.js${quote}`);
}

export function rewriteDeclarations(dir) {
  let changed = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const before = readFileSync(file, 'utf8');
    const after = rewriteSpecifiers(before);
    if (after !== before) {
      writeFileSync(file, after);
      changed++;
    }
  }
  return changed;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = path.resolve(process.argv[2] ?? 'dist');
  const changed = rewriteDeclarations(dir);
  process.stderr.write(`declaration-specifiers: ${changed} declaration files in ${path.relative(process.cwd(), dir) || '.'} now import .js\n`);
}
