import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { type CountryResponse, Reader } from 'maxmind';
import { StartupError } from './errors.js';

/** A client address's country (ISO 3166-1 alpha-2, upper case), or null where the database has none. */
export type CountryOf = (ip: string) => string | null;

const ISO_CODE = /^[A-Z]{2}$/;

/**
 * `GEOIP_DB` (docs/analytics.md#countries): the MaxMind-format database read once, at start, into
 * memory (the maxmind reader), so a click's lookup is a walk of its tree and no I/O. A path that
 * cannot be read or a file that is no such database stops the start with one line.
 */
export function openCountries(path: string): CountryOf {
  let reader: Reader<CountryResponse>;
  try {
    reader = new Reader<CountryResponse>(readFileSync(path));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new StartupError(
      typeof code === 'string'
        ? `GEOIP_DB: cannot read ${path} (${code}): give the path of a MaxMind-format database (.mmdb), or unset GEOIP_DB`
        : `GEOIP_DB: ${path} is not a MaxMind-format database (.mmdb): give a GeoLite2 or GeoIP2 Country or City file, or unset GEOIP_DB`,
    );
  }
  // An IPv4-only database cannot place an IPv6 client; its tree would answer for the wrong bits.
  const v4Only = reader.metadata.ipVersion === 4;
  return (ip) => {
    const address = plainAddress(ip);
    if (v4Only && !isIPv4(address)) return null;
    try {
      const found = reader.get(address);
      const code = found?.country?.iso_code ?? found?.registered_country?.iso_code;
      return code !== undefined && ISO_CODE.test(code) ? code : null;
    } catch {
      // Not an address the reader can parse (a Unix socket's, say): nowhere.
      return null;
    }
  };
}

/** An IPv4 client arriving mapped into IPv6 is its IPv4 address; a zone index is dropped. */
function plainAddress(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}
