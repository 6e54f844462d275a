import { ApiError, ConnectionError, createApiClient } from '../../../shared/client/index.js';
import { baseUrlOf } from '../../client.js';
import { AlreadyReported } from '../../errors.js';
import type { Io } from '../../io.js';
import { agree, type GlobalOptions, note, plural, printJson, printLine, styled } from '../../output.js';
import { maskKey, resolveConnection } from '../../profiles.js';
import { connectionProblem } from '../../problems.js';
import { VERSION } from '../../version.js';

interface Check {
  name: 'daemon' | 'database' | 'apiKey';
  ok: boolean;
  detail: string;
}

/** How many affiliates applied through the portal and wait (pending); undefined when it cannot be read. */
async function pendingApplications(baseUrl: string, apiKey: string): Promise<number | undefined> {
  const client = createApiClient({ baseUrl, apiKey, userAgent: `affiliated-cli/${VERSION}` });
  try {
    return (await client.affiliates.list({ query: { status: 'pending', limit: 1 } })).total;
  } catch {
    return undefined;
  }
}

/** Each check in turn, as far as the previous one allows; nothing is changed anywhere. */
export async function status(io: Io, options: GlobalOptions): Promise<void> {
  const connection = await resolveConnection(io, options);
  const checks: Check[] = [];
  let baseUrl = connection.baseUrl;
  let campaign: { id: number; publicId: string; name: string; plan: string } | undefined;
  try {
    baseUrl = baseUrlOf(new URL(connection.baseUrl));
  } catch {
    checks.push({
      name: 'daemon',
      ok: false,
      detail: `"${connection.baseUrl}" is not a URL (e.g. http://127.0.0.1:3000)`,
    });
  }
  if (checks.length === 0) {
    const client = createApiClient({
      baseUrl,
      apiKey: connection.apiKey ?? '',
      userAgent: `affiliated-cli/${VERSION}`,
    });
    try {
      await client.system.health();
      checks.push({ name: 'daemon', ok: true, detail: `answers at ${baseUrl}` });
      checks.push({ name: 'database', ok: true, detail: 'reachable from the daemon' });
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 503) {
        checks.push({ name: 'daemon', ok: true, detail: `answers at ${baseUrl}` });
        checks.push({
          name: 'database',
          ok: false,
          detail: `the daemon cannot reach its database: ${err.messages.join('; ')}`,
        });
      } else if (err instanceof ConnectionError) {
        checks.push({
          name: 'daemon',
          ok: false,
          detail: connectionProblem(baseUrl, err.code, err.reason ?? err.message),
        });
      } else {
        checks.push({
          name: 'daemon',
          ok: false,
          detail: `${baseUrl} is not an affiliated daemon (${(err as Error).message})`,
        });
      }
    }
    if (checks.every((check) => check.ok)) {
      if (connection.apiKey === undefined || connection.apiKey === '') {
        checks.push({
          name: 'apiKey',
          ok: false,
          detail: 'not set: `affiliated config set api-key`, AFFILIATED_API_KEY or --api-key',
        });
      } else {
        try {
          campaign = await client.campaign.get();
          checks.push({
            name: 'apiKey',
            ok: true,
            detail: `${maskKey(connection.apiKey)} is valid for campaign "${campaign.publicId}" (${campaign.name}, plan ${campaign.plan})`,
          });
        } catch (err) {
          const why = err instanceof ApiError ? err.messages.join('; ') : (err as Error).message;
          checks.push({ name: 'apiKey', ok: false, detail: `${maskKey(connection.apiKey)} is refused: ${why}` });
        }
      }
    }
  }
  const ok = checks.length === 3 && checks.every((check) => check.ok);
  const pending = ok ? await pendingApplications(baseUrl, connection.apiKey ?? '') : undefined;
  if (options.json) {
    printJson(io, {
      ok,
      profile: connection.profile,
      baseUrl,
      sources: connection.sources,
      checks,
      campaign: campaign ?? null,
      pendingAffiliates: pending ?? null,
    });
  } else {
    printLine(io, `profile:  ${connection.profile}`);
    printLine(io, `base URL: ${baseUrl} (${connection.sources.baseUrl})`);
    for (const check of checks) {
      const mark = check.ok ? styled('green', 'ok  ') : styled('red', 'FAIL');
      printLine(io, [mark, ` ${check.name.padEnd(8)} ${check.detail}`]);
    }
    // Applications arrive through the portal; without SMTP nobody is mailed of them.
    if (pending !== undefined && pending > 0) {
      note(
        io,
        `${plural(pending, 'affiliate application')} ${agree(pending, 'waits', 'wait')} for approval: ` +
          '`affiliated affiliates list --status pending`, then `affiliated affiliates approve ID`.',
      );
    }
  }
  if (!ok) throw new AlreadyReported('status');
}
