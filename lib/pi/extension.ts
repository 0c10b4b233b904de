/**
 * transcript-hygiene as a pi extension: before every model call, pi's context goes through the
 * hygiene for the route of the model about to be called, request-time rules included.
 *
 * pi hands the `context` handler a deep copy of its messages (pi's own kinds included: bash
 * executions, custom messages, branch and compaction summaries) before `convertToLlm` turns them
 * into provider messages. The rules pass those kinds through as they are, in place; untouched
 * messages come back as the same objects, and a context that needs nothing is left to pi as it
 * was (no result returned).
 *
 * It never throws into pi: an `invalid_replay_transcript` (the route's rules cannot make the
 * transcript valid) or any internal error is reported once, and the original messages go on.
 * In interactive and RPC mode the footer shows whose rules ran and what the last context needed
 * ("hygiene (anthropic rules): 2 missing results added, 1 id rewritten"). The rules are the
 * request's (./request-rules.ts: the model's api, id and base URL), not pi's provider name's.
 *
 * Secrets are redacted only when pi is started with TRANSCRIPT_HYGIENE_REDACT=secrets (./redact.ts).
 *
 * A call whose context extends the previous call's pays for the new messages only; anything else
 * (an edit, a compaction, a branch or model switch) runs in full (lib/incremental/). The result is
 * the same either way. TRANSCRIPT_HYGIENE_INCREMENTAL=off keeps nothing between calls.
 *
 * Enable: `pi -e <path to this file>`, a file in `~/.pi/agent/extensions/`, or the package's
 * `./pi` entry (README, "Use it in pi").
 */
import { isHygieneError } from '../errors.ts';
import { sanitizeInMemory, type InMemoryResult } from '../in-memory.ts';
import { IncrementalSanitizer } from '../incremental/incremental-sanitizer.ts';
import { describeCall, routeOf, type PiCall } from './route.ts';
import { statusText, summarizeRepairs } from './status.ts';
import { redactionFromEnv } from './redact.ts';
import type { PiContextEvent, PiContextEventResult, PiExtensionAPI, PiExtensionContext } from './types.ts';

export type { PiExtensionAPI, PiExtensionContext, PiContextEvent, PiContextEventResult, PiModel, PiThinkingLevel, PiUI } from './types.ts';

/** The environment variable that turns on the tool result limit (`maxToolResultBytes`). */
export const MAX_TOOL_RESULT_BYTES_ENV = 'TRANSCRIPT_HYGIENE_MAX_TOOL_RESULT_BYTES';

/** `off` turns off the reuse of the previous call's work (each call then runs the whole context, keeping nothing). */
export const INCREMENTAL_ENV = 'TRANSCRIPT_HYGIENE_INCREMENTAL';

/** The footer status key. */
export const STATUS_KEY = 'transcript-hygiene';

/**
 * Reports each distinct failure once per pi process: a broken transcript fails the same way on
 * every call, only the message index in the text moving as the context grows.
 */
class FailureReporter {
  private readonly reported = new Set<string>();

  report(error: unknown, call: PiCall, ctx: PiExtensionContext): void {
    const reason = error instanceof Error ? error.message : String(error);
    const code = isHygieneError(error) ? error.code : 'internal_error';
    const key = `${code}\n${reason.replace(/\d+/g, '#')}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const line = `transcript-hygiene: ${code} for ${describeCall(call)}: ${reason}. The context was sent unchanged.`;
    try {
      if (ctx.hasUI) ctx.ui.notify(line, 'warning');
      // Print and JSON modes have no UI (notify does nothing there): stderr is where the user looks.
      else process.stderr.write(`${line}\n`);
    } catch {
      // Reporting must not be what breaks the call.
    }
  }
}

/** One line to the user: a notification, or stderr where pi has no UI. */
function tell(ctx: PiExtensionContext, line: string): void {
  try {
    if (ctx.hasUI) ctx.ui.notify(line, 'warning');
    else process.stderr.write(`${line}\n`);
  } catch {
    // Telling must not be what breaks the call.
  }
}

function showStatus(ctx: PiExtensionContext, call: PiCall, result: InMemoryResult, last: { text: string | undefined }): void {
  if (!ctx.hasUI) return;
  const text = statusText(summarizeRepairs(result.stats), call.rules);
  if (text === last.text) return;
  last.text = text;
  try {
    ctx.ui.setStatus(STATUS_KEY, text);
  } catch {
    // A status line is not worth failing the call for.
  }
}

/** The extension factory pi calls once at start-up. */
export default function transcriptHygiene(pi: PiExtensionAPI): void {
  registerContextHandler(pi, process.env[INCREMENTAL_ENV] === 'off' ? undefined : new IncrementalSanitizer());
}

/**
 * Registers the `context` handler. With `incremental`, a call whose context extends the previous
 * one reuses its work (lib/incremental/incremental-sanitizer.ts); the bench passes its own to read
 * how many calls ran each way.
 */
export function registerContextHandler(pi: PiExtensionAPI, incremental: IncrementalSanitizer | undefined): void {
  const failures = new FailureReporter();
  const lastStatus: { text: string | undefined } = { text: undefined };
  const redaction = redactionFromEnv(process.env);
  let redactionProblem = redaction.problem;
  // TRANSCRIPT_HYGIENE_MAX_TOOL_RESULT_BYTES=N cuts tool results to N bytes (off when unset; a bad value is reported as invalid_option).
  const maxBytes = process.env[MAX_TOOL_RESULT_BYTES_ENV];
  const limit = maxBytes === undefined || maxBytes === '' ? {} : { maxToolResultBytes: Number(maxBytes) };

  pi.on('context', async (event: PiContextEvent, ctx: PiExtensionContext): Promise<PiContextEventResult | undefined> => {
    const model = ctx.model;
    if (model === undefined || !Array.isArray(event.messages)) return undefined;
    let call: PiCall | undefined;
    try {
      call = routeOf(model, typeof pi.getThinkingLevel === 'function' ? pi.getThinkingLevel() : undefined);
      const route = call.route;
      if (redactionProblem !== undefined) {
        tell(ctx, `transcript-hygiene: ${redactionProblem}`);
        redactionProblem = undefined;
      }
      // A request with no active tools defines none: tool calls and results go as text (issue 29).
      const noTools = typeof pi.getActiveTools === 'function' && pi.getActiveTools().length === 0 ? { tools: false } : {};
      const options = { ...route, ...noTools, ...limit, ...(redaction.redact === undefined ? {} : { redact: redaction.redact }) };
      const result = await (incremental === undefined ? sanitizeInMemory(event.messages, options) : incremental.sanitize(event.messages, options));
      showStatus(ctx, call, result, lastStatus);
      return result.changed ? { messages: result.messages as unknown[] } : undefined;
    } catch (error) {
      try {
        failures.report(error, call ?? routeOf(model, undefined), ctx);
      } catch {
        // Nothing of the extension's own may reach pi.
      }
      return undefined;
    }
  });
}
