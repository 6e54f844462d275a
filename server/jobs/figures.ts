/** What the job runtime tells metrics about its queues (docs/architecture.md, "Background work"). */
export interface QueueFigures {
  /** The queue's name: `webhooks`, `mail`, `payouts`, ... */
  readonly queue: string;
  /** Items waiting to run, due now or later; dead items are not counted. */
  readonly depth: number;
  /** Seconds since the oldest due item became due; 0 when nothing is due. */
  readonly oldestDueSeconds: number;
  /** Items given up, waiting for a person to retry or drop them. */
  readonly dead: number;
  /** Attempts this daemon finished since it started, by outcome. */
  readonly attempts: Readonly<Record<'succeeded' | 'retried' | 'dead', number>>;
}

/** The one interface metrics read the job runtime through. */
export interface RuntimeFigures {
  queues(): Promise<readonly QueueFigures[]>;
}
