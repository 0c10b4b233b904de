/**
 * Differential test of the tool-call rules (spec/tool-calls.md: input
 * validation, result pairing and synthetic results, id sanitization, OpenAI
 * Responses id normalization, the reasoning-pair downgrade, the Responses
 * invariant check, the `details` strip) against answers recorded from the
 * reference implementation. The cases come from generate-tool-calls.ts; the
 * answers are in fixtures/oracle/tool-calls.jsonl (re-record with
 * `node --import tsx test/differential/record.ts tool-calls`). The oracle is
 * not needed to run this file.
 *
 * Where the reference threw (the Responses invariant check, §8), the project
 * must reject with a HygieneError carrying the same message.
 */
import { runDifferentialSuite } from './suite.ts';

runDifferentialSuite('tool-calls', 700);
