#!/usr/bin/env node
/**
 * Makes the OpenClaw database fixtures with OpenClaw itself (2026.9.6, the oracle's install):
 *
 * 1. writes legacy JSONL sessions (branches, compaction, tool calls, thinking, images, a v1 file,
 *    a large session whose entries OpenClaw stores zstd-compressed) into a throwaway state
 *    directory, `agents/<id>/sessions/sessions.json` plus `<sessionId>.jsonl`;
 * 2. runs `openclaw doctor --session-sqlite import --session-sqlite-all-agents --json` there under
 *    Node 24 (OPENCLAW_STATE_DIR and HOME point at it), which writes
 *    `agents/<id>/agent/openclaw-agent.sqlite`;
 * 3. copies each database (its -wal is empty after the import, so the main file is whole) to
 *    fixtures/openclaw-db/state/agents/<id>/agent/, and the legacy files to fixtures/openclaw-db/legacy/;
 * 4. records OpenClaw's own reader, SessionManager.readSessionContext (openclaw/plugin-sdk/agent-sessions),
 *    on every session to fixtures/openclaw-db/reference/<agent>/<sessionId>.json.
 *
 *   node scripts/openclaw-db-fixtures.mjs        (needs ../shared/oracle/setup.sh's install and `npm run provision`)
 *
 * Tests read only what this writes; none of them needs OpenClaw. Nothing here is written by hand
 * into a database.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeNode } from './provision.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const peer = process.env.TH_PEER_DIR ?? path.join(homedir(), '.cache', 'th-peer');
const openclaw = path.join(peer, 'node_modules', 'openclaw');
const out = path.join(root, 'fixtures', 'openclaw-db');
const node24 = runtimeNode('node24');

// ---- deterministic content ----

let seed = 0x2026_0906;
function random() {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
}
const WORDS = 'the session tool result branch summary compaction model provider image token stream replay reader index path entry parent leaf snapshot writer row seq'.split(' ');
function prose(words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  return out.join(' ');
}
const BASE = Date.UTC(2026, 5, 1, 12, 0, 0);
let clock = 0;
function tick() {
  clock += 1000;
  return BASE + clock;
}
const iso = (ms) => new Date(ms).toISOString();
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
// A 2x2 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';

class Session {
  constructor(id, { version = 3 } = {}) {
    this.id = id;
    this.lines = [];
    this.next = 0;
    this.leaf = null;
    const header = { type: 'session', version, id, timestamp: iso(BASE), cwd: '/work/project' };
    if (version === undefined) delete header.version;
    this.lines.push(header);
  }
  entry(type, fields, parent = this.leaf) {
    const id = `${this.id.slice(0, 4)}${(++this.next).toString(16).padStart(4, '0')}`;
    const at = tick();
    this.lines.push({ type, id, parentId: parent, timestamp: iso(at), ...fields });
    this.leaf = id;
    return { id, at };
  }
  user(content) {
    const at = tick();
    return this.entry('message', { message: { role: 'user', content, timestamp: at } }).id;
  }
  assistant(content, { provider = 'anthropic', api = 'anthropic-messages', model = 'claude-sonnet-4-5', stopReason = 'stop', ...extra } = {}) {
    const at = tick();
    return this.entry('message', { message: { role: 'assistant', content, api, provider, model, usage, stopReason, timestamp: at, ...extra } }).id;
  }
  /** A message of any role with its own fields (excludeFromContext, bashExecution's). */
  message(message, parent = this.leaf) {
    return this.entry('message', { message: { ...message, timestamp: tick() } }, parent).id;
  }
  toolResult(toolCallId, toolName, content, isError = false) {
    const at = tick();
    return this.entry('message', { message: { role: 'toolResult', toolCallId, toolName, content, isError, timestamp: at } }).id;
  }
  /** A record as it is (a `leaf` control): it does not move this writer's leaf. */
  record(fields) {
    const id = `${this.id.slice(0, 4)}${(++this.next).toString(16).padStart(4, '0')}`;
    this.lines.push({ id, timestamp: iso(tick()), ...fields });
    return id;
  }
  text() {
    return this.lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
  }
}

