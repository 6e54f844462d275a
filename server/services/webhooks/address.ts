import dns from 'node:dns';
import net from 'node:net';

/**
 * Which addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: private,
 * loopback, link-local and other non-public ranges, so an endpoint URL cannot make the daemon
 * call into the network it runs in (SSRF).
 */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(address, prefix, 'ipv4');
}
/**
 * IPv6 ranges that carry an IPv4 address, or reach one through a translator or a tunnel, are
 * refused whole rather than judged by the IPv4 inside: where they lead is up to networks we
 * cannot see (a NAT64 translator in the daemon's own network reaches its private addresses).
 * Only IPv4-mapped addresses (`::ffff:a.b.c.d`), which the socket connects to as IPv4, are
 * judged as the IPv4 address they are.
 */
for (const [address, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d)
  ['::ffff:0:0:0', 96], // IPv4-translated (::ffff:0:a.b.c.d)
  ['64:ff9b::', 96], // NAT64, well-known prefix
  ['64:ff9b:1::', 48], // NAT64, local-use prefix
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(address, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, 'ipv6');
}

export class PrivateAddressError extends Error {
  readonly code = 'EWEBHOOKPRIVATE';
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address}, a private, loopback or link-local address ` +
        '(set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it)',
    );
  }
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Registration check: the host, or every address it resolves to, must be public. A name that does
 * not resolve now is accepted; the send-time check judges it again at every attempt.
 */
export async function privateAddressOf(url: URL): Promise<string | undefined> {
  const host = hostOf(url);
  if (net.isIP(host)) return isPrivateAddress(host) ? host : undefined;
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true });
  } catch {
    return undefined;
  }
  return addresses.find((entry) => isPrivateAddress(entry.address))?.address;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for the socket that connects to the receiver: the address checked is the address
 * connected to, so a name that changes its answer after registration (DNS rebinding) is caught.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((entry) => isPrivateAddress(entry.address));
    if (bad) return callback(new PrivateAddressError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}
