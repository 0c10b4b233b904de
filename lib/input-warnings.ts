/** The lines a command prints about what it passed over in its input (sanitize and check alike). */
import type { HygieneStats } from './stats.ts';

/** What the run passed over in the input, one line each: torn lines of a session, foreign roles. */
export function inputWarnings(source: string, stats: Pick<HygieneStats, 'droppedForeignRoles' | 'invalidUtf8'> & { session?: { malformedLines: number; malformedLineNumbers: readonly number[] } }): string[] {
  const warnings: string[] = [];
  const torn = stats.session?.malformedLines ?? 0;
  if (torn > 0) {
    const numbers = stats.session!.malformedLineNumbers.slice(0, 5);
    const more = torn > numbers.length ? ', ...' : '';
    warnings.push(`${source}: skipped ${torn} line${torn === 1 ? '' : 's'} that ${torn === 1 ? 'is' : 'are'} not JSON (line${torn === 1 ? '' : 's'} ${numbers.join(', ')}${more})`);
  }
  const replaced = stats.invalidUtf8;
  if (replaced !== undefined) {
    const numbers = replaced.lineNumbers.slice(0, 5);
    const more = replaced.lines > numbers.length ? ', ...' : '';
    const sequences = `${replaced.sequences} byte sequence${replaced.sequences === 1 ? '' : 's'}`;
    warnings.push(`${source}: replaced ${sequences} that ${replaced.sequences === 1 ? 'is' : 'are'} not UTF-8 with U+FFFD (line${replaced.lines === 1 ? '' : 's'} ${numbers.join(', ')}${more})`);
  }
  const foreign = Object.entries(stats.droppedForeignRoles ?? {});
  const dropped = foreign.reduce((sum, [, count]) => sum + count, 0);
  if (dropped > 0) {
    warnings.push(`${source}: dropped ${dropped} message${dropped === 1 ? '' : 's'} of roles the runtime never writes (${foreign.map(([role, count]) => `${role} ${count}`).join(', ')})`);
  }
  return warnings;
}
