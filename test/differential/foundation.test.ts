/**
 * Differential test of the foundation rules (inter-session provenance marker,
 * blank-text cleanup) against answers recorded from the reference
 * implementation. The cases come from generate-foundation.ts; the answers are
 * in fixtures/oracle/foundation.jsonl (re-record with
 * `node --import tsx test/differential/record.ts foundation`). The oracle is
 * not needed to run this file.
 */
import { runDifferentialSuite } from './suite.ts';

runDifferentialSuite('foundation', 400);
