/**
 * The node flags and environment the command runs under (bin/transcript-hygiene.js re-executes
 * itself with them; lib/process-settings.js says why), so that benchmark children measure
 * what a user of the command gets.
 */
import { TUNED_MARK, tunedProcessSettings } from '../lib/process-settings.ts';

export interface ChildSettings {
  readonly execArgv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly label: string;
}

export function cliChildSettings(env: NodeJS.ProcessEnv = process.env): ChildSettings {
  const { [TUNED_MARK]: _mark, ...clean } = env;
  const settings = tunedProcessSettings(['sanitize'], clean, []);
  if (settings === undefined) return { execArgv: [], env: clean, label: `as given (MALLOC_ARENA_MAX=${clean.MALLOC_ARENA_MAX}, NODE_OPTIONS=${clean.NODE_OPTIONS ?? ''})` };
  return { execArgv: settings.execArgv, env: settings.env, label: `the command's: MALLOC_ARENA_MAX=${settings.env.MALLOC_ARENA_MAX} MALLOC_MMAP_THRESHOLD_=${settings.env.MALLOC_MMAP_THRESHOLD_} ${settings.execArgv.join(' ')}`.trim() };
}
