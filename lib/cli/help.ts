/**
 * Every help text of the command, as plain strings: `--help` prints one of these without
 * loading the command it describes.
 */
export const MAIN_HELP = `transcript-hygiene: clean an AI-agent transcript to a model provider's replay rules.

Usage:
  transcript-hygiene sanitize [FILE] --provider P --model-api A --model-id M [options]
  transcript-hygiene policy --provider P --model-api A --model-id M [--reasoning] [--json]
  transcript-hygiene check [FILE] --provider P --model-api A --model-id M [--after-hygiene] [--json]
  transcript-hygiene export --out DIR --provider P --model-api A --model-id M [options] INPUT...
  transcript-hygiene worker --queue redis://HOST:PORT[/DB] [--concurrency N]
  transcript-hygiene repair FILE... [--json]
  transcript-hygiene sessions DB [--json]
  transcript-hygiene help [COMMAND]

Commands:
  sanitize   read a transcript (JSONL of messages or session entries, or a JSON array),
             write its replay copy for one provider route as JSONL
  policy     print the resolved policy of a route and the rules that run for it
  check      report where a transcript breaks the route's provider rules (exit 1 if it
             does), as given or, with --after-hygiene, after the pipeline
  export     sanitize many sessions (files, directories, a list on stdin) into a
             mirrored tree, in parallel, resumable, with a report of the failures;
             with --queue, on the workers of a Redis broker (several machines)
  worker     make the outputs of 'export --queue' runs on this machine (BullMQ)
  repair     repair OpenClaw session files in place (torn lines, bad entries, empty
             error turns, blank user turns, corrupted images, missing tool results)
  sessions   list the sessions of an OpenClaw database (openclaw-agent.sqlite); sanitize,
             check and export read one with --session KEY|ID

Run 'transcript-hygiene COMMAND --help' for a command's options.

Environment:
  TRANSCRIPT_HYGIENE_HEAP_MB=N   heap limit of the process doing the work, in MB (default:
                                 node's); a run that needs more stops with exit 10
  Large work (export, repair, worker, piped input, files over 16 MiB) runs in a child node
  process started with MALLOC_ARENA_MAX=2 and --expose-gc, which keep image-heavy runs in
  bounded memory; smaller files run in place. Set both yourself to always run in place.

Example:
  transcript-hygiene sanitize fixtures/sessions/demo.jsonl \\
    --provider anthropic --model-api anthropic-messages --model-id claude-sonnet-4-5 --stats
`;

export const ROUTE_HELP = `Route (which provider the transcript is replayed to):
  --provider P       provider id: anthropic, openai, google, amazon-bedrock, mistral,
                     openrouter, ollama, ... (one 'transcript-hygiene policy' knows; an
                     unknown one is refused with the closest known id, unless written
                     custom:NAME or given with --provider-unknown-ok: it then gets the
                     fallback policy of its model API)
  --model-api A      the model API: anthropic-messages, openai-responses,
                     openai-completions, google-generative-ai, bedrock-converse-stream, ...
                     (unknown ones likewise)
  --provider-unknown-ok
                     a provider or model API outside the policy table is deliberate
  --model-id M       the model id, e.g. claude-sonnet-4-5, gpt-5, gemini-2.5-pro
  --reasoning        the model declares reasoning support (keeps reasoning fields on
                     OpenAI-compatible chat-completions routes)`;

