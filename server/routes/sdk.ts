import type { contract } from '../../shared/contract/index.js';
import { acceptsGzip } from '../http/encoding.js';
import type { Handlers } from '../http/register.js';

/** Browsers reuse the script for an hour, then revalidate it with its ETag (a 304 while unchanged). */
const SCRIPT_CACHE_CONTROL = 'public, max-age=3600';

export const sdkHandlers: Handlers<typeof contract.sdk> = {
  trackerScript: (_input, { sdk }, reply) => {
    const script = sdk.trackerScript();
    const representation = acceptsGzip(reply.requestHeader('accept-encoding')) ? script.gzip : script.plain;
    reply.setHeader('Cache-Control', SCRIPT_CACHE_CONTROL);
    reply.setHeader('Vary', 'Accept-Encoding');
    reply.setHeader('X-Content-Type-Options', 'nosniff');
    reply.setHeader('ETag', representation.etag);
    if (representation === script.gzip) reply.setHeader('Content-Encoding', 'gzip');
    return representation.body;
  },
  referral: ({ params, query }, { sdk }) => sdk.lookUpReferral(params.code, query.campaign),
};
