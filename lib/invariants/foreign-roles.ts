/**
 * `runtime/unknown-role`: a message of a role the runtime never writes (lib/foreign-roles.ts).
 * Not a provider's rule, so not a family of index.ts: `check` adds it to every route's list.
 */
import { foreignRoleOf } from '../foreign-roles.ts';
import type { Violation } from './types.ts';

export type RoleViolation = Omit<Violation, 'family'> & { family: 'runtime' };

export function foreignRoleViolations(messages: readonly unknown[]): RoleViolation[] {
  const out: RoleViolation[] = [];
  messages.forEach((message, index) => {
    const role = foreignRoleOf(message);
    if (role === undefined) return;
    out.push({ rule: 'runtime/unknown-role', family: 'runtime', index, message: `role ${JSON.stringify(role)} is one the runtime never writes (sanitize drops it)` });
  });
  return out;
}