export const SANITIZE_HELP = `Usage: transcript-hygiene sanitize [FILE] --provider P --model-api A --model-id M [options]

Reads FILE (or stdin when FILE is absent or '-') and writes the replay copy as JSONL,
one message a line, to stdout or to -o FILE. The input is an OpenClaw / pi session file
(a {"type":"session"} header and entries), a stream of bare messages ({"role": ...}),
or a JSON array of messages (first character '[', or an object {"messages": [...]}).
A session file is read as OpenClaw loads it: the active branch only, the latest compaction's summary in place of what it
summarised, branch summaries and custom messages as messages, other entries skipped,
lines that are not JSON skipped (with a warning line); a session piped to stdin is first
copied to a temporary file (a session is read twice: an index pass, then the messages).

${ROUTE_HELP}

Options:
  -o, --output FILE  write here instead of stdout (written to a temporary file with FILE's
                     mode and renamed when complete, so a partial file never appears; a
                     FIFO or device is written through)
  --thinking         thinking is on for this request (request-time steps)
  --display          for people, not a model: also remove runtime wrappers (internal
                     context, inbound metadata, channel envelopes) from user turns
  --format F         input format: auto (default), jsonl, json
  --session S        FILE is an OpenClaw database (openclaw-agent.sqlite): read the session
                     with key or id S, its active path as OpenClaw loads it
  --busy-timeout MS  with --session: wait this long for a locked database (default 5000)
  --image-max-dimension N
                     longest side of a replayed image, in pixels (default 1200);
                     larger images are re-encoded as JPEG to fit
  --image-max-bytes N
                     largest replayed image, in decoded bytes (default 5242880,
                     5 MiB); larger images are re-encoded as JPEG to fit
  --no-tools         the request defines no tools (compaction, summaries): tool calls
                     become [called NAME ARGS] text, each run of results one user
                     message of [result of NAME: ...] text
  --max-tool-result-bytes N
                     a tool result whose text is over N bytes (at least 128) keeps
                     its head and tail, with a marker naming the bytes removed
  --redact secrets   replace each secret (secretlint's recommended rules, and a generic
                     high-entropy NAME=value detector) in text, thinking, tool-call
                     arguments, tool results and image file names with [REDACTED:<rule>];
                     a signed thinking block it changes loses its signature
  --redact-pattern [NAME=]/REGEX/FLAGS
                     also redact what REGEX matches, as [REDACTED:user:NAME] (repeatable;
                     works without --redact secrets)
  --redact-allow V   never redact the value V (exact, or /REGEX/FLAGS; repeatable)
  --redact-config F  JSON {"patterns": [{"name", "pattern"}...], "allow": [...],
                     "generic": false} read as the flags above
  --stats            print what each rule did as JSON on stderr (redactions per rule
                     under "redact-secrets", never the secrets)
  -h, --help         this text

Exit codes: 0 done; 1 bad input (names file and line; or no message in it, saying what it
holds); 2 usage; 3 no such file; 4 output not writable (stdout or -o); 5 transcript cannot
be made valid for the route; 6 input (or -o) is a directory; 7 input unreadable; 8 input
empty; 10 out of memory (see TRANSCRIPT_HYGIENE_HEAP_MB
in 'transcript-hygiene help').

Examples:
  transcript-hygiene sanitize session.jsonl --provider anthropic \\
    --model-api anthropic-messages --model-id claude-sonnet-4-5 -o replay.jsonl
  cat session.jsonl | transcript-hygiene sanitize --provider google \\
    --model-api google-generative-ai --model-id gemini-2.5-pro --stats > replay.jsonl
`;

export const POLICY_HELP = `Usage: transcript-hygiene policy --provider P --model-api A --model-id M [--reasoning] [--json]

Prints the policy resolved for the route and the rules that run for it, in order.

${ROUTE_HELP}

Options:
  --json             print {route, policy, rules} as JSON
  -h, --help         this text

Example:
  transcript-hygiene policy --provider mistral --model-api openai-completions --model-id mistral-large-latest
`;

export const CHECK_HELP = `Usage: transcript-hygiene check [FILE] --provider P --model-api A --model-id M [options]

Reads FILE (or stdin) as sanitize does and reports every place where the transcript
breaks a structural rule the route's provider API enforces (tool results that do not
follow their calls, bad tool-call ids, empty content, alternation, ...), naming the rule,
the message index (and input line) and the offending id or block.

A session file is read as sanitize reads it, and as the runtime loads it for the model:
the active branch only (abandoned branches are never sent, so never checked), the latest
compaction's summary and what it kept, branch summaries and custom messages as messages.
Its lines that are not JSON are skipped with a warning on stderr, as the loader skips
them, instead of failing the check; the line numbers are the session file's own.

${ROUTE_HELP}

Options:
  --after-hygiene    check the pipeline's output (what sanitize writes) instead of the input
  --thinking         thinking is on for the request (checks the trailing-prefill rule)
  --no-tools         the request defines no tools (checks that no tool block is left)
  --max-tool-result-bytes N
                     the runner keeps tool result text to N bytes (checks each result)
  --format F         input format: auto (default), jsonl, json
  --session S        FILE is an OpenClaw database: check the session with key or id S
  --busy-timeout MS  with --session: wait this long for a locked database (default 5000)
  --json             print {route, checked, families, messages, violations} as JSON
  --redact secrets, --redact-pattern, --redact-allow, --redact-config
                     with --after-hygiene: check what sanitize writes with them
  -h, --help         this text

Exit codes: 0 no violation; 1 violations found; 2 usage; 3 input missing (6 a directory,
7 unreadable, 8 empty); 4 stdout not writable; 5 (with --after-hygiene) the pipeline cannot
make the transcript valid for the route; 11 bad input (a bad line, or no message in it:
named on stderr).

Examples:
  transcript-hygiene check session.jsonl --provider amazon-bedrock \\
    --model-api bedrock-converse-stream --model-id anthropic.claude-sonnet-4-5-20250929-v1:0
  transcript-hygiene check session.jsonl --after-hygiene --json --provider openai \\
    --model-api openai-responses --model-id gpt-5
`;

