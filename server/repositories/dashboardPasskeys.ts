import type { Db, Trx } from '../db/knex.js';
import type { DashboardPasskeyRow } from '../db/dashboardRows.js';
import { toDate } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

/** The dashboard's passkeys and the WebAuthn challenge each session holds (docs/dashboard.md#passkeys). */

export interface DashboardPasskey {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  /** null for a passkey made before passkeys had names. */
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

function toPasskey(row: DashboardPasskeyRow): DashboardPasskey {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports ? row.transports.split(',') : [],
    name: row.name,
    createdAt: toDate(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toDate(row.last_used_at),
  };
}

/** Stores a passkey; a credential id already stored (for anyone) is a UniqueConflict `credential`. */
export async function insertDashboardPasskey(
  trx: Db | Trx,
  passkey: Pick<DashboardPasskey, 'userId' | 'credentialId' | 'publicKey' | 'counter' | 'transports'> & {
    name: string;
    now: Date;
  },
): Promise<void> {
  await conflictsAs({ credential_id: 'credential' }, () =>
    trx('dashboard_passkeys').insert({
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports.length > 0 ? passkey.transports.join(',') : null,
      name: passkey.name,
      created_at: passkey.now,
      last_used_at: null,
    }),
  );
}

export async function listDashboardPasskeys(db: Db | Trx, userId: number): Promise<DashboardPasskey[]> {
  return (await db('dashboard_passkeys').where({ user_id: userId }).orderBy('id')).map(toPasskey);
}

export async function findDashboardPasskey(db: Db, credentialId: string): Promise<DashboardPasskey | undefined> {
  const row = await db('dashboard_passkeys').where({ credential_id: credentialId }).first();
  return row && toPasskey(row);
}

/**
 * Records a use: true only when the signature counter moved forward (or the authenticator keeps
 * none: 0 then and now), so a cloned authenticator's or a replayed answer is refused even when
 * two daemons judge at once (one conditional update).
 */
export async function useDashboardPasskey(db: Db, id: number, counter: number, now: Date): Promise<boolean> {
  const query = db('dashboard_passkeys').where({ id });
  if (counter === 0) query.andWhere('counter', 0);
  else query.andWhere('counter', '<', counter);
  return (await query.update({ counter, last_used_at: now })) > 0;
}

/** Removes one passkey of the user: false when the user has no such passkey. */
export async function deleteDashboardPasskey(trx: Db | Trx, userId: number, id: number): Promise<boolean> {
  return (await trx('dashboard_passkeys').where({ id, user_id: userId }).delete()) > 0;
}

/** Removes every passkey of the user (`users reset-2fa`); answers how many went. */
export async function deleteDashboardPasskeysOf(trx: Db | Trx, userId: number): Promise<number> {
  return trx('dashboard_passkeys').where({ user_id: userId }).delete();
}

/** Gives the session a challenge to sign, replacing any earlier one. */
export async function setSessionChallenge(
  db: Db,
  tokenHash: string,
  challenge: string,
  expiresAt: Date,
): Promise<void> {
  await db('dashboard_sessions')
    .where({ token_hash: tokenHash })
    .update({ webauthn_challenge: challenge, webauthn_challenge_expires_at: expiresAt });
}

/** Spends the session's challenge: true once, and only for the one it was given, before it expired. */
export async function takeSessionChallenge(db: Db, tokenHash: string, challenge: string, now: Date): Promise<boolean> {
  const changed = await db('dashboard_sessions')
    .where({ token_hash: tokenHash, webauthn_challenge: challenge })
    .andWhere('webauthn_challenge_expires_at', '>', now)
    .update({ webauthn_challenge: null, webauthn_challenge_expires_at: null });
  return changed > 0;
}
