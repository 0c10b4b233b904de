/**
 * The export tests' corpus: a tree of 200 session entries, built into a temporary directory.
 *
 *   190 good sessions (seeded, small: OpenClaw session entries and bare messages, with thinking,
 *       tool calls, displaced and missing results, compactions), two of them with huge lines
 *       (a 6 MB user turn; a 3 MB tool result among ordinary lines)
 *     4 corrupt: a line that is not JSON (line 5), a truncated last line, a line that is a
 *       number (line 3) (bare messages); a session file torn on its active path (line 6)
 *     2 empty: zero bytes; only blank lines
 *     2 unreadable even by root: a dangling symbolic link, and a directory named like a
 *       session (`folder.jsonl/`, with a session inside that must not be exported)
 *
 * plus files the walk must ignore (sessions.json, notes.txt).
 */
import { appendFile, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { generateSession } from '../../bench/generate.ts';
import { describeMessageless, fileHead, messagesWithRole } from '../../lib/session/input-check.ts';
import { sanitizeFile } from '../../lib/run.ts';
import type { HygieneOptions } from '../../lib/options.ts';

export const ANTHROPIC = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' } as const;
export const GEMINI = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' } as const;
export const RESPONSES = { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' } as const;

export interface Corpus {
  dir: string;
  /** Relative paths (to dir) of every entry named *.jsonl, good or bad. */
  all: string[];
  good: string[];
  corrupt: Array<{ rel: string; line: number }>;
  empty: string[];
  unreadable: string[];
  huge: string[];
}

export async function buildCorpus(dir: string, count = 200): Promise<Corpus> {
  const corpus: Corpus = { dir, all: [], good: [], corrupt: [], empty: [], unreadable: [], huge: [] };
  const place = (i: number): string => path.join(`agent-${i % 4}`, i % 3 === 0 ? 'archive' : '', `s${String(i).padStart(3, '0')}.jsonl`);
  const goodCount = count - 10;
  for (let i = 0; i < goodCount; i++) {
    const rel = place(i);
    await mkdir(path.join(dir, path.dirname(rel)), { recursive: true });
    await generateSession(path.join(dir, rel), {
      messages: 4 + (i % 37),
      format: i % 2 === 0 ? 'session' : 'messages',
      seed: 1000 + i,
      payloadScale: 0.02,
      displacedRate: 0.05,
      missingRate: 0.05,
      compactionEvery: i % 5 === 0 ? 12 : 0,
    });
    corpus.good.push(rel);
  }
  // Huge lines: a 6 MB user turn alone, and a 3 MB tool result among ordinary lines.
  const hugeA = path.join('agent-0', 'huge-user.jsonl');
  await writeFile(path.join(dir, hugeA), JSON.stringify({ role: 'user', content: 'x'.repeat(6_000_000) }) + '\n');
  const hugeB = path.join('agent-1', 'huge-result.jsonl');
  await generateSession(path.join(dir, hugeB), { messages: 20, format: 'messages', seed: 7, payloadScale: 0.02 });
  await appendFile(
    path.join(dir, hugeB),
    JSON.stringify({ role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_huge', name: 'read', arguments: { path: 'a' } }], stopReason: 'toolUse', timestamp: 1 }) +
      '\n' +
      JSON.stringify({ role: 'toolResult', toolCallId: 'toolu_huge', toolName: 'read', content: [{ type: 'text', text: 'y'.repeat(3_000_000) }], isError: false, timestamp: 2 }) +
      '\n',
  );
  corpus.good.push(hugeA, hugeB);
  corpus.huge.push(hugeA, hugeB);

  // Corrupt sessions: start from good ones and break one line.
  await mkdir(path.join(dir, 'broken'), { recursive: true });
  const base = async (seed: number): Promise<string[]> => {
    const file = path.join(dir, 'broken', `.base-${seed}`);
    await generateSession(file, { messages: 12, format: 'messages', seed, payloadScale: 0.02 });
    const lines = (await readFile(file, 'utf8')).split('\n');
    await rm(file);
    return lines.slice(0, -1);
  };
  const notJson = await base(1);
  notJson[4] = notJson[4]!.slice(0, 40);
  await writeFile(path.join(dir, 'broken/not-json.jsonl'), notJson.join('\n') + '\n');
  corpus.corrupt.push({ rel: 'broken/not-json.jsonl', line: 5 });
  const truncated = await base(2);
  await writeFile(path.join(dir, 'broken/truncated.jsonl'), truncated.join('\n') + '\n' + truncated[3]!.slice(0, 25));
  corpus.corrupt.push({ rel: 'broken/truncated.jsonl', line: truncated.length + 1 });
  const numberLine = await base(3);
  numberLine.splice(2, 0, '42');
  await writeFile(path.join(dir, 'broken/number-line.jsonl'), numberLine.join('\n') + '\n');
  corpus.corrupt.push({ rel: 'broken/number-line.jsonl', line: 3 });
  const tornSession = path.join(dir, 'broken', '.base-session');
  await generateSession(tornSession, { messages: 12, format: 'session', seed: 4, payloadScale: 0.02 });
  const sessionLines = (await readFile(tornSession, 'utf8')).split('\n');
  await rm(tornSession);
  sessionLines[5] = sessionLines[5]!.slice(0, 80);
  await writeFile(path.join(dir, 'broken/torn-session.jsonl'), sessionLines.join('\n'));
  corpus.corrupt.push({ rel: 'broken/torn-session.jsonl', line: 6 });

  await writeFile(path.join(dir, 'broken/empty.jsonl'), '');
  await writeFile(path.join(dir, 'broken/blank-lines.jsonl'), '\n\n  \n');
  corpus.empty.push('broken/empty.jsonl', 'broken/blank-lines.jsonl');

  await symlink('does-not-exist.jsonl', path.join(dir, 'broken/dangling.jsonl'));
  await mkdir(path.join(dir, 'broken/folder.jsonl'), { recursive: true });
  await writeFile(path.join(dir, 'broken/folder.jsonl/inside.jsonl'), JSON.stringify({ role: 'user', content: 'not exported' }) + '\n');
  corpus.unreadable.push('broken/dangling.jsonl', 'broken/folder.jsonl');

  // Not sessions: the walk must ignore them.
  await writeFile(path.join(dir, 'agent-0/sessions.json'), '{}');
  await writeFile(path.join(dir, 'agent-1/notes.txt'), 'not a session');

  corpus.all = [...corpus.good, ...corpus.corrupt.map((entry) => entry.rel), ...corpus.empty, ...corpus.unreadable].sort();
  return corpus;
}

export type Expected = { ok: true; text: string } | { ok: false; code: string; line: number | undefined };

/** What `sanitize` gives for one file, with the export's clock (the session's mtime). */
export async function sanitizeOne(file: string, options: HygieneOptions, clockOf: string = file): Promise<Expected> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const clock = Math.floor((await stat(clockOf)).mtimeMs);
  try {
    const stats = await sanitizeFile({ path: file, output, options: { ...options, now: () => clock } });
    // What the command says of an input without a message (exit 8 or 1), the export too.
    if (messagesWithRole(stats) === 0) throw describeMessageless(file, await fileHead(file));
  } catch (error) {
    const e = error as { code?: string; line?: number };
    return { ok: false, code: e.code ?? 'error', line: e.line };
  }
  output.end();
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}
