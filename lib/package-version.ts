/** The package's version, read from its package.json (beside lib/ in the sources, or beside dist/ when compiled). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'transcript-hygiene' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not this folder: try the next
    }
  }
  return 'unknown';
}
