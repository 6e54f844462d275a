import { ApiError, ConnectionError, createApiClient } from '../../../shared/client/index.js';
import { connectionProblem } from '../../problems.js';
import { VERSION } from '../../version.js';

export interface DaemonCheck {
  ok: boolean;
  /** The daemon answers but refuses the key: it runs on another database. */
  fatal: boolean;
  message: string;
}

/** Does the daemon answer at the saved address, and does it know the key just made? */
export async function checkDaemon(baseUrl: string, apiKey: string, publicId: string): Promise<DaemonCheck> {
  const client = createApiClient({ baseUrl, apiKey, userAgent: `affiliated-cli/${VERSION}` });
  try {
    const campaign = await client.campaign.get();
    if (campaign.publicId !== publicId) {
      return { ok: false, fatal: true, message: `the daemon at ${baseUrl} took the key for another campaign` };
    }
    return {
      ok: true,
      fatal: false,
      message: `The daemon at ${baseUrl} answers and accepts the key (campaign ${publicId}).`,
    };
  } catch (err) {
    if (err instanceof ConnectionError) {
      return {
        ok: false,
        fatal: false,
        message: `Not checked: ${connectionProblem(baseUrl, err.code, err.reason ?? err.message)}`,
      };
    }
    if (err instanceof ApiError && err.statusCode === 401) {
      return {
        ok: false,
        fatal: true,
        message:
          `The daemon at ${baseUrl} answers but does not know the new key: it runs on another database ` +
          'than this command used (see "Database:" above). Run init in the daemon’s folder, or with its DATABASE_URL.',
      };
    }
    return { ok: false, fatal: false, message: `Not checked: ${(err as Error).message}` };
  }
}
