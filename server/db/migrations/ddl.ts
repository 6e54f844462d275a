const ATTEMPTS = 8;
/** A deadlock victim, a lock wait past its limit, a Galera refusal: nothing of the statement was kept. */
const RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/**
 * One DDL statement on a table daemons are using, tried again when MariaDB refuses it as a
 * deadlock victim or after a lock wait (docs/operations.md, "Upgrades"): during a rolling
 * upgrade the daemons of the previous release keep writing the tables an expand step alters,
 * and an `ALTER TABLE` waiting for their metadata locks may be chosen to give way. MariaDB
 * applies a DDL statement whole or not at all, so trying it again is safe; `work` must be one
 * statement (one `alterTable` whose changes compile to one `ALTER TABLE`).
 */
export async function retryingDdl(work: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work();
      return;
    } catch (err) {
      if (attempt >= ATTEMPTS || !RETRYABLE.has(String((err as { code?: unknown }).code))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}
