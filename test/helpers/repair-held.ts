/**
 * A repair that stops at one step of its write sequence and waits there, to be sent a signal:
 *
 *   node --import tsx repair-held.ts FILE STEP
 *
 * Prints `held` on stdout when it reaches STEP.
 */
import { repairSessionFileIfNeeded } from '../../lib/session/repair.ts';

const [file, step] = process.argv.slice(2);
await repairSessionFileIfNeeded(file!, {
  now: () => 1798761600000,
  async onStep(reached) {
    if (reached !== step) return;
    process.stdout.write('held\n');
    await new Promise(() => setInterval(() => undefined, 60_000));
  },
});
