/**
 * Shapes shared by the differential generators, the recorder and the tests.
 */

/** The route options a case runs with (the oracle's `options`; `reasoning` is pi-ai `model.reasoning`). */
export interface DifferentialOptions {
  provider: string;
  modelApi: string;
  modelId: string;
  reasoning?: boolean;
}

/** One generated input: a message list and the route to clean it for. */
export interface DifferentialCase {
  name: string;
  options: DifferentialOptions;
  messages: unknown[];
}

/**
 * A case with the reference's answer, as stored in `fixtures/oracle/<suite>.jsonl`:
 * `expected` is the reference's replay copy (without `usage` on assistants), or
 * `error` is the message the reference threw.
 */
export interface RecordedCase extends DifferentialCase {
  expected?: unknown[];
  error?: string;
}
