import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { renderRuleNamesModule, renderRulesTable, withCurrentTable, TABLE_ROUTES } from '../../lib/rules-table.ts';
import { STAGES } from '../../lib/pipeline.ts';

test('README.md holds the current rules table (run `npm run docs` after changing the stage list)', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  assert.equal(withCurrentTable(readme), readme);
});

test('lib/rule-names.ts is current (run `npm run docs` after changing the stage list)', async () => {
  assert.equal(await readFile(new URL('../../lib/rule-names.ts', import.meta.url), 'utf8'), renderRuleNamesModule());
});

test('the table has a row per stage and a column per route', () => {
  const lines = renderRulesTable().split('\n').filter((line) => line.startsWith('| `'));
  assert.equal(lines.length, STAGES.length);
  for (const line of lines) assert.equal(line.split('|').length - 3, TABLE_ROUTES.length + 1);
});

test('a README without markers is an error, not a silent no-op', () => {
  assert.throws(() => withCurrentTable('# no table here'), /no rules-table markers/);
});
