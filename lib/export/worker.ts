/**
 * The export's worker thread: takes one task at a time from the parent and answers with its
 * result. Started through worker-bootstrap.mjs, which registers tsx first.
 */
import { parentPort } from 'node:worker_threads';
import { exportFile, type ExportTask } from './export-file.ts';

const port = parentPort;
if (port === null) throw new Error('lib/export/worker.ts runs as a worker thread (see lib/export/pool.ts)');
port.on('message', (task: ExportTask) => {
  void exportFile(task).then((result) => port.postMessage(result));
});
