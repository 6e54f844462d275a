import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { StartupError } from '../errors.js';

/** One representation of the script: its bytes and a strong ETag that names exactly them. */
export interface ScriptRepresentation {
  body: Buffer;
  etag: string;
}

/** The browser tracking script, read and compressed once when the daemon starts. */
export interface TrackerScript {
  plain: ScriptRepresentation;
  gzip: ScriptRepresentation;
}

/** Where the script sits: beside the compiled server (`npm run build` copies it there). */
export const TRACKER_SCRIPT_URL = new URL('../sdk/tracker.js', import.meta.url);

export function loadTrackerScript(location: URL = TRACKER_SCRIPT_URL): TrackerScript {
  let body: Buffer;
  try {
    body = readFileSync(location);
  } catch {
    throw new StartupError(`the tracking script is missing at ${location.pathname}: run \`npm run build\``);
  }
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return {
    plain: { body, etag: `"${hash}"` },
    gzip: { body: gzipSync(body, { level: 9 }), etag: `"${hash}-gz"` },
  };
}
