/**
 * A repair in a process of its own, for the crash and concurrency tests.
 *
 *   node --import tsx repair-child.ts FILE [--kill-at STEP] [--delay-at STEP --delay MS] [--lock-timeout MS]
 *
 * Prints the report as one JSON line; with --kill-at it SIGKILLs itself at that step.
 */
import { parseArgs } from 'node:util';
import { repairSessionFileIfNeeded, type RepairStep } from '../../../lib/session/repair.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'kill-at': { type: 'string' }, 'delay-at': { type: 'string' }, delay: { type: 'string' }, 'lock-timeout': { type: 'string' } },
});
const report = await repairSessionFileIfNeeded(positionals[0]!, {
  lock: { acquireTimeoutMs: Number(values['lock-timeout'] ?? 30_000) },
  now: () => 1798761600000,
  async onStep(step: RepairStep) {
    if (step === values['kill-at']) process.kill(process.pid, 'SIGKILL');
    if (step === values['delay-at']) await new Promise((resolve) => setTimeout(resolve, Number(values.delay ?? 500)));
  },
});
process.stdout.write(JSON.stringify(report) + '\n');
