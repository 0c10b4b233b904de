#!/usr/bin/env node
// The command's entry. The package runs its compiled JavaScript (dist/); a git checkout, which
// has the TypeScript sources beside this file, runs them through tsx (a dev dependency).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../lib/cli/launch.ts', import.meta.url);
const fromSource = existsSync(fileURLToPath(source));
if (fromSource) (await import('tsx/esm/api')).register();
const { launch } = await import(fromSource ? source.href : '../dist/lib/cli/launch.js');
await launch(process.argv.slice(2), fileURLToPath(import.meta.url), async () => {
  const { main } = await import(fromSource ? new URL('../lib/cli/main.ts', import.meta.url).href : '../dist/lib/cli/main.js');
  return main;
});
