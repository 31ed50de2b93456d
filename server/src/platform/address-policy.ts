import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which host names and addresses the server may fetch from (DESIGN §8): public unicast only, unless
 * the operator opened a network with HEARTH_FETCH_ALLOW_CIDRS. Each refusal is said in words a parent
 * can read, because it ends up in the blocklist screen's error.
 */

const PRIVATE = 'a private network address';
const DOCUMENTATION = 'an address reserved for documentation';
const BENCHMARKING = 'an address reserved for benchmarking';
const RESERVED = 'a reserved address';

/** IANA's special-purpose IPv4 ranges that are not public unicast; the first match names the reason. */
const V4_RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, PRIVATE],
  ['100.64.0.0', 10, 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0', 8, 'a loopback address (the server itself)'],
  ['169.254.0.0', 16, 'a link-local address (where cloud metadata services live)'],
  ['172.16.0.0', 12, PRIVATE],
  ['192.0.0.0', 24, 'an address reserved for IETF protocols'],
  ['192.0.2.0', 24, DOCUMENTATION],
  ['192.88.99.0', 24, 'a retired 6to4 relay address'],
  ['192.168.0.0', 16, PRIVATE],
  ['198.18.0.0', 15, BENCHMARKING],
  ['198.51.100.0', 24, DOCUMENTATION],
  ['203.0.113.0', 24, DOCUMENTATION],
  ['224.0.0.0', 4, 'a multicast address'],
  ['255.255.255.255', 32, 'the broadcast address'],
  ['240.0.0.0', 4, RESERVED],
];

/**
 * IPv6 ranges refused outright. The forms that carry an IPv4 address to a real host (IPv4-mapped,
 * NAT64 64:ff9b::/96, 6to4) are not here: `refusal` judges the IPv4 address inside them instead.
 */
const V6_RANGES: [string, number, string][] = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'a loopback address (the server itself)'],
  ['::', 96, 'a retired IPv4-compatible IPv6 address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 32, 'a Teredo tunnel address'],
  ['2001:2::', 48, BENCHMARKING],
  ['2001:db8::', 32, DOCUMENTATION],
  ['2001::', 23, 'an address reserved for IETF protocols'],
  ['3fff::', 20, DOCUMENTATION],
  ['fc00::', 7, 'a private (unique local) network address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local network address'],
  ['ff00::', 8, 'a multicast address'],
];

function rangeLists(ranges: [string, number, string][], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason };
  });
}

const V4_LISTS = rangeLists(V4_RANGES, 'ipv4');
const V6_LISTS = rangeLists(V6_RANGES, 'ipv6');
/** Global unicast: every public IPv6 address lies in 2000::/3. */
const V6_GLOBAL = new BlockList();
V6_GLOBAL.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (already known to be valid). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%', 1)[0] ?? '';
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const dottedQuad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The IPv4 address an IPv6 address stands for, for the forms that reach an IPv4 host. */
function embeddedIPv4(address: string): { form: string; ipv4: string } | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = ipv6Groups(address);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff)
    return { form: 'IPv4-mapped', ipv4: dottedQuad(g6, g7) };
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return { form: 'NAT64', ipv4: dottedQuad(g6, g7) };
  if (g0 === 0x2002) return { form: '6to4', ipv4: dottedQuad(g1, g2) };
  return null;
}

export class AddressPolicy {
  private readonly allow4 = new BlockList();
  private readonly allow6 = new BlockList();

  /** `allowCidrs`: HEARTH_FETCH_ALLOW_CIDRS, already validated by the config (`10.0.0.0/8`, `fd00::/8`). */
  constructor(allowCidrs: readonly string[]) {
    for (const cidr of allowCidrs) {
      const [network = '', prefix = ''] = cidr.split('/');
      // Kept per family: Node's BlockList lets an IPv6 rule match IPv4 addresses and back.
      if (isIPv4(network)) this.allow4.addSubnet(network, Number(prefix), 'ipv4');
      else if (isIPv6(network)) this.allow6.addSubnet(network, Number(prefix), 'ipv6');
      else throw new Error(`Not a CIDR: ${cidr}`);
    }
  }

  /** Null when the server may connect to `address`; otherwise why not ("a loopback address …"). */
  refusal(address: string): string | null {
    if (isIPv4(address)) {
      if (this.allow4.check(address, 'ipv4')) return null;
      return V4_LISTS.find(({ list }) => list.check(address, 'ipv4'))?.reason ?? null;
    }
    if (!isIPv6(address)) return 'not an IP address';
    const embedded = embeddedIPv4(address);
    // An IPv4-mapped address is that IPv4 host, opened or refused as such.
    if (embedded?.form === 'IPv4-mapped') return this.refusal(embedded.ipv4);
    if (this.allow6.check(address, 'ipv6')) return null;
    if (embedded) {
      const inner = this.refusal(embedded.ipv4);
      return inner && `the ${embedded.form} form of ${inner}`;
    }
    const known = V6_LISTS.find(({ list }) => list.check(address, 'ipv6'));
    if (known) return known.reason;
    return V6_GLOBAL.check(address, 'ipv6') ? null : RESERVED;
  }
}

const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'metadata.google.internal']);
/** Suffixes of names that only mean something on this server or its own network. */
const LOCAL_SUFFIXES = [
  '.localhost',
  '.localdomain',
  '.local',
  '.internal',
  '.home.arpa',
  '.lan',
  '.home',
  '.corp',
  '.intranet',
  '.private',
];

/**
 * Null when `hostname` (a URL's host, lower case, brackets removed) may be looked up; otherwise why
 * not. These names are refused even inside HEARTH_FETCH_ALLOW_CIDRS: they mean this server or a
 * network the operator named no address of, so an address in the URL is the only way to a LAN host.
 */
export function hostnameRefusal(hostname: string): string | null {
  if (isIPv4(hostname) || isIPv6(hostname)) return null;
  const name = hostname.replace(/\.+$/, '');
  if (LOCAL_NAMES.has(name) || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix)))
    return 'it names this server or its local network';
  if (!name.includes('.')) return 'it is not a full public name (like lists.example.org)';
  return null;
}
