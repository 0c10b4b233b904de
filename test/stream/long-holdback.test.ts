/**
 * A 200,000-message session whose first tool call is answered only by its last message: on a
 * stream (no pre-scan) pairing must hold everything after that call to the end. With a 1 MiB
 * budget the held messages spill to disk; the output must equal a run that keeps them all in
 * memory. The spilling run gets a 64 MB V8 heap: it can only finish if the held messages are
 * really on disk (the in-memory run needs several times that), and its peak RSS must stay well
 * under the size of the session (about 300 MB).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEMI_SPACE_FLAG } from '../../lib/process-settings.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MESSAGES = 200_000;

function session(): string {
  const lines: string[] = [
    JSON.stringify({ role: 'user', content: 'start', timestamp: 1 }),
    JSON.stringify({ role: 'assistant', content: [{ type: 'toolCall', id: 'first', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse', timestamp: 2 }),
  ];
  for (let i = 0; lines.length < MESSAGES - 1; i++) {
    const id = `c${i}`;
    lines.push(
      JSON.stringify({ role: 'user', content: `question ${i} ${'lorem ipsum '.repeat(8)}`, timestamp: 3 + i }),
      JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'looking' }, { type: 'toolCall', id, name: 'grep', arguments: { q: `x${i}` } }], stopReason: 'toolUse', timestamp: 3 + i }),
      JSON.stringify({ role: 'toolResult', toolCallId: id, toolName: 'grep', content: [{ type: 'text', text: `result ${i} ${'data '.repeat(800)}` }], isError: false, timestamp: 3 + i }),
    );
  }
  lines.length = MESSAGES - 1;
  lines.push(JSON.stringify({ role: 'toolResult', toolCallId: 'first', toolName: 'read', content: [{ type: 'text', text: 'finally' }], isError: false, timestamp: 9e12 }));
  return lines.join('\n') + '\n';
}

interface ChildReport {
  maxRssKb: number;
  stats: { rules: Record<string, Record<string, number>> };
}

/** Runs test/helpers/sanitize-stdin.ts on the file as stdin, so no pre-scan can help. */
async function run(input: string, output: string, budget: number, heapMb?: number): Promise<ChildReport> {
  const inFd = openSync(input, 'r');
  const outFd = openSync(output, 'w');
  try {
    const heap = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`];
    // The young generation the command gives node (Node 24's own default is several times larger).
    const child = spawn(process.execPath, [SEMI_SPACE_FLAG, ...heap, '--import', 'tsx', path.join(root, 'test/helpers/sanitize-stdin.ts'), String(budget), 'anthropic', 'anthropic-messages', 'claude-opus-4-6'], {
      cwd: root,
      stdio: [inFd, outFd, 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    return JSON.parse(stderr.trim().split('\n').pop()!) as ChildReport;
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
}

async function digest(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

test('200k messages, first call answered last: a 1 MiB budget spills, gives the in-memory output, and keeps RSS well under the session', { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-long-'));
  try {
    const input = path.join(dir, 'in.jsonl');
    await writeFile(input, session());
    const small = await run(input, path.join(dir, 'small.jsonl'), 1024 * 1024, 64);
    const large = await run(input, path.join(dir, 'large.jsonl'), 1024 * 1024 * 1024);
    assert.equal(await digest(path.join(dir, 'small.jsonl')), await digest(path.join(dir, 'large.jsonl')));
    const spilled = small.stats.rules['repair-tool-result-pairing']?.spilledEntries ?? 0;
    assert.ok(spilled > 190_000, `spilled ${spilled} entries`);
    assert.equal(large.stats.rules['repair-tool-result-pairing']?.spilledEntries, undefined);
    const sessionBytes = (await stat(input)).size;
    process.stdout.write(
      `# session ${(sessionBytes / 1e6).toFixed(0)} MB; peak RSS ${(small.maxRssKb / 1024).toFixed(0)} MB with a 1 MiB budget, ${(large.maxRssKb / 1024).toFixed(0)} MB holding it in memory\n`,
    );
    assert.ok(small.maxRssKb * 1024 < sessionBytes * 0.8, `peak RSS ${small.maxRssKb} KB for a ${sessionBytes}-byte session`);
    assert.ok(small.maxRssKb * 2 < large.maxRssKb, `spilling ${small.maxRssKb} KB vs in-memory ${large.maxRssKb} KB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
