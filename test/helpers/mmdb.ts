import { isIPv4 } from 'node:net';

/**
 * A small MaxMind DB (format 2.0, https://maxmind.github.io/MaxMind-DB/) that maps networks to a
 * country, as GeoLite2-Country files do: an IPv6 tree of 24-bit records, IPv4 networks under
 * ::/96 (where readers look IPv4 addresses up). For tests that need GEOIP_DB: no writer ships in
 * npm or Debian's Node packages, and the format is small.
 */
export function countryDatabase(networks: Readonly<Record<string, string>>): Buffer {
  const data: Buffer[] = [];
  let dataSize = 0;
  const offsets = new Map<string, number>();
  const nodes: Rec[][] = [[{ kind: 'empty' }, { kind: 'empty' }]];
  for (const [cidr, country] of Object.entries(networks)) {
    let offset = offsets.get(country);
    if (offset === undefined) {
      const record = encode({ country: { iso_code: country } });
      offset = dataSize;
      offsets.set(country, offset);
      data.push(record);
      dataSize += record.length;
    }
    const { bits, length } = networkBits(cidr);
    let node = 0;
    for (let depth = 0; depth < length - 1; depth++) {
      const side = nodes[node]?.[bits[depth] ?? 0];
      if (side?.kind === 'node') {
        node = side.index;
        continue;
      }
      nodes.push([{ kind: 'empty' }, { kind: 'empty' }]);
      const next = nodes.length - 1;
      const current = nodes[node];
      if (current) current[bits[depth] ?? 0] = { kind: 'node', index: next };
      node = next;
    }
    const last = nodes[node];
    if (last) last[bits[length - 1] ?? 0] = { kind: 'data', offset };
  }
  const count = nodes.length;
  const value = (rec: Rec) =>
    rec.kind === 'node' ? rec.index : rec.kind === 'empty' ? count : count + 16 + rec.offset;
  const tree = Buffer.alloc(count * 6);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(value(left ?? { kind: 'empty' }), i * 6, 3);
    tree.writeUIntBE(value(right ?? { kind: 'empty' }), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: { uint32: count },
    record_size: { uint16: 24 },
    ip_version: { uint16: 6 },
    database_type: 'Test-Country',
    languages: ['en'],
    binary_format_major_version: { uint16: 2 },
    binary_format_minor_version: { uint16: 0 },
    build_epoch: { uint64: 1_790_000_000 },
    description: { en: 'networks for the tests' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata]);
}

type Rec = { kind: 'empty' } | { kind: 'node'; index: number } | { kind: 'data'; offset: number };
type Value =
  string | string[] | { uint16: number } | { uint32: number } | { uint64: number } | { [key: string]: Value };

/** A network's 128 bits (IPv4 under ::/96) and its prefix length in them. */
function networkBits(cidr: string): { bits: number[]; length: number } {
  const [address = '', prefix = ''] = cidr.split('/');
  const bytes = isIPv4(address)
    ? [...Array<number>(12).fill(0), ...address.split('.').map(Number)]
    : ipv6Bytes(address);
  const bits = bytes.flatMap((byte) => Array.from({ length: 8 }, (_, i) => (byte >> (7 - i)) & 1));
  return { bits, length: Number(prefix) + (isIPv4(address) ? 96 : 0) };
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The format's data section encoding of the few types a country database's records use. */
function encode(value: Value): Buffer {
  const control = (type: number, size: number) =>
    type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]);
  const uint = (type: number, n: number, width: number) => {
    const bytes = Buffer.alloc(width);
    bytes.writeUIntBE(n, 0, Math.min(width, 6));
    return Buffer.concat([control(type, width), bytes]);
  };
  if (typeof value === 'string') return Buffer.concat([control(2, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  if ('uint16' in value && typeof value.uint16 === 'number') return uint(5, value.uint16, 2);
  if ('uint32' in value && typeof value.uint32 === 'number') return uint(6, value.uint32, 4);
  if ('uint64' in value && typeof value.uint64 === 'number') return uint(9, value.uint64, 6);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}
