import type { ApiClient } from '../../../shared/client/index.js';
import { baseUrlOf } from '../../client.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { type GlobalOptions, note, plural, printJson, printLine } from '../../output.js';

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/;

const attribute = (text: string) => text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The daemon's address as browsers will reach it: `--public-url`, else the base URL in use. */
function publicBase(given: string | undefined, baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(given ?? baseUrl);
  } catch {
    throw new UsageError(`--public-url "${given}" is not a URL (e.g. https://affiliates.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--public-url "${given}" must start with https:// or http://`);
  }
  return url;
}

/** `snippet`: the script tag for the key's campaign, to paste on every page of the shop. */
export async function snippet(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { publicUrl?: string },
): Promise<void> {
  const base = publicBase(flags.publicUrl, client.baseUrl);
  const campaign = await client.campaign.get();
  // A URL ending in /v1 (as the API reference writes them) names the daemon's root, as --base-url does.
  const src = `${baseUrlOf(new URL(`${base.origin}${base.pathname}`))}/v1/sdk/tracker.js`;
  const tag = `<script src="${attribute(src)}" data-campaign="${attribute(campaign.publicId)}" defer></script>`;
  if (options.json) {
    return printJson(io, { tag, src, campaign: campaign.publicId, cookieDays: campaign.cookieDays });
  }
  printLine(io, tag);
  note(
    io,
    `Paste it into every page of your site, before </body>. Referral cookies last ${plural(campaign.cookieDays, 'day')}.`,
  );
  if (LOOPBACK.test(base.hostname)) {
    note(
      io,
      `note: ${base.hostname} is this machine; visitors' browsers cannot reach it. ` +
        'Pass --public-url with the address they reach the daemon at.',
    );
  }
}
