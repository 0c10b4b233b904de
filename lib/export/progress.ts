/**
 * Progress of an export on stderr. On a terminal: one status line redrawn in place (outputs
 * done / total, bytes, MB/s, ETA, failures), failures printed above it as they happen. Otherwise
 * (a pipe, a log file): one plain line per output. Quiet: nothing.
 */
import type { ExportEvent } from './report.ts';
import { failurePlace, formatBytes, formatDuration, plural, skippedPlace } from './report.ts';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  stream: ProgressStream;
  /** Redraw a status line (default: whether the stream is a terminal). */
  tty?: boolean;
  quiet?: boolean;
  now?: () => number;
  /** Least time between two redraws of the status line (default 100 ms). */
  refreshMs?: number;
}

const CLEAR_LINE = '\r\x1b[2K';

export class ExportProgress {
  private readonly stream: ProgressStream;
  private readonly tty: boolean;
  private readonly quiet: boolean;
  private readonly now: () => number;
  private readonly refreshMs: number;
  private startedAt = 0;
  private total = 0;
  private done = 0;
  private failed = 0;
  private bytesTotal = 0;
  private bytesDone = 0;
  private lastDraw = 0;
  private statusShown = false;
  private ticker: NodeJS.Timeout | undefined;

  constructor(options: ProgressOptions) {
    this.stream = options.stream;
    this.tty = options.tty ?? options.stream.isTTY === true;
    this.quiet = options.quiet ?? false;
    this.now = options.now ?? Date.now;
    this.refreshMs = options.refreshMs ?? 100;
  }

  /** Pass as exportSessions' onProgress. */
  readonly handle = (event: ExportEvent): void => {
    if (this.quiet) return;
    if (event.type === 'start') {
      this.startedAt = this.now();
      this.total = event.toDo + event.failedEarly;
      this.bytesTotal = event.bytesToDo;
      if (!this.tty) {
        this.stream.write(
          `export: ${plural(event.sessions, 'session')}${event.routes > 1 ? ` x ${event.routes} routes` : ''}: ${event.toDo} to export (${formatBytes(event.bytesToDo)}), ` +
            `${event.skipped} already current${event.failedEarly > 0 ? `, ${event.failedEarly} failed before starting` : ''}, ${plural(event.jobs, 'job')}\n`,
        );
      } else {
        this.draw(true);
        this.ticker = setInterval(() => this.draw(true), 1000);
        this.ticker.unref();
      }
      return;
    }
    if (event.type === 'end') {
      this.stop();
      return;
    }
    this.done++;
    if (event.status === 'exported') this.bytesDone += event.bytesIn;
    else this.failed++;
    const route = event.route === undefined ? '' : ` [${event.route}]`;
    if (this.tty) {
      if (event.failure !== undefined) {
        this.stream.write(`${this.statusShown ? CLEAR_LINE : ''}FAILED ${failurePlace(event.failure)}: ${event.failure.reason}\n`);
        this.statusShown = false;
      } else if (event.skippedLines !== undefined) {
        this.stream.write(`${this.statusShown ? CLEAR_LINE : ''}SKIPPED ${skippedPlace({ file: event.file, ...event.skippedLines })}: not JSON\n`);
        this.statusShown = false;
      }
      this.draw(event.failure !== undefined || this.done === this.total);
      return;
    }
    const counter = `[${this.done}/${this.total}]`;
    if (event.failure !== undefined) this.stream.write(`export: ${counter} FAILED ${failurePlace(event.failure)}: ${event.failure.reason}\n`);
    else {
      const repaired = event.repaired ? ', repaired' : '';
      const lost = event.skippedLines === undefined ? '' : `, SKIPPED ${plural(event.skippedLines.count, 'line')} not JSON: ${event.skippedLines.lines.slice(0, 10).join(', ')}${event.skippedLines.count > 10 ? ', ...' : ''}`;
      this.stream.write(`export: ${counter} ok ${event.file}${route} (${formatBytes(event.bytesIn)}, ${formatDuration(event.ms)}${repaired}${lost})\n`);
    }
  };

  /** The status line: done/total, failures, bytes, rate, ETA. */
  status(): string {
    const elapsed = Math.max(1, this.now() - this.startedAt);
    const rate = (this.bytesDone / elapsed) * 1000;
    const left = this.bytesTotal - this.bytesDone;
    const eta = this.done === this.total ? 'done' : rate > 0 ? `ETA ${formatDuration((left / rate) * 1000)}` : 'ETA --';
    return (
      `export ${this.done}/${this.total}` +
      (this.failed > 0 ? ` (${this.failed} failed)` : '') +
      `  ${formatBytes(this.bytesDone)}/${formatBytes(this.bytesTotal)}  ${(rate / 1e6).toFixed(1)} MB/s  ${eta}  ${formatDuration(elapsed)}`
    );
  }

  private draw(force: boolean): void {
    const now = this.now();
    if (!force && now - this.lastDraw < this.refreshMs) return;
    this.lastDraw = now;
    const width = Math.max(20, (this.stream.columns || 80) - 1);
    this.stream.write(CLEAR_LINE + this.status().slice(0, width));
    this.statusShown = true;
  }

  /** Clears the status line and stops the clock; safe to call twice. */
  stop(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.tty && this.statusShown) this.stream.write(CLEAR_LINE);
    this.statusShown = false;
  }
}
