/**
 * `repair` of a file in a folder it cannot write (the lock, the backup and the repaired copy all
 * go beside the file): exit 4, "could not be written", with one line naming the file, and the
 * original unchanged; not 70, as an internal error. Run as an unprivileged user: root writes
 * anywhere.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/**
 * The environment without c8's coverage folder, which the unprivileged child cannot write into
 * (node passes the folder on to a child whose env does not set the variable at all).
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_V8_COVERAGE: '' };
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-repair-unwritable-'));
});
after(async () => {
  await chmod(dir, 0o755);
  await rm(dir, { recursive: true, force: true });
});

test('a session in a folder repair cannot write: exit 4 with one line, the file unchanged', async () => {
  const folder = path.join(dir, 'read-only');
  const session = path.join(folder, 'session.jsonl');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(folder);
  const text = [
    JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }),
    JSON.stringify({ type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1 } }),
    '{"type":"message","id":"b","par',
  ].join('\n') + '\n';
  await writeFile(session, text);
  // Readable by all, the folder writable by nobody but root; the command runs as nobody when we are root.
  await chmod(dir, 0o755);
  await chmod(session, 0o644);
  await chmod(folder, 0o555);
  if (isRoot) await chown(session, NOBODY, NOBODY);
  const [command, args] = isRoot
    ? ['/usr/bin/setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, bin, 'repair', session]]
    : [process.execPath, [bin, 'repair', session]];
  const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(command, args, { env: { ...inheritedEnv(), HOME: dir } }, (error, _stdout, stderr) => resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? -1), stderr })),
  );
  assert.equal(result.code, EXIT.outputFailed, result.stderr);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /^transcript-hygiene: .*session\.jsonl: .*(EACCES|permission denied)/i);
  assert.doesNotMatch(lines[0]!, /internal error/);
  assert.equal(await readFile(session, 'utf8'), text);
  assert.deepEqual(await readdir(folder), ['session.jsonl']);
  assert.ok(existsSync(session));
});
