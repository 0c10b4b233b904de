/**
 * Whole-session facts that come from the path, not from the messages: the thinking level and
 * model of buildSessionContext (spec/session-file.md §6.1), and the model-switch time S of the
 * OpenAI reasoning rule (spec/thinking.md §4.11, `readModelSnapshotState` plus the current call).
 */
import { ROLE_ASSISTANT, ROLE_UNKNOWN } from './prefix-scan.ts';
import { T_MESSAGE, T_MODEL_CHANGE, T_THINKING_LEVEL_CHANGE, T_CUSTOM } from './entry-types.ts';
import type { SessionIndex } from './index-pass.ts';
import { isRecord } from '../types.ts';

export interface SessionModel {
  provider: unknown;
  modelId: unknown;
}

/** The last thinking_level_change on the path, or "off". */
export function thinkingLevelOf(index: SessionIndex, path: Int32Array): unknown {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    if (index.type.get(entry) === T_THINKING_LEVEL_CHANGE) return index.thinkingLevels.get(entry);
  }
  return 'off';
}

/**
 * The last model_change or assistant message on the path. Assistant messages are read back
 * through `readMessage` (one line; only the last candidates are ever read).
 */
export async function modelOf(index: SessionIndex, path: Int32Array, readMessage: (entry: number) => Promise<unknown>): Promise<SessionModel | null> {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i]!;
    const type = index.type.get(entry);
    if (type === T_MODEL_CHANGE) {
      const change = index.modelChanges.get(entry)!;
      return { provider: change.provider, modelId: change.modelId };
    }
    if (type !== T_MESSAGE) continue;
    const role = index.role.get(entry);
    if (role !== ROLE_ASSISTANT && role !== ROLE_UNKNOWN) continue;
    const message = await readMessage(entry);
    if (isRecord(message) && message.role === 'assistant') return { provider: message.provider, modelId: message.model };
  }
  return null;
}

export interface RouteSnapshot {
  provider?: string;
  modelApi?: string;
  modelId?: string;
}

function sameSnapshot(a: RouteSnapshot | { provider: unknown; modelApi: unknown; modelId: unknown }, b: RouteSnapshot | { provider: unknown; modelApi: unknown; modelId: unknown }): boolean {
  return (a.provider ?? '') === (b.provider ?? '') && (a.modelApi ?? '') === (b.modelApi ?? '') && (a.modelId ?? '') === (b.modelId ?? '');
}

/**
 * S of §4.11: the timestamp of the latest `model-snapshot` on the path that differs from the one
 * before it (a finite number), or `now` when the route differs from the last snapshot. Undefined
 * when there is no switch, or when the route is empty (the reference derives nothing then).
 */
export function modelSwitchedAtOf(index: SessionIndex, path: Int32Array, route: RouteSnapshot, now: () => number): number | undefined {
  if (!route.provider && !route.modelApi && !route.modelId) return undefined;
  let last: { provider: unknown; modelApi: unknown; modelId: unknown } | undefined;
  let switchedAt: number | undefined;
  for (const entry of path) {
    if (index.type.get(entry) !== T_CUSTOM) continue;
    const snapshot = index.snapshots.get(entry);
    if (snapshot === undefined) continue;
    if (last !== undefined && !sameSnapshot(last, snapshot) && Number.isFinite(snapshot.timestamp)) switchedAt = snapshot.timestamp as number;
    last = snapshot;
  }
  if (last !== undefined && !sameSnapshot(last, route)) return now();
  return switchedAt;
}
