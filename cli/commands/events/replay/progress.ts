import type { Io } from '../../../io.js';
import { note } from '../../../output.js';
import type { Clock } from './clock.js';
import { skippedCount, type Totals } from './totals.js';

const number = (n: number) => n.toLocaleString('en-US');

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * One status line on stderr, redrawn in place, only when stderr is a terminal (docs/cli.md).
 * Elsewhere it stays silent except for `say`, which is plain stderr text.
 *
 * The ETA divides the bytes left by the bytes done per second of this run, waits for the rate
 * limit included: under a limit the run alternates bursts and waits, and only the average over
 * both says when it ends (a burst alone once showed 5 s left of 15 minutes). While a wait lasts,
 * the line counts it down every second.
 */
export class Progress {
  private readonly enabled: boolean;
  private readonly started: number;
  private lastDraw = 0;
  private drawn = false;
  private current = '';
  private waitUntil: number | undefined;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly io: Io,
    private readonly clock: Clock,
    private readonly fileBytes: number,
    private readonly startBytes: number,
    private readonly startLines: number,
  ) {
    this.enabled = Boolean(io.stderr.isTTY);
    this.started = clock.now();
  }

  private line = 0;
  private bytes = 0;
  private totals: Totals | undefined;

  update(line: number, bytes: number, totals: Totals, force = false): void {
    this.line = line;
    this.bytes = bytes;
    this.totals = totals;
    if (!this.enabled) return;
    const now = this.clock.now();
    if (!force && now - this.lastDraw < 250) return;
    this.draw(now);
  }

  private draw(now: number): void {
    const totals = this.totals;
    if (!totals) return;
    this.lastDraw = now;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = (totals.lines - this.startLines) / seconds;
    const bytesPerSecond = (this.bytes - this.startBytes) / seconds;
    const percent = this.fileBytes > 0 ? Math.min(100, (this.bytes / this.fileBytes) * 100) : 100;
    const left = this.fileBytes - this.bytes;
    const eta = left <= 0 ? '0s' : bytesPerSecond > 0 && seconds >= 1 ? duration(left / bytesPerSecond) : '?';
    const waiting =
      this.waitUntil !== undefined
        ? ` · waiting ${Math.max(0, Math.ceil((this.waitUntil - now) / 1000))} s for the rate limit`
        : '';
    this.current =
      `line ${number(this.line)} · accepted ${number(totals.accepted)} · skipped ${number(skippedCount(totals))}` +
      ` · rejected ${number(totals.rejected)} · ${number(Math.round(rate))} ev/s · ${percent.toFixed(0)}% · ETA ${eta}${waiting}`;
    this.io.stderr.write(`\r\x1b[2K${this.current}`);
    this.drawn = true;
  }

  /** A wait for the rate limit starts (its end) or ends (undefined): counted down every second. */
  waiting(until: number | undefined): void {
    this.waitUntil = until;
    if (!this.enabled) return;
    if (until === undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    } else {
      this.ticker ??= setInterval(() => this.draw(this.clock.now()), 1000);
      this.ticker.unref();
    }
    this.draw(this.clock.now());
  }

  /** A message for people (retries, waits); the status line is redrawn under it. */
  say(text: string): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    note(this.io, text);
    if (this.drawn) this.io.stderr.write(this.current);
  }

  finish(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }
}
