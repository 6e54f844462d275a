import { count } from './output.js';
/**
 * Raw error codes (ENOENT, ECONNREFUSED, an OpenSSL reason) turned into sentences that say what
 * is wrong and what to do.
 */

/** A file the user named could not be read or written. */
export function fileProblem(err: unknown, file: string): string {
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'ENOENT':
      return `there is no file ${file} (check the name and the folder you run from)`;
    case 'EACCES':
    case 'EPERM':
      return `${file} may not be read or written by this user (check its permissions)`;
    case 'EISDIR':
      return `${file} is a folder, not a file`;
    case 'ENOTDIR':
      return `a part of the path ${file} is not a folder`;
    case 'ENOSPC':
      return `the disk holding ${file} is full`;
    default:
      return `cannot use ${file}: ${(err as Error).message ?? String(err)}`;
  }
}

/** The daemon could not be reached at `baseUrl`: why, in words, and what to check. */
export function connectionProblem(baseUrl: string, code: string | undefined, message: string): string {
  const where = `Check the address (--base-url, AFFILIATED_BASE_URL, or \`affiliated config set base-url URL\`).`;
  const tls = /SSL|TLS|wrong version number|EPROTO/i;
  if (baseUrl.startsWith('https:') && (tls.test(code ?? '') || tls.test(message))) {
    return (
      `${baseUrl} was called with https://, but the server there does not speak TLS: ` +
      `the daemon serves plain http (put a TLS proxy in front of it for https). Use ${baseUrl.replace(/^https:/, 'http:')}.`
    );
  }
  if (code?.startsWith('CERT_') || code?.includes('CERT') || /certificate/i.test(message)) {
    return `the TLS certificate of ${baseUrl} is not trusted (${code ?? message}). Check the proxy's certificate, or NODE_EXTRA_CA_CERTS for a private CA.`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing answers at ${baseUrl}: is the daemon running (\`npx affiliated serve\`)? ${where}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${baseUrl} is not known (DNS). ${where}`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `${baseUrl} did not answer in time: is the address right and the daemon up? ${where}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the connection to ${baseUrl} was closed before an answer came (a proxy, or the daemon stopping?). Try again.`;
    default:
      return `cannot reach the daemon at ${baseUrl}: ${message}. ${where}`;
  }
}

/** The month's conversion slots a monthly-limit refusal names (`Current: 901/1000`): 99 left of 1000. */
export function monthlyRoom(message: string): { left: number; max: number } | undefined {
  const match = /Monthly conversion limit reached .* Current: (\d+)\/(\d+)/.exec(message);
  if (!match) return undefined;
  const max = Number(match[2]);
  return { left: Math.max(0, max - Number(match[1])), max };
}

/**
 * The spec's monthly-limit message gives the slots used before the request (`Current: 901/1000`):
 * said plainly, a request refused with slots left held more conversions than the month has room
 * for, and a smaller one still fits.
 */
function monthlySlots(message: string): string {
  const room = monthlyRoom(message);
  if (!room) return '';
  const { left, max } = room;
  if (left === 0) return `No conversion slot is left this month: all ${count(max)} are used.\n`;
  return (
    `The request would pass the monthly limit: ${count(left)} of ${count(max)} conversion slots are left this month ` +
    `(a request of at most ${count(left)} conversions still fits).\n`
  );
}

/** The default plans, smallest first: the next one up is the fix a plan-limit refusal suggests. */
const PLAN_LADDER = ['free', 'starter', 'pro', 'unlimited'];

/**
 * A 403 plan-limit message of the spec (`... reached for free plan. Current: 10/10`) and the
 * way out: a bigger plan for the campaign, set by the operator.
 */
export function planLimitFix(message: string, campaign: string | undefined): string | undefined {
  const match = /limit reached for (\S+) plan/.exec(message);
  if (!match?.[1]) return undefined;
  const at = PLAN_LADDER.indexOf(match[1]);
  const next = at >= 0 && at < PLAN_LADDER.length - 1 ? PLAN_LADDER[at + 1] : 'PLAN';
  return (
    monthlySlots(message) +
    `To raise the limit, move the campaign to a bigger plan (an operator command, run where the daemon's database is):\n` +
    `  affiliated campaigns update ${campaign ?? 'CAMPAIGN'} --plan ${next}\n` +
    '  (`affiliated plans list` shows each plan’s limits)'
  );
}
