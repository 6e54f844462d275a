import { randomInt } from 'node:crypto';

/**
 * This process's shard of the counters every request would otherwise update in one row: the
 * month's conversions, the campaign's live affiliates (on plans without a limit) and the
 * affiliates' daily report counters. A counter is the sum of its shards' rows, and a daemon
 * writes only its own, so daemons on different Galera nodes never write the same counter row
 * and the cluster never refuses one of their commits over it (docs/scaling.md, "Hot rows").
 * Daemons on one node, or one plain MySQL, that share a shard merely queue on its row lock.
 *
 * Drawn once per process: two daemons share a shard with odds of about one in 350 for three
 * daemons, and then fall back to what retries give. 0 is never drawn: it is the row a plan's
 * limit is checked and taken on (spec §10.8, spec §4.1.5), whichever daemon writes it.
 */
export const COUNTER_SHARD = randomInt(1, 1024);

/** The row a limited plan's counter is reserved on; every daemon writes it, so its limit holds. */
export const LIMIT_SHARD = 0;
