import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { requiredLiterals } from '../../lib/secrets/required-literals.ts';
import { NativeGate } from '../../lib/secrets/native-gate.ts';
import { ASSIGNMENT_PATTERNS, ASSIGNMENT_SHAPE, recordPatterns, secretlintDetectors, secretlintRules } from '../../lib/secrets/secretlint.ts';

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
  test('every rule of the preset has a gate; filter-comments and gcp are left out', () => {
    const detectors = secretlintDetectors();
    assert.ok(detectors.length >= 25, `${detectors.length} rules`);
    assert.deepEqual(detectors.filter((d) => d.gate === undefined).map((d) => d.id), []);
    assert.ok(!detectors.some((d) => d.id === 'filter-comments'), 'secretlint-disable comments must not switch redaction off');
    assert.ok(!detectors.some((d) => d.id === 'gcp'), 'gcp reads only .p12 and .json files');
  });

  test('the assignment patterns are still the preset\'s, and every string they match has the assignment shape', () => {
    const aws = secretlintRules().find((rule) => rule.meta.id === '@secretlint/secretlint-rule-aws')!;
    const context = { sharedOptions: {}, createTranslator: () => () => ({ message: '', messageId: '' }), report() {}, ignore() {} };
    const patterns = recordPatterns(aws.create(context, { enableIDScanRule: true })).filter((pattern) => ASSIGNMENT_PATTERNS.has(pattern.source));
    assert.equal(patterns.length, ASSIGNMENT_PATTERNS.size, 'a pattern of ASSIGNMENT_PATTERNS is no longer the aws rule\'s');
    assert.equal(secretlintDetectors().find((d) => d.id === 'aws')!.probe, ASSIGNMENT_SHAPE);
    for (const pattern of patterns) {
      // Without the \b ends the generated strings are a superset of the matches.
      const whole = new RegExp(`^(?:${pattern.source.replace(/\\b$/, '')})$`);
      fc.assert(
        fc.property(fc.stringMatching(whole), (match) => {
          assert.ok(ASSIGNMENT_SHAPE.test(match), JSON.stringify(match));
        }),
        { numRuns: 500 },
      );
    }
  });
});

describe('NativeGate', () => {
  test('anchored literals, plain ones and case-insensitive ones', () => {
    const gate = new NativeGate([
      { text: 'AKIA', ignoreCase: false },
      { text: 'hooks.slack', ignoreCase: true },
      { text: 'ghp_', ignoreCase: false },
      { text: '://', ignoreCase: false },
      { text: 'a+b(', ignoreCase: false },
    ]);
    for (const hit of ['x AKIA y', 'HOOKS.Slack', 'ghp_1', 'https://x', 'a+b(']) assert.equal(gate.test(hit), true, hit);
    for (const miss of ['akia', 'hooks slack', 'ghp', 'ghq_', ':/', 'a+b', '']) assert.equal(gate.test(miss), false, miss);
  });

  test('agrees with includes() on random texts over a small alphabet', () => {
    const alphabet = ['a', 'b', '_', '-', '.', ':', 'A', 'é', '+'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: 4 }), ignoreCase: fc.boolean() }), { minLength: 1, maxLength: 5 }),
        fc.string({ unit: fc.constantFrom(...alphabet, 'B') }),
        (literals, text) => {
          const present = literals.some((l) => (l.ignoreCase ? text.toLowerCase().includes(l.text.toLowerCase()) : text.includes(l.text)));
          assert.equal(new NativeGate(literals).test(text), present, `${JSON.stringify(literals)} in ${JSON.stringify(text)}`);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