export const EXPORT_HELP = `Usage: transcript-hygiene export --out DIR --provider P --model-api A --model-id M [options] INPUT...
       transcript-hygiene export --out DIR --route-file ROUTES.json [options] INPUT...
       transcript-hygiene export --queue redis://HOST:PORT[/DB] --out DIR <route> INPUT...

Sanitizes many sessions into DIR, in parallel worker threads. INPUT is a session file,
a directory (searched recursively for *.jsonl), or '-' to read a list of paths from
stdin (one a line, or NUL-separated as find -print0 writes them). DIR mirrors the input
tree (the paths below the deepest directory that holds every input): one sanitized file
per session, under one subdirectory per route (named by the route) when several are
given. Each output is written to a temporary file and renamed when complete.

A session that cannot be read or sanitized never stops the export: it is listed with
file, line and reason in DIR/export-report.json and in the summary on stderr.
DIR/.export-manifest.json records each finished output; a re-run skips the outputs whose
session (size, mtime) and options are unchanged and whose file is in place.

${ROUTE_HELP}

Options:
  -o, --out DIR      output directory (created if missing)
  --route-file F     routes to export for, as a JSON array of {"name", "provider",
                     "modelApi", "modelId", "reasoning", "thinking", "imageMaxDimensionPx",
                     "imageMaxBytes", "allowedToolNames", "redact", "tools",
                     "maxToolResultBytes"}; with the route flags
                     too, both
  --thinking         thinking is on for the requests (request-time steps), every route
  --format F         output: jsonl (default, one message a line) or json (one array a file)
  -j, --jobs N       worker threads (default: the number of cores)
  --force            redo every output, even those done and current
  --repair           repair a copy of each session first (as 'transcript-hygiene repair'
                     does: torn and invalid lines dropped, ...) and export the copy, so
                     bad lines do not fail it; the session itself is never changed
  --job-memory MB    heap limit of each job, in MiB (default 2048); a session that needs
                     more fails as out_of_memory and the export goes on
  --image-max-dimension N, --image-max-bytes N, --no-tools, --max-tool-result-bytes N
                     as for sanitize, every route
  --redact secrets, --redact-pattern, --redact-allow, --redact-config
                     as for sanitize, every route; the report counts redactions per
                     rule and lists each session's counts (never the secrets)
  -q, --quiet        no progress lines (the summary is still printed if something failed)
  --queue URL        run the outputs as jobs on the Redis broker at URL,
                     redis://HOST:PORT[/DB], where 'transcript-hygiene worker' processes
                     on any number of machines make them (see below; not with --jobs
                     or --job-memory, which are then the workers' own)
  -h, --help         this text

With --queue, the export enqueues one job per output (BullMQ; the job id is derived from
the session's path, size and mtime and the options, so enqueuing twice does no work
twice), follows the jobs of every worker in its progress, and writes the same report.
Outputs that are current are skipped as without --queue. A bad session fails once and
is not retried; a transient error (EIO, EAGAIN, a lost broker) is retried up to 4
times with backoff; a worker killed mid-job has its job taken over by another.
INPUT and DIR must be paths that every worker sees, at the same path (a shared
filesystem): a worker that does not see them fails the job and says so. The queue's
keys are removed once the report is written. A broker that cannot be reached fails
the export at once (one line, exit 1). Start Redis with 'apt-get install redis-server'
or 'docker run -p 6379:6379 redis:7'.

Progress goes to stderr: on a terminal one status line (outputs done/total, failures,
bytes, MB/s, ETA), otherwise one line per output.

Exit codes (export's own): 0 every session exported or already current; 2 some sessions
failed (listed in the report), the rest were exported; 1 usage error, or the export
could not start (DIR not writable, or in use by another export, or the --queue broker
cannot be reached); 130 interrupted by
SIGINT (143: SIGTERM), run it again to resume; 70 internal error.

Examples:
  transcript-hygiene export --out replay/ --provider anthropic \\
    --model-api anthropic-messages --model-id claude-sonnet-4-5 sessions/
  find sessions -name '*.jsonl' -mtime -7 -print0 | \\
    transcript-hygiene export --out week/ --route-file routes.json --jobs 4 -
  transcript-hygiene export --queue redis://10.0.0.5:6379 --out /shared/replay \\
    --route-file routes.json /shared/sessions
`;

