import { isIPv4, isIPv6 } from 'node:net';

/**
 * A client as per-address limits count it (the rate limit, the portal's throttles). An IPv6
 * client is its /64: one host is usually given a whole /64, and counting its addresses apart
 * would give it a fresh budget per address. An IPv4 address mapped into IPv6 is the IPv4 one.
 */
export function clientKey(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  if (!isIPv6(address)) return ip;
  return `${groupsOf(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as hexadecimal without leading zeros. */
function groupsOf(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const parts = (text: string) =>
    text === ''
      ? []
      : text.split(':').flatMap((part) => {
          // A trailing dotted IPv4 part is two groups.
          if (!part.includes('.')) return [part];
          const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const left = parts(head);
  const right = tail === undefined ? [] : parts(tail);
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16).toString(16));
}
