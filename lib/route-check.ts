/**
 * Is a route's provider and model API one the policy table knows? An unknown one silently gets
 * a fallback policy, which is what a typo (`anthropc`) gets too; so the command refuses it,
 * naming the closest known value, unless the user says it is deliberate: a `custom:` prefix
 * (`--provider custom:my-gateway`) or `--provider-unknown-ok`. The library decides the same way
 * when asked (`unknownRoute: 'error'`); by default it stays permissive, as the runner that calls
 * it passes whatever provider its user configured.
 */
import { closest } from './closest.ts';
import { KNOWN_MODEL_APIS, KNOWN_PROVIDERS } from './policy.ts';

/** Marks a provider or API outside the table as deliberate. */
export const CUSTOM_PREFIX = 'custom:';

function problem(what: string, value: string | undefined, known: readonly string[], normalize: (text: string) => string): string | undefined {
  if (value === undefined || value === '' || value.startsWith(CUSTOM_PREFIX)) return undefined;
  if (known.includes(normalize(value))) return undefined;
  const near = closest(value, known);
  return `unknown ${what} '${value}'${near === undefined ? '' : ` (did you mean '${near}'?)`}; to use it anyway, write ${CUSTOM_PREFIX}${value} or add --provider-unknown-ok`;
}

/** Why the route's provider or model API is not in the table, or undefined when both are. */
export function unknownRouteProblem(route: { provider?: string; modelApi?: string }): string | undefined {
  // The table compares providers trimmed and lower-cased, APIs exactly.
  return (
    problem('provider', route.provider, KNOWN_PROVIDERS, (text) => text.trim().toLowerCase()) ??
    problem('model API', route.modelApi, KNOWN_MODEL_APIS, (text) => text)
  );
}