function toolsSession() {
  const s = new Session('a1b2c3d4-0001-4000-8000-000000000001');
  s.entry('model_change', { provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  s.entry('thinking_level_change', { thinkingLevel: 'high' });
  s.user('List the files, then read the README.');
  s.assistant(
    [
      { type: 'thinking', thinking: 'I should list the directory first.', thinkingSignature: 'c2lnbmF0dXJlLW9uZQ==' },
      { type: 'text', text: 'Listing the files.' },
      { type: 'toolCall', id: 'toolu_01', name: 'bash', arguments: { command: 'ls' } },
    ],
    { stopReason: 'toolUse' },
  );
  s.toolResult('toolu_01', 'bash', [{ type: 'text', text: 'README.md\npackage.json' }]);
  s.assistant([{ type: 'toolCall', id: 'toolu_02', name: 'read', arguments: { path: 'README.md' } }], { stopReason: 'toolUse' });
  s.toolResult('toolu_02', 'read', 'The README, as a plain string.');
  s.assistant('It is a short README (string content).');
  s.user([{ type: 'text', text: 'Run the tests.' }]);
  s.assistant([{ type: 'toolCall', id: 'call|fc_1', name: 'bash', arguments: { command: 'npm test' } }], { provider: 'openai', api: 'openai-responses', model: 'gpt-5', stopReason: 'toolUse' });
  s.toolResult('call|fc_1', 'bash', [{ type: 'text', text: 'exit 1' }], true);
  s.assistant([{ type: 'text', text: 'The tests failed.' }], { provider: 'openai', api: 'openai-responses', model: 'gpt-5' });
  s.entry('session_info', { name: 'Tools and thinking' });
  return s;
}

function branchesSession() {
  const s = new Session('a1b2c3d4-0002-4000-8000-000000000002');
  s.user('Pick a plan.');
  const fork = s.assistant([{ type: 'text', text: 'Plan A or plan B?' }]);
  s.user('Plan A.');
  s.assistant([{ type: 'text', text: 'Plan A it is.' }]);
  s.user('On second thought...');
  // Back to the fork: a branch summary of the abandoned branch, then the new branch.
  s.leaf = fork;
  s.entry('branch_summary', { fromId: fork, summary: 'Plan A was tried and dropped.' });
  s.user('Plan B.');
  s.assistant([{ type: 'text', text: 'Plan B it is.' }]);
  s.entry('label', { targetId: fork, label: 'fork point' });
  s.user('Go on.');
  s.assistant([{ type: 'text', text: 'Going on with plan B.' }]);
  return s;
}

function compactionSession() {
  const s = new Session('a1b2c3d4-0003-4000-8000-000000000003');
  const ids = [];
  for (let i = 0; i < 5; i++) {
    ids.push(s.user(`Question ${i}: ${prose(12)}`));
    ids.push(s.assistant([{ type: 'text', text: `Answer ${i}: ${prose(20)}` }]));
  }
  s.entry('compaction', { summary: `Earlier: ${prose(30)}`, firstKeptEntryId: ids[6], tokensBefore: 12345 });
  s.entry('custom_message', { customType: 'note', content: 'A custom message after the compaction.', display: true });
  s.user('After the compaction.');
  s.assistant([{ type: 'text', text: 'Still here.' }]);
  return s;
}

function imagesSession() {
  const s = new Session('a1b2c3d4-0004-4000-8000-000000000004');
  s.user([
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ]);
  s.assistant([{ type: 'toolCall', id: 'toolu_img', name: 'screenshot', arguments: {} }], { stopReason: 'toolUse' });
  s.toolResult('toolu_img', 'screenshot', [
    { type: 'text', text: 'Screenshot taken.' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ]);
  s.assistant([{ type: 'text', text: 'A tiny image.' }]);
  return s;
}

function largeSession() {
  const s = new Session('a1b2c3d4-0005-4000-8000-000000000005');
  for (let turn = 0; turn < 150; turn++) {
    s.user(`Turn ${turn}: ${prose(8)}`);
    const call = `toolu_${turn.toString().padStart(4, '0')}`;
    s.assistant(
      [
        { type: 'thinking', thinking: prose(40), thinkingSignature: Buffer.from(`sig-${turn}`).toString('base64') },
        { type: 'toolCall', id: call, name: 'read', arguments: { path: `src/file-${turn}.ts` } },
      ],
      { stopReason: 'toolUse' },
    );
    // Tool output of 1-6 KB: OpenClaw stores it zstd-compressed.
    s.toolResult(call, 'read', [{ type: 'text', text: prose(150 + Math.floor(random() * 750)) }]);
    s.assistant([{ type: 'text', text: prose(20 + Math.floor(random() * 400)) }]);
  }
  return s;
}

function v1Session() {
  // Version 1: no version, no ids; a compaction by index; a v2-era hookMessage.
  const id = 'a1b2c3d4-0006-4000-8000-000000000006';
  const lines = [{ type: 'session', id, timestamp: iso(BASE), cwd: '/work/old' }];
  const message = (m) => ({ type: 'message', timestamp: iso(tick()), message: m });
  lines.push(message({ role: 'user', content: 'First, in a v1 file.', timestamp: tick() }));
  lines.push(message({ role: 'assistant', content: [{ type: 'text', text: 'First answer.' }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: 'stop', timestamp: tick() }));
  lines.push(message({ role: 'user', content: 'Second.', timestamp: tick() }));
  lines.push(message({ role: 'assistant', content: 'Second answer, string content.', api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: 'stop', timestamp: tick() }));
  lines.push({ type: 'compaction', timestamp: iso(tick()), summary: 'The first exchange.', firstKeptEntryIndex: 3, tokensBefore: 99 });
  lines.push(message({ role: 'hookMessage', customType: 'hook', content: 'hook!', display: false, timestamp: tick() }));
  lines.push(message({ role: 'user', content: 'Third.', timestamp: tick() }));
  return { id, text: () => lines.map((line) => JSON.stringify(line)).join('\n') + '\n' };
}

function providersSession() {
  // Provider names as older releases wrote them, next to current ones.
  const s = new Session('a1b2c3d4-0007-4000-8000-000000000007');
  const providers = [
    ['google-gemini-cli', 'google-gemini-cli', 'gemini-2.5-pro'],
    ['google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5'],
    ['amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5'],
    ['openai-codex', 'openai-codex-responses', 'gpt-5-codex'],
    ['zai', 'openai-completions', 'glm-4.6'],
    ['qwen-portal', 'openai-completions', 'qwen3-coder'],
    ['github-copilot', 'openai-completions', 'gpt-4.1'],
  ];
  for (const [provider, api, model] of providers) {
    s.user(`Ask ${provider}.`);
    s.assistant([{ type: 'text', text: `Answer from ${provider}.` }], { provider, api, model });
  }
  return s;
}

function opsSession() {
  const s = new Session('b5e6f7a8-0001-4000-8000-000000000011');
  s.user('Check the disk.');
  s.assistant([{ type: 'toolCall', id: 'toolu_df', name: 'bash', arguments: { command: 'df -h' } }], { stopReason: 'toolUse' });
  s.toolResult('toolu_df', 'bash', [{ type: 'text', text: '/dev/sda1 40% used' }]);
  s.assistant([{ type: 'text', text: 'The disk is 40% used.' }]);
  return s;
}

// ---- OpenClaw 2026.9's reader rules (reset boundaries, excludeFromContext, the tree scan) ----

// A provider's compaction checkpoint: OpenClaw drops it from assistants outside the current window.
const CHECKPOINT = { providerReplay: { type: 'anthropic-compaction', replayIndex: 0, content: 'opaque-compaction-state' } };

function resetKeptSession() {
  // A reset keeping, from firstKeptEntryId, user and assistant turns and the tool results paired
  // with a call among them; everything else of that window is dropped.
  const s = new Session('a1b2c3d4-0008-4000-8000-000000000008');
  s.user('Before the kept window.');
  s.assistant([{ type: 'text', text: 'Not kept: before firstKeptEntryId.' }]);
  const first = s.user('First kept question.');
  s.assistant(
    [
      { type: 'text', text: 'Two calls, one answered.' },
      { type: 'toolCall', id: 'toolu_paired', name: 'bash', arguments: { command: 'ls' } },
      { type: 'toolCall', id: 'toolu_late', name: 'read', arguments: { path: 'a' } },
      { type: 'toolCall', id: 'toolu_unanswered', name: 'bash', arguments: { command: 'pwd' } },
    ],
    { stopReason: 'toolUse', ...CHECKPOINT },
  );
  s.toolResult('toolu_paired', 'bash', [{ type: 'text', text: 'paired result' }]);
  s.toolResult('toolu_paired', 'bash', [{ type: 'text', text: 'a second result for the same call' }]);
  s.toolResult('toolu_orphan', 'bash', [{ type: 'text', text: 'a result with no call' }]);
  s.assistant([{ type: 'toolCall', id: 'toolu_next', name: 'bash', arguments: { command: 'id' } }], { stopReason: 'toolUse' });
  s.toolResult('toolu_next', 'bash', [{ type: 'text', text: 'uid=0' }]);
  s.toolResult('toolu_late', 'read', [{ type: 'text', text: 'a result after the next call' }]);
  s.entry('custom_message', { customType: 'note', content: 'Not kept: a custom message in the window.', display: true });
  s.message({ role: 'user', content: 'Kept although excluded from context.', excludeFromContext: true });
  s.message({ role: 'bashExecution', command: 'ls', output: 'x', exitCode: 0, cancelled: false, truncated: false });
  s.assistant([{ type: 'text', text: 'Last kept answer.' }]);
  s.entry('reset', { reason: 'reset', firstKeptEntryId: first });
  s.user('After the reset.');
  s.assistant([{ type: 'text', text: 'Fresh start, with the kept turns.' }], CHECKPOINT);
  return s;
}

function resetPlainSession() {
  // A reset without firstKeptEntryId keeps nothing before it; an entry appended after it whose
  // parent is before the reset is re-attached to the current leaf, as is one naming no known parent.
  const s = new Session('a1b2c3d4-0009-4000-8000-000000000009');
  s.user('Before the reset.');
  const before = s.assistant([{ type: 'text', text: 'Gone after the reset.' }]);
  s.entry('reset', { reason: 'new' });
  s.user('After the reset.');
  s.assistant([{ type: 'text', text: 'New session.' }]);
  s.leaf = before;
  s.user('Written with a parent from before the reset.');
  s.assistant([{ type: 'text', text: 'Still after the reset.' }]);
  s.leaf = 'a1b2ffff';
  s.user('Written with a parent nobody knows.');
  s.assistant([{ type: 'text', text: 'Last.' }]);
  return s;
}

function resetThenCompactionSession() {
  // The latest boundary wins: a compaction after a reset keeps from its own firstKeptEntryId.
  const s = new Session('a1b2c3d4-000a-4000-8000-00000000000a');
  const first = s.user('Before the reset.');
  s.assistant([{ type: 'text', text: 'Answer before the reset.' }]);
  s.entry('reset', { reason: 'idle', firstKeptEntryId: first });
  s.user('After the reset.');
  const kept = s.assistant([{ type: 'text', text: 'Kept by the compaction, its checkpoint dropped.' }], CHECKPOINT);
  s.message({ role: 'user', content: 'Excluded, in the compaction window.', excludeFromContext: true });
  s.user('Also kept.');
  s.entry('compaction', { summary: 'The reset and what followed.', firstKeptEntryId: kept, tokensBefore: 4321 });
  s.user('After the compaction.');
  s.assistant([{ type: 'text', text: 'Current, checkpoint kept.' }], CHECKPOINT);
  return s;
}

function compactionThenResetSession() {
  // A reset after a compaction: its window spans the compaction, which yields nothing there.
  const s = new Session('a1b2c3d4-000b-4000-8000-00000000000b');
  s.user('Oldest.');
  s.assistant([{ type: 'text', text: 'Oldest answer.' }]);
  const first = s.user('Kept by both.');
  s.assistant([{ type: 'text', text: 'Kept answer.' }]);
  s.entry('compaction', { summary: 'The oldest exchange.', firstKeptEntryId: first, tokensBefore: 2222 });
  s.user('Between the compaction and the reset.');
  s.assistant([{ type: 'text', text: 'Answer between.' }]);
  s.entry('reset', { reason: 'daily', firstKeptEntryId: first });
  s.user('After the reset.');
  s.assistant([{ type: 'text', text: 'Done.' }]);
  return s;
}

function excludeSession() {
  // excludeFromContext drops a message of any role, in a compaction's kept window and after it;
  // an entry in the middle naming an unknown parent is re-attached to the leaf.
  const s = new Session('a1b2c3d4-000c-4000-8000-00000000000c');
  const first = s.user('Start.');
  s.assistant([{ type: 'text', text: 'Started.' }]);
  s.message({ role: 'user', content: 'Excluded, in the kept window.', excludeFromContext: true });
  s.entry('compaction', { summary: 'The start.', firstKeptEntryId: first, tokensBefore: 111 });
  s.user('After the compaction.');
  s.message({ role: 'user', content: 'Excluded user message.', excludeFromContext: true });
  s.message({ role: 'bashExecution', command: 'make', output: 'built', exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true });
  s.message({ role: 'bashExecution', command: 'ls', output: 'src', exitCode: 0, cancelled: false, truncated: false });
  s.message({ role: 'custom', customType: 'note', content: 'Excluded custom message.', display: true, excludeFromContext: true });
  s.message({ role: 'user', content: 'Not excluded: the flag is false.', excludeFromContext: false });
  s.leaf = 'c0ffee00';
  s.user('A parent nobody knows, in the middle.');
  s.assistant([{ type: 'text', text: 'Answered.' }]);
  s.user('Last question.');
  s.assistant([{ type: 'text', text: 'Last answer.' }]);
  return s;
}

function navigationSession() {
  // After a reset, a leaf control cannot leave the reset's subtree (it selects the current leaf),
  // and an entry whose parent is before the reset goes under the leaf; entries beside the branch
  // (appendMode "side") do not move the leaf, and one naming the last of them goes under the leaf.
  const s = new Session('a1b2c3d4-000d-4000-8000-00000000000d');
  s.user('Before the reset.');
  const before = s.assistant([{ type: 'text', text: 'Gone after the reset.' }]);
  s.entry('reset', { reason: 'reset' });
  s.user('After the reset.');
  const after = s.assistant([{ type: 'text', text: 'After.' }]);
  s.record({ type: 'leaf', parentId: after, targetId: before });
  s.leaf = before;
  s.user('Appended where the leaf control pointed, before the reset.');
  const current = s.assistant([{ type: 'text', text: 'Still in the reset subtree.' }]);
  const side = s.entry('custom_message', { customType: 'note', content: 'Beside the branch.', display: true, appendMode: 'side' }, current).id;
  const appended = s.message({ role: 'user', content: 'A side message: not on the path.' }, side);
  s.lines.at(-1).appendMode = 'side';
  // Named as parent while it is the append parent but not the leaf: the entry goes under the leaf.
  s.leaf = appended;
  s.user('Parent is the last side entry: goes under the leaf.');
  s.assistant([{ type: 'text', text: 'Done.' }]);
  return s;
}

// Built in this order so that the sessions added later do not move the earlier ones' clock.
const main = [
  ['agent:main:main', toolsSession()],
  ['agent:main:branches', branchesSession()],
  ['agent:main:compaction', compactionSession()],
  ['agent:main:images', imagesSession()],
  ['agent:main:large', largeSession()],
  ['agent:main:v1', v1Session()],
  ['agent:main:providers', providersSession()],
];
const ops = [['agent:ops:main', opsSession()]];
main.push(
  ['agent:main:reset-kept', resetKeptSession()],
  ['agent:main:reset-plain', resetPlainSession()],
  ['agent:main:reset-compaction', resetThenCompactionSession()],
  ['agent:main:compaction-reset', compactionThenResetSession()],
  ['agent:main:exclude', excludeSession()],
  ['agent:main:navigation', navigationSession()],
);
const AGENTS = { main, ops };

// ---- run OpenClaw ----

const work = mkdtempSync(path.join(tmpdir(), 'th-openclaw-fixtures-'));
const state = path.join(work, 'state');
rmSync(out, { recursive: true, force: true });
for (const [agent, sessions] of Object.entries(AGENTS)) {
  const dir = path.join(state, 'agents', agent, 'sessions');
  const legacy = path.join(out, 'legacy', agent);
  mkdirSync(dir, { recursive: true });
  mkdirSync(legacy, { recursive: true });
  const store = {};
  for (const [key, session] of sessions) {
    const file = `${session.id}.jsonl`;
    writeFileSync(path.join(dir, file), session.text());
    writeFileSync(path.join(legacy, file), session.text());
    store[key] = { sessionId: session.id, updatedAt: BASE + clock, sessionFile: file };
  }
  writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(store, null, 2));
  writeFileSync(path.join(legacy, 'sessions.json'), JSON.stringify(store, null, 2));
}

const env = { ...process.env, OPENCLAW_STATE_DIR: state, HOME: work };
const report = execFileSync(node24, [path.join(openclaw, 'openclaw.mjs'), 'doctor', '--session-sqlite', 'import', '--session-sqlite-all-agents', '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
const totals = JSON.parse(report.slice(report.indexOf('{'))).totals;
if (totals.issues !== 0) throw new Error(`the import reported issues: ${JSON.stringify(totals)}`);
process.stderr.write(`openclaw doctor import: ${totals.importedEntries} sessions, ${totals.importedTranscriptEvents} events\n`);

// The reference reader, on every session: its messages as SessionManager.readSessionContext yields them.
const readerScript = path.join(work, 'read-context.mjs');
writeFileSync(
  readerScript,
  `import { SessionManager } from ${JSON.stringify(path.join(openclaw, 'dist', 'plugin-sdk', 'agent-sessions.js'))};
const [agentId, sessionKey, sessionId] = process.argv.slice(2);
const out = SessionManager.readSessionContext({ agentId, sessionKey, sessionId }, (messages) => [...messages]);
process.stdout.write(JSON.stringify(out));
`,
);

for (const [agent, sessions] of Object.entries(AGENTS)) {
  const database = path.join(state, 'agents', agent, 'agent', 'openclaw-agent.sqlite');
  const target = path.join(out, 'state', 'agents', agent, 'agent');
  mkdirSync(target, { recursive: true });
  copyFileSync(database, path.join(target, 'openclaw-agent.sqlite'));
  const referenceDir = path.join(out, 'reference', agent);
  mkdirSync(referenceDir, { recursive: true });
  for (const [key, session] of sessions) {
    const messages = JSON.parse(execFileSync(node24, [readerScript, agent, key, session.id], { env, encoding: 'utf8', maxBuffer: 64 << 20 }));
    writeFileSync(path.join(referenceDir, `${session.id}.json`), JSON.stringify({ agent, key, sessionId: session.id, messages }, null, 1) + '\n');
  }
}
const left = readdirSync(path.join(state, 'agents', 'main', 'agent'));
process.stderr.write(`wrote ${path.relative(root, out)} (the import left ${left.join(', ')} in its state directory)\n`);
rmSync(work, { recursive: true, force: true });
