import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { requiredLiterals } from '../../lib/secrets/required-literals.ts';
import { LiteralGate } from '../../lib/secrets/literal-gate.ts';
import { secretlintDetectors } from '../../lib/secrets/secretlint.ts';

describe('requiredLiterals', () => {
  const cases: Array<{ pattern: RegExp; literals: string[] | undefined; ignoreCase?: boolean }> = [
    { pattern: /sk-ant-api0\d-[A-Za-z0-9_-]{90,128}AA/, literals: ['sk-ant-api0'] },
    { pattern: /(?<!\p{L})(ghp|gho)_[A-Za-z0-9_]{36}(?![A-Za-z0-9_])/u, literals: ['ghp_', 'gho_'] },
    { pattern: /\b(A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{16}\b/, literals: ['A3T', 'AKIA', 'ASIA'] },
    { pattern: /abc|de/, literals: ['abc', 'de'] },
    { pattern: /ab+c/, literals: ['ab'] },
    { pattern: /a?bcd/, literals: ['bcd'] },
    { pattern: /x(?:abc)y/, literals: ['xabcy'] },
    { pattern: /(?=secret)\w+/, literals: undefined },
    { pattern: /[a-z]+@[a-z]+/, literals: ['@'] },
    { pattern: /\x41\u0042\/\.C/, literals: ['AB/.C'] },
    { pattern: /Hooks\.Slack/i, literals: ['hooks.slack'], ignoreCase: true },
    { pattern: /(a|)bc/, literals: ['abc', 'bc'] },
    { pattern: /\d+/, literals: undefined },
    { pattern: /(x)\1yz/, literals: ['yz'] },
    { pattern: /a{2}b/, literals: ['a'] },
    { pattern: /[/]token/, literals: ['token'] },
    { pattern: /a|\w/, literals: undefined },
  ];
  for (const c of cases) {
    test(`${c.pattern} -> ${JSON.stringify(c.literals)}`, () => {
      const got = requiredLiterals(c.pattern);
      if (c.literals === undefined) {
        assert.equal(got, undefined);
        return;
      }
      assert.deepEqual(got, { literals: c.literals, ignoreCase: c.ignoreCase ?? false });
    });
  }

  test('a pattern with the v flag is not analysed', () => {
    assert.equal(requiredLiterals(new RegExp('abc[\\w--\\d]', 'v')), undefined);
  });

  // Soundness, the gate's whole point: any text a pattern matches contains one of its literals.
  const patterns = [/sk-ant-api0\d-[A-Za-z0-9_-]{2,8}AA/, /(?:ab|cd)e{1,3}(f|gh)/, /x(?:y|)z+w/, /(?:AWS|aws)?_?(?:SECRET|secret)_?KEY=[0-9]{2}/, /p(?:q(?:r|s)t|uv)w/];
  for (const pattern of patterns) {
    test(`every string ${pattern} matches contains one of its literals`, () => {
      const required = requiredLiterals(pattern);
      assert.ok(required !== undefined);
      fc.assert(
        fc.property(fc.string(), fc.stringMatching(new RegExp(`^(?:${pattern.source})$`)), fc.string(), (before, match, after) => {
          const text = before + match + after;
          assert.ok(required.literals.some((literal) => text.includes(literal)), `${JSON.stringify(text)} holds none of ${JSON.stringify(required.literals)}`);
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('the secretlint rules behind their gates', () => {
  test('every rule of the preset but gcp (which scans only .p12 and .json files) has a gate', () => {
    const detectors = secretlintDetectors();
    assert.ok(detectors.length >= 26, `${detectors.length} rules`);
    assert.deepEqual(detectors.filter((d) => d.gate === undefined).map((d) => d.id), ['gcp']);
    assert.ok(!detectors.some((d) => d.id === 'filter-comments'), 'secretlint-disable comments must not switch redaction off');
  });
});

describe('LiteralGate', () => {
  test('finds each literal once, case-sensitively or not as each asks', () => {
    const gate = new LiteralGate([
      { text: 'AKIA', ignoreCase: false },
      { text: 'hooks.slack', ignoreCase: true },
      { text: 'ghp_', ignoreCase: false },
      { text: 'kia', ignoreCase: false },
    ]);
    const found: number[] = [];
    assert.equal(gate.scan('akia AKIA AKIA HOOKS.Slack ghp ghp_ é', (i) => found.push(i)), 4);
    assert.deepEqual(found.sort(), [0, 1, 2, 3]);
    assert.equal(gate.scan('AKIA only', () => {}), 1, 'kia is case-sensitive: AKIA holds KIA, not kia');
    assert.equal(gate.scan('nothing here', () => assert.fail('nothing to find')), 0);
  });

  test('agrees with includes() on random texts over a small alphabet', () => {
    const literals = ['ab', 'bab', 'ca', 'Ab', 'é+'].map((text, i) => ({ text, ignoreCase: i === 3 }));
    const gate = new LiteralGate(literals);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', 'B', 'é', '+') }), (text) => {
        const found = new Set<number>();
        gate.scan(text, (i) => found.add(i));
        literals.forEach((literal, i) => {
          const present = literal.ignoreCase ? text.toLowerCase().includes(literal.text.toLowerCase()) : text.includes(literal.text);
          assert.equal(found.has(i), present, `${JSON.stringify(literal.text)} in ${JSON.stringify(text)}`);
        });
      }),
      { numRuns: 500 },
    );
  });
});
