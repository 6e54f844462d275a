import { errorSite, type Logger } from '../logger.js';
import type { QueueFigures } from './figures.js';

/** Work the job runtime runs every so often (scheduled approvals, portal housekeeping). */
export interface PeriodicJob<T> {
  readonly name: string;
  /** The wait between the end of one run and the start of the next. */
  readonly everyMs: number;
  /** False: this daemon leaves the job to other daemons on the same database. */
  readonly enabled: boolean;
  /** How a run that failed is logged (`auto-approve failed`, error). */
  readonly failure: { readonly message: string; readonly level: 'error' | 'warn' };
  /** One run; `signal` aborts when the daemon stops: a long run ends after the piece in hand. */
  run(signal: AbortSignal): Promise<T>;
  /**
   * A job that works through a backlog (the click fold) reports it as a queue's figures, so the
   * `affiliated_queue_*` metrics and an alert on a late queue cover it too.
   */
  figures?(now: Date): Promise<QueueFigures>;
}

export interface PeriodicRunner<T> {
  readonly name: string;
  start(): void;
  /** Waits for a run in progress, so the pool is not closed under it. */
  stop(): Promise<void>;
  /** One run now, outside the schedule (tests, operator commands). */
  runOnce(): Promise<T>;
}

/** Runs a job every `everyMs` (from the end of the last run), never two runs of it at once in this daemon. */
export function periodicRunner<T>(deps: { logger: Logger }, job: PeriodicJob<T>): PeriodicRunner<T> {
  const { logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let started = false;
  let abort = new AbortController();

  function schedule(): void {
    if (!started) return;
    timer = setTimeout(() => {
      running = job
        .run(abort.signal)
        .catch((err: unknown) =>
          logger[job.failure.level](job.failure.message, {
            code: (err as { code?: string }).code,
            thrownAt: errorSite(err),
          }),
        )
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, job.everyMs);
    timer.unref();
  }

  return {
    name: job.name,
    runOnce: () => job.run(abort.signal),
    start() {
      if (!job.enabled || started) return;
      started = true;
      abort = new AbortController();
      schedule();
    },
    async stop() {
      abort.abort();
      started = false;
      clearTimeout(timer);
      await running;
    },
  };
}
