/**
 * The provider routes of an export: validated, named (the name is the output subdirectory
 * when there are several) and hashed (the hash is what the manifest compares to decide
 * whether an earlier output is still current).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { packageVersion } from '../package-version.ts';
import { HygieneError } from '../errors.ts';
import { resolveHygieneOptions, type HygieneOptions } from '../options.ts';
import type { RedactOptions } from '../secrets/redact-options.ts';

/**
 * One route, as the library takes it and as a route file lists it. Only plain data: the
 * options travel to worker threads. Fields that change the output are part of the options hash.
 */
export interface ExportRoute {
  /** Output subdirectory when several routes are given (default `<provider>-<modelId>`). */
  name?: string;
  provider: string;
  modelApi: string;
  modelId: string;
  reasoning?: boolean;
  thinking?: boolean;
  imageMaxDimensionPx?: number;
  imageMaxBytes?: number;
  allowedToolNames?: readonly string[];
  modelSwitchedAt?: number;
  /** Images recompressed at once within one job (default: the threadpool shared fairly between jobs). */
  concurrency?: number;
  memoryBudgetBytes?: number;
  /** Redaction (lib/secrets/redact-options.ts); patterns as `/source/flags` strings in a route file. */
  redact?: RedactOptions;
  /** `false`: the requests define no tools (calls and results as text). */
  tools?: boolean;
  /** Tool result text over this many bytes keeps its head and tail. */
  maxToolResultBytes?: number;
}

export type ExportFormat = 'jsonl' | 'json';

/** A route ready to run: its name, the plain options a worker gets, and the options hash. */
export interface PlannedRoute {
  readonly name: string;
  readonly options: HygieneOptions;
  readonly hash: string;
}

const ROUTE_KEYS: ReadonlySet<string> = new Set([
  'name',
  'provider',
  'modelApi',
  'modelId',
  'reasoning',
  'thinking',
  'imageMaxDimensionPx',
  'imageMaxBytes',
  'allowedToolNames',
  'modelSwitchedAt',
  'concurrency',
  'memoryBudgetBytes',
  'redact',
  'tools',
  'maxToolResultBytes',
]);

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

let toolVersion: string | undefined;

/** `transcript-hygiene@<version>`, read once from package.json: a new version redoes every output. */
export function toolId(): string {
  toolVersion ??= `transcript-hygiene@${packageVersion()}`;
  return toolVersion;
}

function invalidRoute(where: string, message: string): HygieneError {
  return new HygieneError('invalid_option', `${where}: ${message}`);
}

function defaultName(route: ExportRoute): string {
  return `${route.provider}-${route.modelId}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '').slice(0, 100) || 'route';
}

/**
 * Validates the routes (each through resolveHygieneOptions), names them and computes each one's
 * options hash. `repair` (sessions repaired before export) is part of the hash when on.
 */
export function planRoutes(routes: readonly ExportRoute[], format: ExportFormat, run: { repair?: boolean } = {}): PlannedRoute[] {
  if (!Array.isArray(routes) || routes.length === 0) throw new HygieneError('invalid_option', 'no route to export for: give --provider, --model-api and --model-id, or --route-file');
  const planned: PlannedRoute[] = [];
  const names = new Map<string, number>();
  routes.forEach((raw, i) => {
    const where = `route ${i + 1}`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidRoute(where, 'expected an object');
    for (const key of Object.keys(raw)) {
      if (!ROUTE_KEYS.has(key)) throw invalidRoute(where, `unknown field "${key}" (allowed: ${[...ROUTE_KEYS].join(', ')})`);
    }
    const route: ExportRoute = raw;
    for (const key of ['provider', 'modelApi', 'modelId'] as const) {
      if (typeof route[key] !== 'string' || route[key] === '') throw invalidRoute(where, `"${key}" must be a non-empty string`);
    }
    const name = route.name ?? defaultName(route);
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
      throw invalidRoute(where, `"name" must be 1-100 letters, digits, '.', '_' or '-' (it names a directory), got ${JSON.stringify(name)}`);
    }
    const clash = names.get(name);
    if (clash !== undefined) throw invalidRoute(where, `routes ${clash + 1} and ${i + 1} are both named "${name}"; give each a distinct "name"`);
    names.set(name, i);
    const { name: _name, ...rest } = route;
    const options: HygieneOptions = { ...rest, allowedToolNames: rest.allowedToolNames === undefined ? undefined : [...rest.allowedToolNames] };
    const resolved = resolveHygieneOptions(options);
    // Only what changes the output: memory budget and image concurrency do not (DESIGN.md).
    const material = {
      tool: toolId(),
      format,
      provider: resolved.provider,
      modelApi: resolved.modelApi,
      modelId: resolved.modelId,
      reasoning: resolved.reasoning,
      thinking: resolved.thinking,
      imageMaxDimensionPx: resolved.imageMaxDimensionPx,
      imageMaxBytes: resolved.imageMaxBytes,
      allowedToolNames: resolved.allowedToolNames ?? null,
      modelSwitchedAt: resolved.modelSwitchedAt ?? null,
      ...(resolved.redact === undefined ? {} : { redact: resolved.redact.key }),
      ...(resolved.tools ? {} : { tools: false }),
      ...(resolved.maxToolResultBytes === undefined ? {} : { maxToolResultBytes: resolved.maxToolResultBytes }),
      ...(run.repair === true ? { repair: true } : {}),
    };
    const hash = createHash('sha256').update(JSON.stringify(material)).digest('hex').slice(0, 32);
    planned.push({ name, options, hash });
  });
  return planned;
}

/** Reads a route file: a JSON array of routes, or `{"routes": [...]}`. */
export async function readRouteFile(file: string): Promise<ExportRoute[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new HygieneError('invalid_option', `${file}: cannot read the route file (${(error as Error).message})`, { source: file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HygieneError('invalid_option', `${file}: the route file is not valid JSON (${(error as Error).message})`, { source: file });
  }
  const routes = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? (value as { routes?: unknown }).routes : undefined;
  if (!Array.isArray(routes) || routes.length === 0) {
    throw new HygieneError('invalid_option', `${file}: expected a non-empty JSON array of routes, or {"routes": [...]}`, { source: file });
  }
  return routes as ExportRoute[];
}
