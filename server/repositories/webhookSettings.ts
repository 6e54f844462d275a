import type { Db } from '../db/knex.js';

/**
 * The generated key that encrypts webhook secrets on MySQL when WEBHOOK_SECRET_KEY is unset.
 * Insert-if-absent, then read: every daemon sharing the database ends up with the same key.
 */
export async function sharedSecretKey(db: Db, candidate: string): Promise<string> {
  await db('webhook_settings').insert({ name: 'secret_key', value: candidate }).onConflict('name').ignore();
  const row = await db('webhook_settings').where('name', 'secret_key').first<{ value: string } | undefined>('value');
  if (!row) throw new Error('webhook_settings has no secret_key after inserting it');
  return row.value;
}

/**
 * One secret stored sealed (a webhook endpoint's or a billing integration's current one), or
 * undefined when none is: enough to tell at start whether the daemon's key opens them.
 */
export async function oneSealedSecret(db: Db): Promise<string | undefined> {
  for (const table of ['webhook_endpoints', 'billing_integrations']) {
    const row = await db(table).orderBy('id').first<{ secret_enc: string } | undefined>('secret_enc');
    if (row) return row.secret_enc;
  }
  return undefined;
}
