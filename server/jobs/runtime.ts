import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { QueueFigures, RuntimeFigures } from './figures.js';
import { type PeriodicJob, type PeriodicRunner, periodicRunner } from './periodic.js';
import { type LeasedItem, type QueueJob, type QueueRunner, queueRunner } from './queue.js';
import type { AttemptOutcome } from './retry.js';

/** A runner of the runtime as the daemon sees it: started once it listens, stopped before the pool closes. */
export interface JobWorker {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The job runtime (docs/architecture.md, "Background work: the job runtime"): every queue and
 * periodic job of the daemon is registered here, in the composition root, and runs on it.
 */
export interface JobRuntime {
  /** Registers a leased queue; answers its runner (wake it when an item is added). */
  queue<Item extends LeasedItem, Result extends AttemptOutcome>(job: QueueJob<Item, Result>): QueueRunner;
  /** Registers a periodic job; answers its runner. */
  periodic<T>(job: PeriodicJob<T>): PeriodicRunner<T>;
  /** Every runner registered, in order: the daemon starts and stops them. */
  readonly workers: readonly JobWorker[];
  /** The queues' figures, for metrics. */
  figures(): RuntimeFigures;
}

export function jobRuntime(deps: { db: Db; logger: Logger; now: () => Date }): JobRuntime {
  const workers: JobWorker[] = [];
  const queues: QueueRunner[] = [];
  /** Periodic jobs working through a backlog, reported as queues (PeriodicJob.figures). */
  const backlogs: ((now: Date) => Promise<QueueFigures>)[] = [];
  return {
    workers,
    queue(job) {
      const runner = queueRunner(deps, job);
      workers.push(runner);
      queues.push(runner);
      return runner;
    },
    periodic(job) {
      const runner = periodicRunner(deps, job);
      workers.push(runner);
      // A disabled job leaves its backlog to the daemons that run it, and to their figures.
      if (job.enabled && job.figures) backlogs.push(job.figures.bind(job));
      return runner;
    },
    figures() {
      return {
        queues: (): Promise<QueueFigures[]> =>
          Promise.all([...queues.map((queue) => queue.figures()), ...backlogs.map((figures) => figures(deps.now()))]),
      };
    },
  };
}
