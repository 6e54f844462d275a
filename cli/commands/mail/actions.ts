import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, type ListFormat, note, printJson, printLine, printTable } from '../../output.js';

export async function list(
  io: Io,
  options: GlobalOptions & { status?: string; campaign?: string; limit: number; output?: ListFormat },
): Promise<void> {
  const { mails, configured } = await withServices(io, options, async (services) => {
    const campaignId = options.campaign === undefined ? undefined : (await services.campaigns.get(options.campaign)).id;
    return {
      mails: await services.mail.list({ limit: options.limit, status: options.status, campaignId }),
      configured: services.mail.configured,
    };
  });
  if (options.json) return printJson(io, mails);
  if (!configured) note(io, 'SMTP_URL is not set here: this daemon records and sends no mail (docs/portal.md#e-mail).');
  printTable(
    io,
    ['id', 'kind', 'to', 'status', 'attempts', 'created', 'sent', 'next attempt', 'last error'],
    mails.map((m) => [m.id, m.kind, m.to, m.status, m.attempts, m.createdAt, m.sentAt, m.nextAttemptAt, m.lastError]),
    options.output,
  );
}

export async function retry(io: Io, options: GlobalOptions, id: number): Promise<void> {
  const configured = await withServices(io, options, async (services) => {
    await services.mail.retry(id);
    return services.mail.configured;
  });
  if (options.json) return printJson(io, { id, status: 'pending' });
  printLine(io, `Mail ${id} is pending again, due now.`);
  if (!configured) note(io, 'SMTP_URL is not set here: a daemon with SMTP_URL sends it (docs/portal.md#e-mail).');
}