export const WORKER_HELP = `Usage: transcript-hygiene worker --queue redis://HOST:PORT[/DB] [--concurrency N] [options]

Makes the outputs of 'transcript-hygiene export --queue' runs: a BullMQ worker on the
Redis broker at --queue that takes the exports' jobs (one session each), sanitizes each
on a worker thread of its own exactly as the local export does (a temporary file renamed
into place when complete), and hands the result to the export. Start one on every machine
that should help, before or after the export; each serves every export on that broker
until it is stopped.

The sessions (the export's INPUT) and the output directory (its --out DIR) must be on
storage every worker sees, at the same paths (NFS or another shared mount): a worker that
does not see a session, sees another file under its path, or does not see DIR fails that
job and says so in the export's report.

Options:
  --queue URL        the broker: redis://HOST:PORT[/DB] (rediss:// for TLS, a password
                     as redis://:PASSWORD@HOST:PORT)
  -c, --concurrency N
                     jobs at once, each on its own thread (default: the number of cores)
  --job-memory MB    heap limit of each job, in MiB (default 2048); a session that needs
                     more fails as out_of_memory
  --lock-duration MS how long a job's lease lasts unless this worker renews it (default
                     10000): the jobs of a worker that dies (kill -9, a lost machine) are
                     taken over by the other workers after about this long plus
                     --stalled-interval
  --stalled-interval MS
                     how often this worker looks for such jobs (default 5000)
  --grace MS         on SIGTERM/SIGINT, how long active jobs may go on before they are
                     handed back to the queue (default 4000, at most 8000)
  -q, --quiet        no line per output: only failures, hand-backs, broker trouble, and
                     the lines when the worker starts and stops
  -h, --help         this text

A bad session (not JSON, empty, not a session) fails its job once; a transient error
(EIO, EAGAIN, a job thread that died) is retried, 4 attempts in all, after 2, 4 and 8 s.
A lost broker is waited for: the worker reconnects and goes on.

Stopping: SIGTERM or SIGINT (Ctrl-C). No new job is taken; active jobs get 4 s (--grace)
to finish, then are handed back to the queue for another worker; the worker exits 0 within
10 s.

Exit codes: 0 stopped by SIGTERM or SIGINT; 1 usage error, or the broker cannot be
reached at the start (one line); 70 internal error.

Example, two machines; Redis on the first (apt-get install redis-server, or
docker run -d -p 6379:6379 redis:7), the archive and the output on an NFS mount at
/shared on both:
  a$ transcript-hygiene worker --queue redis://a.lan:6379 &
  b$ transcript-hygiene worker --queue redis://a.lan:6379 &
  a$ transcript-hygiene export --queue redis://a.lan:6379 --out /shared/replay \\
       --provider anthropic --model-api anthropic-messages --model-id claude-sonnet-4-5 \\
       /shared/sessions
`;

export const REPAIR_HELP = `Usage: transcript-hygiene repair FILE... [options]

Repairs OpenClaw session files in place, as OpenClaw's repairSessionFileIfNeeded does:
drops lines that are not JSON (a torn last line, garbage) and message entries without a
valid role; rewrites empty error turns ("[assistant turn failed before producing
content]") and blank user turns ("(continue)"); replaces corrupted inline images; inserts
the missing tool results OpenAI code-mode and delivery-mirror turns need. A file that
needs none of this is not written.

The original is copied to FILE.bak-<pid>-<ms>; the repaired copy is written beside it,
fsynced and renamed over FILE; then the copy is removed (if that fails, its path is
printed). An interrupted repair leaves the original or the whole repaired file. The
session's lock file (FILE.lock, as OpenClaw uses it) is held while repairing.

Options:
  --json             print one JSON report per file on stdout
  --lock-timeout MS  how long to wait for the session lock (default 60000)
  --no-lock          do not take the lock (the caller already holds it)
  -q, --quiet        print only failures
  -h, --help         this text

Exit codes: 0 every file repaired or already fine; 1 not a session file (no valid
header); 2 usage; 3 no such file; 4 the repair could not be written (the original is
unchanged); 6 a directory; 7 unreadable; 8 empty (no entries); 9 the lock is held by
another process. With several files, the first failure's code.

Example:
  transcript-hygiene repair ~/.openclaw/agents/main/sessions/*.jsonl
`;

export const SESSIONS_HELP = `Usage: transcript-hygiene sessions DB [--json]

Lists the sessions of an OpenClaw agent database (openclaw-agent.sqlite, OpenClaw 2026.9 and
later): each session window's key, session id, generation (initial, reset, compaction,
fork, ...), model, messages on its active path and last update, the latest first. A key
marked * is the session its key currently points at. The database is only read.

Options:
  --json             print one JSON array of {key, sessionId, current, reason, model,
                     events, lastSeq, messages, messagesFrom, updatedAt}
  --busy-timeout MS  wait this long for a locked database (default 5000)

Example:
  transcript-hygiene sessions ~/.openclaw/agents/main/agent/openclaw-agent.sqlite
  transcript-hygiene sanitize ~/.openclaw/agents/main/agent/openclaw-agent.sqlite \\
    --session agent:main:main --provider anthropic --model-api anthropic-messages \\
    --model-id claude-sonnet-4-5
`;
