import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { lintSource } from '@secretlint/core';
import { creator as preset } from '@secretlint/secretlint-rule-preset-recommend';
import { createSecretScanner, isLikelySecret, shannonEntropy } from '../../lib/secrets/scanner.ts';
import { resolveRedactOptions, scannerFor } from '../../lib/secrets/redact-options.ts';
import { shortRuleId } from '../../lib/secrets/secretlint.ts';
import { BARE_GOOGLE_KEY, ENV_DUMP, FALSE_POSITIVES, SECRETS } from './corpus.ts';

const scanner = createSecretScanner();

describe('the fixture corpus: each fake is redacted by its rule', () => {
  for (const c of SECRETS) {
    test(c.kind, () => {
      const out = scanner.redact(c.text);
      assert.equal(out, c.redacted);
      assert.ok(!out.includes(c.secret));
    });
  }

  test('a .env dump: every secret goes, the other lines and the names stay', () => {
    const counts: Record<string, number> = {};
    const out = scanner.redact(ENV_DUMP.text, (rule) => (counts[rule] = (counts[rule] ?? 0) + 1));
    for (const secret of ENV_DUMP.secrets) assert.ok(!out.includes(secret), `${secret} left in\n${out}`);
    for (const line of ENV_DUMP.kept) assert.ok(out.split('\n').includes(line), `${line} missing from\n${out}`);
    assert.deepEqual(counts, { aws: 2, 'database-connection-string': 1, stripe: 1, 'generic-assignment': 1, github: 1 });
  });
});

describe('the false-positive corpus: nothing is redacted', () => {
  FALSE_POSITIVES.forEach((text, i) => {
    test(`${i}: ${JSON.stringify(text.slice(0, 60))}`, () => {
      assert.deepEqual(scanner.find(text), []);
      assert.equal(scanner.redact(text), text);
    });
  });
});

describe('secretlint equivalence', () => {
  // What secretlint's own API reports on the same texts, with the same rule options.
  const config = {
    rules: [
      {
        id: preset.meta.id,
        rule: preset,
        rules: [
          { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } },
          { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
        ],
      },
    ],
  };
  const texts = [...SECRETS.map((c) => c.text), ENV_DUMP.text, ...FALSE_POSITIVES, 'two keys: ' + SECRETS[2]!.secret + ' and ' + SECRETS[3]!.secret];
  texts.forEach((text, i) => {
    test(`text ${i}: every lintSource finding is inside a span of the same rule`, async () => {
      const result = await lintSource({ source: { content: text, filePath: 'transcript.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } });
      const ours = createSecretScanner({ generic: false }).find(text);
      const theirs = result.messages.map((m) => ({ rule: shortRuleId(m.ruleId), range: m.range }));
      assert.equal(ours.length, new Set(theirs.map((t) => t.range.join(':'))).size, `ours ${JSON.stringify(ours)} theirs ${JSON.stringify(theirs)}`);
      for (const finding of theirs) {
        // aws reports its secret key at the assignment's start, with the key's length: the key itself must be inside ours.
        const hit = ours.find((span) => span.rule === finding.rule && span.start < finding.range[1] && finding.range[0] < span.end);
        assert.ok(hit !== undefined, `${finding.rule} at ${finding.range} not found by ours: ${JSON.stringify(ours)}`);
      }
    });
  });
});

describe('options', () => {
  test('user patterns find what the rules do not; the rule id is user:<name>', () => {
    const withPattern = scannerFor(resolveRedactOptions({ secrets: true, patterns: [BARE_GOOGLE_KEY.pattern] })!);
    assert.equal(scanner.redact(BARE_GOOGLE_KEY.text), BARE_GOOGLE_KEY.text, 'no secretlint rule for a bare Google key');
    assert.equal(withPattern.redact(BARE_GOOGLE_KEY.text), 'the maps key is [REDACTED:user:google-api-key] for now');
  });

  test('patterns alone, without secretlint', () => {
    const only = scannerFor(resolveRedactOptions({ patterns: ['/ticket-[0-9]{4}/'] })!);
    assert.deepEqual(only.rules, ['user:pattern-1']);
    assert.equal(only.redact(`ticket-1234 and ${SECRETS[2]!.text}`), `[REDACTED:user:pattern-1] and ${SECRETS[2]!.text}`);
  });

  test('allow-listed values stay, as exact strings or /regex/', () => {
    const github = SECRETS.find((c) => c.kind === 'github token')!;
    const npm = SECRETS.find((c) => c.kind === 'npm token')!;
    const allowing = scannerFor(resolveRedactOptions({ secrets: true, allow: [github.secret, '/^npm_fake/'] })!);
    assert.equal(allowing.redact(github.text), github.text);
    assert.equal(allowing.redact(npm.text), npm.text);
    const anthropic = SECRETS.find((c) => c.kind === 'anthropic key')!;
    assert.equal(allowing.redact(anthropic.text), anthropic.redacted);
  });

  test('without the generic detector an assignment of an unknown kind stays', () => {
    const line = ENV_DUMP.text.split('\n').find((l) => l.startsWith('SESSION_SECRET='))!;
    assert.equal(scannerFor(resolveRedactOptions({ secrets: true, generic: false })!).redact(line), line);
    assert.equal(scanner.redact(line), 'SESSION_SECRET=[REDACTED:generic-assignment]');
  });

  test('invalid options are refused with the field named', () => {
    assert.throws(() => resolveRedactOptions({ secrets: 'yes' }), /secrets must be a boolean/);
    assert.throws(() => resolveRedactOptions({ secrets: true, patterns: ['/(/'] }), /not a valid regular expression/);
    assert.throws(() => resolveRedactOptions({ patterns: ['/x*/'] }), /matches the empty string/);
    assert.throws(() => resolveRedactOptions({ patterns: [{ name: 'a b', pattern: 'x' }] }), /name must be/);
    assert.throws(() => resolveRedactOptions({ patterns: [{ name: 'a', pattern: 'x' }, { name: 'a', pattern: 'y' }] }), /two patterns are named "a"/);
    assert.throws(() => resolveRedactOptions({ secrets: true, colour: 'red' }), /unknown field "colour"/);
    assert.equal(resolveRedactOptions({ secrets: false }), undefined);
  });
});

describe('redaction is idempotent and leaves no secret', () => {
  test('redacting redacted text changes nothing', () => {
    for (const text of [...SECRETS.map((c) => c.text), ENV_DUMP.text]) {
      const once = scanner.redact(text);
      assert.equal(scanner.redact(once), once);
    }
  });

  test('two secrets side by side, and overlapping finds, give separate or merged placeholders', () => {
    const [aws, , github] = SECRETS;
    assert.equal(scanner.redact(`${aws!.secret}\n${github!.secret}`), '[REDACTED:aws]\n[REDACTED:github]');
  });
});

describe('the generic detector', () => {
  test('entropy and shape', () => {
    assert.equal(shannonEntropy('aaaa'), 0);
    assert.equal(shannonEntropy('abcd'), 2);
    assert.equal(isLikelySecret('q9FAKEx7Rt2LmZp4Kd8Wc3Hs'), true);
    assert.equal(isLikelySecret('0123456789abcdef0123456789abcdef'), false, 'hex: a hash');
    assert.equal(isLikelySecret('process.env.API_KEY'), false, 'no digit');
    assert.equal(isLikelySecret('aaaaaaaaaaaaaaaa1'), false, 'low entropy');
  });
});
