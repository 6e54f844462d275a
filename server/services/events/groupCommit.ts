/**
 * Group commit: jobs submitted while a flush is being written wait for the next flush, and
 * one writer drains the queue, so concurrent requests share one transaction and one fsync
 * (docs/architecture.md, "Group commit"). Each job still gets its own outcome. With
 * `batchOver`, heavy jobs have a queue and a writer of their own (a lane), so a light job never
 * shares a flush with, nor queues behind, a batch.
 */

/** What a flush answers for each of its jobs, in order: a result, or the error that job alone met. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitStats {
  /** Transactions written so far. */
  flushes: number;
  /** Jobs answered so far; jobs / flushes is the mean flush size. */
  jobs: number;
  /** The most jobs one flush held. */
  largest: number;
}

export interface GroupCommitter<J, R> {
  submit(job: J): Promise<R>;
  /**
   * Keeps the writer from starting a flush until the returned function is called; what is
   * submitted meanwhile waits and then shares one flush. For tests that need requests in one flush.
   */
  hold(): () => void;
  /** Resolves once `count` jobs wait for the writer (while it is held or busy). */
  queued(count: number): Promise<void>;
  stats(): GroupCommitStats;
  /** Resolves once nothing waits and nothing is being written (shutdown, before the pool closes). */
  drained(): Promise<void>;
}

/** At most this many event-loop turns between flushes while requests keep reaching the queue. */
const YIELD_TURNS = 4;

interface Waiting<J, R> {
  job: J;
  weight: number;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions<J> {
  /** A flush takes jobs until their weights pass this (at least one job). */
  maxWeight: number;
  weightOf: (job: J) => number;
  /** Whether a failed flush of several jobs is worth writing again job by job (not when the database is gone). */
  retryAlone: (error: unknown) => boolean;
  /** Told of every flush as it starts: its jobs and their weight (metrics). */
  onFlush?: (jobs: number, weight: number) => void;
  /**
   * Jobs heavier than this go to a second lane, flushed by a writer of its own beside the first
   * (on MySQL/MariaDB on another connection, at the same time): one lane only when absent.
   */
  batchOver?: number;
}

/** A queue and whether its writer is writing. */
interface Lane<J, R> {
  queue: Waiting<J, R>[];
  writing: boolean;
}

export function createGroupCommitter<J, R>(
  flush: (jobs: readonly J[]) => Promise<Outcome<R>[]>,
  { maxWeight, weightOf, retryAlone, onFlush, batchOver }: GroupCommitOptions<J>,
): GroupCommitter<J, R> {
  const light: Lane<J, R> = { queue: [], writing: false };
  const heavy: Lane<J, R> = batchOver === undefined ? light : { queue: [], writing: false };
  const lanes = heavy === light ? [light] : [light, heavy];
  const stats: GroupCommitStats = { flushes: 0, jobs: 0, largest: 0 };
  const watchers: { count: number; resolve: () => void }[] = [];
  let holds = 0;
  let idle: (() => void)[] = [];

  const waitingJobs = () => lanes.reduce((sum, lane) => sum + lane.queue.length, 0);

  function wakeIdle(): void {
    if (lanes.some((lane) => lane.writing || lane.queue.length > 0)) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  }

  function take(queue: Waiting<J, R>[]): Waiting<J, R>[] {
    let weight = 0;
    let count = 0;
    while (count < queue.length && (count === 0 || weight + (queue[count]?.weight ?? 0) <= maxWeight)) {
      weight += queue[count]?.weight ?? 0;
      count++;
    }
    return queue.splice(0, count);
  }

  function settle(waiting: Waiting<J, R>, outcome: Outcome<R> | undefined): void {
    if (outcome?.ok) waiting.resolve(outcome.value);
    else waiting.reject(outcome ? outcome.error : new Error('a flush answered fewer jobs than it took'));
  }

  /** One flush, or when the whole flush failed and held several jobs, each job alone. */
  async function write(batch: Waiting<J, R>[]): Promise<void> {
    stats.flushes++;
    stats.jobs += batch.length;
    stats.largest = Math.max(stats.largest, batch.length);
    onFlush?.(
      batch.length,
      batch.reduce((sum, waiting) => sum + waiting.weight, 0),
    );
    try {
      const outcomes = await flush(batch.map((waiting) => waiting.job));
      batch.forEach((waiting, i) => settle(waiting, outcomes[i]));
      return;
    } catch (err) {
      if (batch.length === 1 || !retryAlone(err)) {
        for (const waiting of batch) waiting.reject(err);
        return;
      }
    }
    // A failure no single job caused (a statement one request's data broke, a deadlock past its
    // retries, the database gone): each job gets the answer it would have had alone.
    for (const waiting of batch) {
      stats.flushes++;
      onFlush?.(1, waiting.weight);
      try {
        settle(waiting, (await flush([waiting.job]))[0]);
      } catch (err) {
        waiting.reject(err);
      }
    }
  }

  async function drain(lane: Lane<J, R>): Promise<void> {
    if (lane.writing || holds > 0) return;
    lane.writing = true;
    const { queue } = lane;
    try {
      while (queue.length > 0 && holds === 0) {
        await write(take(queue));
        // Let the requests that arrived while the commit was being written reach the queue:
        // better-sqlite3 commits on this thread, so they wait in their sockets until now.
        for (let turn = 0, seen = -1; turn < YIELD_TURNS && queue.length !== seen; turn++) {
          seen = queue.length;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } finally {
      lane.writing = false;
      wakeIdle();
    }
  }

  return {
    submit(job) {
      return new Promise<R>((resolve, reject) => {
        const weight = weightOf(job);
        const lane = batchOver !== undefined && weight > batchOver ? heavy : light;
        lane.queue.push({ job, weight, resolve, reject });
        const waiting = waitingJobs();
        for (const watcher of watchers.filter((w) => waiting >= w.count)) {
          watchers.splice(watchers.indexOf(watcher), 1);
          watcher.resolve();
        }
        void drain(lane);
      });
    },
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        for (const lane of lanes) void drain(lane);
      };
    },
    queued(count) {
      if (waitingJobs() >= count) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ count, resolve }));
    },
    stats: () => ({ ...stats }),
    drained() {
      if (lanes.every((lane) => !lane.writing && lane.queue.length === 0)) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}
