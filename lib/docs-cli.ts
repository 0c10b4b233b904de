/** `npm run docs`: rewrites the generated sections of README.md and lib/rule-names.ts. */
import { readFile, writeFile } from 'node:fs/promises';
import { renderRuleNamesModule, withCurrentTable } from './rules-table.ts';

const path = new URL('../README.md', import.meta.url);
const before = await readFile(path, 'utf8');
const after = withCurrentTable(before);
if (after !== before) await writeFile(path, after);
process.stdout.write(after === before ? 'README.md is current\n' : 'README.md: rules table updated\n');

const namesPath = new URL('./rule-names.ts', import.meta.url);
const namesBefore = await readFile(namesPath, 'utf8').catch(() => '');
const namesAfter = renderRuleNamesModule();
if (namesAfter !== namesBefore) await writeFile(namesPath, namesAfter);
process.stdout.write(namesAfter === namesBefore ? 'lib/rule-names.ts is current\n' : 'lib/rule-names.ts: rule names updated\n');
