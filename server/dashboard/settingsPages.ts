import { DASHBOARD_ROLES } from '../../shared/vocabulary.js';
import { ValidationError } from '../errors.js';
import type { FormFields } from '../services/portal/index.js';
import { type DashPage, day, noticeOf, redirect, render } from './page.js';
import { idParam } from './query.js';

type Actor = NonNullable<DashPage['actor']>;

async function keysPage(
  page: DashPage,
  actor: Actor,
  extra: { created?: string; notice?: string; problem?: string } = {},
  status = 200,
): Promise<void> {
  const { keys: t } = page.t.dash;
  const keys = await page.services.dashboard.keys(actor);
  render(
    page,
    'keys',
    {
      title: t.title,
      nav: 'keys',
      created: extra.created ?? null,
      notice: extra.notice ?? null,
      problem: extra.problem ?? null,
      keys: keys.map((k) => ({
        id: k.id,
        name: k.name ?? '',
        label: `${k.prefix}…${k.lastFour}`,
        status: k.status,
        statusText: k.status,
        created: day(page, k.createdAt),
        lastUsed: k.lastUsedAt === null ? t.never : day(page, k.lastUsedAt),
      })),
    },
    status,
  );
}

export const showKeys = (page: DashPage, actor: Actor) => keysPage(page, actor);

/** The new key is on this answer only (no redirect, `no-store`): it is never shown again. */
export async function postCreateKey(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  try {
    const key = await page.services.dashboard.createKey(actor, fields.name ?? '');
    await keysPage(page, actor, { created: key.key });
  } catch (err) {
    // The service's one refusal of a name (too long), in the page's words, with the form again.
    if (!(err instanceof ValidationError)) throw err;
    await keysPage(page, actor, { problem: page.t.dash.keys.nameLong }, 400);
  }
}

export async function postRevokeKey(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return keysPage(page, actor, {}, 400);
  const key = await page.services.dashboard.revokeKey(actor, id.data);
  await keysPage(page, actor, { notice: page.t.dash.keys.revoked(`${key.prefix}…${key.lastFour}`) });
}

async function usersPage(
  page: DashPage,
  actor: Actor,
  extra: { problem?: string; link?: string; values?: Record<string, string> } = {},
  status = 200,
): Promise<void> {
  const t = page.t;
  const users = await page.services.dashboard.users(actor);
  render(
    page,
    'users',
    {
      title: t.dash.users.title,
      nav: 'users',
      notice: noticeOf(page),
      problem: extra.problem ?? null,
      link: extra.link ?? null,
      values: extra.values ?? {},
      roles: DASHBOARD_ROLES.map((r) => ({ value: r, text: t.dashboardRoles[r] ?? r })),
      users: users.map((u) => ({
        id: u.id,
        email: u.email,
        role: u.role,
        roleText: t.dashboardRoles[u.role] ?? u.role,
        factor: u.totpSecret === null && u.passkeys === 0 ? t.dash.users.off : t.dash.users.on,
        self: u.id === actor.userId,
      })),
    },
    status,
  );
}

export const showUsers = (page: DashPage, actor: Actor) => usersPage(page, actor);

export async function postInvite(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const result = await page.services.dashboard.invite(actor, fields, page.locale);
  if (result.state === 'invalid') {
    const values = { email: fields.email ?? '', role: fields.role ?? '' };
    return usersPage(page, actor, { problem: page.t.dash.users.problems[result.problem], values }, 400);
  }
  // Without a mail server the owner passes the link on; it is shown on this answer only.
  if (result.link) return usersPage(page, actor, { link: result.link });
  redirect(page, '/users?notice=invited');
}

export async function postRole(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return usersPage(page, actor, {}, 400);
  const changed = await page.services.dashboard.changeRole(actor, id.data, fields.role ?? '');
  if (changed === 'lastOwner') return usersPage(page, actor, { problem: page.t.dash.users.problems.lastOwner }, 409);
  redirect(page, '/users?notice=changed');
}

export async function postRemoveUser(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return usersPage(page, actor, {}, 400);
  const removed = await page.services.dashboard.removeUser(actor, id.data);
  if (removed === 'lastOwner') return usersPage(page, actor, { problem: page.t.dash.users.problems.lastOwner }, 409);
  redirect(page, '/users?notice=removed');
}
