// Types of lib/process-settings.js (plain JavaScript, so that the bin can read it before tsx loads).
export declare const TUNED_MARK: 'TRANSCRIPT_HYGIENE_TUNED';
export declare const LIFELINE_ENV: 'TRANSCRIPT_HYGIENE_LIFELINE_FD';
export declare const HEAP_LIMIT_ENV: 'TRANSCRIPT_HYGIENE_HEAP_MB';
export declare const DEFAULT_HEAP_LIMIT_MB: number;
export declare const NODE_FLAGS: readonly string[];
export declare const DEFAULT_MALLOC_ARENA_MAX: string;
export declare const OUT_OF_MEMORY_EXIT: 10;
export interface TunedProcessSettings {
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  heapLimitMb: number | undefined;
}
export declare function tunedProcessSettings(args: readonly string[], env: NodeJS.ProcessEnv, execArgv: readonly string[]): TunedProcessSettings | undefined;
export declare function outOfMemoryMessage(heapLimitMb: number | undefined): string;
