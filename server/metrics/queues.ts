import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueFigures, RuntimeFigures } from '../jobs/figures.js';
import type { Logger } from '../logger.js';

/**
 * The job runtime's queues, read at scrape time (prom-client's `collect`): one call of
 * `runtime.queues()` per scrape, shared by the four metrics, whose collectors prom-client starts
 * together. A runtime that cannot answer leaves the four out of that scrape, with a warning.
 */
export function registerQueueMetrics(registry: Registry, runtime: RuntimeFigures, logger: Logger): void {
  let pending: Promise<readonly QueueFigures[]> | undefined;
  const figures = (): Promise<readonly QueueFigures[]> => {
    pending ??= runtime
      .queues()
      .catch((err: unknown) => {
        logger.warn('metrics: the job runtime did not give its queue figures', { error: (err as Error)?.name });
        return [];
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const gauge = (name: string, help: string, value: (queue: QueueFigures) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const queue of await figures()) this.set({ queue: queue.queue }, value(queue));
      },
    });
  gauge(
    'affiliated_queue_depth',
    'Items waiting to run in a queue, due now or later (dead items not counted)',
    (q) => q.depth,
  );
  gauge(
    'affiliated_queue_oldest_due_seconds',
    'Seconds since the oldest due item of a queue became due; 0 when nothing is due',
    (q) => q.oldestDueSeconds,
  );
  gauge('affiliated_queue_dead', 'Items a queue gave up on, waiting for a person to retry or drop them', (q) => q.dead);
  new Counter({
    name: 'affiliated_queue_attempts_total',
    help: 'Attempts this daemon finished since it started, by queue and outcome',
    labelNames: ['queue', 'outcome'],
    registers: [registry],
    async collect() {
      // The runtime keeps the totals; a counter reset then set to them reads as the runtime's own counter.
      this.reset();
      for (const queue of await figures()) {
        for (const outcome of ['succeeded', 'retried', 'dead'] as const) {
          this.inc({ queue: queue.queue, outcome }, queue.attempts[outcome]);
        }
      }
    },
  });
}
