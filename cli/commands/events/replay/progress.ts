import type { Io } from '../../../io.js';
import type { Clock } from './clock.js';
import { skippedCount, type Totals } from './totals.js';

const number = (n: number) => n.toLocaleString('en-US');

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * One status line on stderr, redrawn in place, only when stderr is a terminal (style.md).
 * Elsewhere it stays silent except for `say`, which is plain stderr text.
 */
export class Progress {
  private readonly enabled: boolean;
  private readonly started: number;
  private lastDraw = 0;
  private drawn = false;
  private current = '';

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

  update(line: number, bytes: number, totals: Totals, force = false): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    if (!force && now - this.lastDraw < 250) return;
    this.lastDraw = now;
    const seconds = Math.max((now - this.started) / 1000, 0.001);
    const rate = (totals.lines - this.startLines) / seconds;
    const bytesPerSecond = (bytes - this.startBytes) / seconds;
    const percent = this.fileBytes > 0 ? Math.min(100, (bytes / this.fileBytes) * 100) : 100;
    const eta = bytesPerSecond > 0 ? duration((this.fileBytes - bytes) / bytesPerSecond) : '?';
    this.current =
      `line ${number(line)} · accepted ${number(totals.accepted)} · skipped ${number(skippedCount(totals))}` +
      ` · rejected ${number(totals.rejected)} · ${number(Math.round(rate))} ev/s · ${percent.toFixed(0)}% · ETA ${eta}`;
    this.io.stderr.write(`\r\x1b[2K${this.current}`);
    this.drawn = true;
  }

  /** Replaces the status line for a moment (e.g. a rate-limit pause); terminal only. */
  status(text: string): void {
    if (!this.enabled) return;
    this.io.stderr.write(`\r\x1b[2K${this.current} · ${text}`);
    this.drawn = true;
  }

  /** A message for people (retries, waits); the status line is redrawn under it. */
  say(text: string): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    this.io.stderr.write(`${text}\n`);
    if (this.drawn) this.io.stderr.write(this.current);
  }

  finish(): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }
}
