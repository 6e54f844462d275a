import { ForbiddenError } from '../../errors.js';
import type { DashboardActor, DashboardRole } from './types.js';

/**
 * What each role may do (docs/dashboard.md#users-and-roles): `viewer` reads, `admin` also
 * changes affiliates, conversions and payouts, `owner` also manages users and API keys.
 */
export type DashboardAction = 'read' | 'change' | 'keys' | 'users';

const ALLOWED: Readonly<Record<DashboardRole, readonly DashboardAction[]>> = {
  owner: ['read', 'change', 'keys', 'users'],
  admin: ['read', 'change'],
  viewer: ['read'],
};

export function may(role: DashboardRole, action: DashboardAction): boolean {
  return ALLOWED[role].includes(action);
}

/** Refuses (403) an action the actor's role does not allow, or any before its second factor. */
export function requireRole(actor: DashboardActor, action: DashboardAction): void {
  if (actor.factorPending || !may(actor.role, action)) {
    throw new ForbiddenError('Your role does not allow this: ask an owner of the campaign');
  }
}

/** Owners and admins log in with a second factor; viewers with their password. */
export const needsSecondFactor = (role: DashboardRole) => role !== 'viewer';
