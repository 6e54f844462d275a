import type { DashboardUser, NewUserResult } from '../../../server/services/dashboard/index.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, type ListFormat, note, printJson, printLine, printTable } from '../../output.js';

const PROBLEMS: Record<string, string> = {
  email: '--email must be a valid e-mail address',
  role: '--role must be owner, admin or viewer',
  taken: 'this e-mail already has a user in this campaign: see `affiliated users list`',
};

/** `passkeys`: how many the user has (a list knows it); with TOTP, either is a second factor. */
const shown = (user: DashboardUser & { passkeys?: number }) => ({
  id: user.id,
  campaignId: user.campaignId,
  email: user.email,
  role: user.role,
  passwordSet: user.passwordHash !== null,
  secondFactor: user.totpSecret !== null || (user.passkeys ?? 0) > 0,
  createdAt: user.createdAt.toISOString(),
});

export async function create(
  io: Io,
  options: GlobalOptions & { campaign: string; email: string; role: string },
): Promise<void> {
  const result: NewUserResult = await withServices(io, options, ({ dashboard }) =>
    dashboard.operator.create({ campaign: options.campaign, email: options.email, role: options.role }),
  );
  if (result.state === 'invalid') throw new UsageError(PROBLEMS[result.problem] ?? result.problem);
  if (options.json) return printJson(io, { ...shown(result.user), setupLink: result.link });
  note(
    io,
    `User ${result.user.id} (${result.user.role}) for campaign ${result.user.campaignId}. Send them this link: it sets their password, works once, for 24 hours.`,
  );
  printLine(io, result.link ?? '');
}

export async function list(io: Io, options: GlobalOptions & { campaign?: string; output?: ListFormat }): Promise<void> {
  const users = (await withServices(io, options, ({ dashboard }) => dashboard.operator.list(options.campaign))).map(
    shown,
  );
  if (options.json) return printJson(io, { users, total: users.length });
  printTable(
    io,
    ['id', 'campaign', 'email', 'role', 'password', '2fa', 'created'],
    users.map((u) => [
      u.id,
      u.campaignId,
      u.email,
      u.role,
      u.passwordSet ? 'set' : 'not yet',
      u.secondFactor ? 'on' : 'off',
      u.createdAt,
    ]),
    options.output,
  );
}

export async function remove(io: Io, options: GlobalOptions, userId: number): Promise<void> {
  const user = await withServices(io, options, ({ dashboard }) => dashboard.operator.remove(userId));
  if (options.json) return printJson(io, shown(user));
  printLine(io, `User ${user.id} (${user.email}) is removed; their sessions have ended.`);
}

export async function resetTwoFactor(io: Io, options: GlobalOptions, userId: number): Promise<void> {
  const { user, passkeys } = await withServices(io, options, ({ dashboard }) =>
    dashboard.operator.resetTwoFactor(userId),
  );
  if (options.json) return printJson(io, { ...shown(user), passkeysRemoved: passkeys });
  printLine(
    io,
    `User ${user.id} (${user.email}) has no second factor now (TOTP, recovery codes and ${passkeys} passkey(s) removed); they set one up at their next log-in.`,
  );
}
