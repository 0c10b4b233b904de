/** `npm run docs`: rewrites the generated sections of README.md. */
import { readFile, writeFile } from 'node:fs/promises';
import { withCurrentTable } from './rules-table.ts';

const path = new URL('../README.md', import.meta.url);
const before = await readFile(path, 'utf8');
const after = withCurrentTable(before);
if (after !== before) await writeFile(path, after);
process.stdout.write(after === before ? 'README.md is current\n' : 'README.md: rules table updated\n');
