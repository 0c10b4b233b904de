/**
 * Run by export.test.ts in its own process: exports, and kills itself with SIGKILL (no cleanup,
 * no flush) right after the Nth output is recorded, as a crash or `kill -9` would.
 *
 * Usage: node --import tsx test/export/kill-child.ts INPUT OUT KILL_AFTER JOBS
 */
import { exportSessions } from '../../lib/index.ts';
import { ANTHROPIC } from './corpus.ts';

const [input, outDir, killAfter, jobs] = process.argv.slice(2);
let outputs = 0;
await exportSessions({
  inputs: [input!],
  outDir: outDir!,
  routes: [ANTHROPIC],
  jobs: Number(jobs),
  manifestIntervalMs: 0,
  onProgress: (event) => {
    if (event.type === 'output' && event.status === 'exported' && ++outputs === Number(killAfter)) {
      // Let the manifest write that this output scheduled start, then die mid-flight.
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 5);
    }
  },
});
process.stdout.write('finished without being killed\n');
