/**
 * Roles the agent runtime never writes into a transcript: `system` (its system prompt is not a
 * message), `human` and `ai` (LangChain's), `model` (Gemini's). A message with one of them came
 * from another tool's export; the pipeline passes unknown roles through (transforms/
 * drop-role-less-messages.ts), so `check` reports them and `sanitize` drops and counts them
 * (the `dropForeignRoles` option of the file and stream functions).
 */
import { isRecord, type Message } from './types.ts';

export const FOREIGN_ROLES: ReadonlySet<string> = new Set(['human', 'ai', 'model', 'system']);

/** The message's role when it is one of FOREIGN_ROLES. */
export function foreignRoleOf(message: unknown): string | undefined {
  if (!isRecord(message) || typeof message.role !== 'string') return undefined;
  return FOREIGN_ROLES.has(message.role) ? message.role : undefined;
}

/** The batch without foreign-role messages, counting each dropped one by role into `counts`. */
export function dropForeignRoles(batch: Message[], counts: Record<string, number>): Message[] {
  let kept: Message[] | undefined;
  for (let i = 0; i < batch.length; i++) {
    const role = foreignRoleOf(batch[i]);
    if (role === undefined) {
      kept?.push(batch[i]!);
      continue;
    }
    kept ??= batch.slice(0, i);
    counts[role] = (counts[role] ?? 0) + 1;
  }
  return kept ?? batch;
}
