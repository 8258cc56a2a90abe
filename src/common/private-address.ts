import { BlockList, isIP } from 'node:net';

/**
 * Loopback, private, shared, link-local, benchmarking, documentation, unique-local, multicast, reserved
 * and unspecified ranges: where outbound fetches (webfetch, URL ingestion, data sources) must not go
 * unless allowed. IPv6 forms that carry an IPv4 address are judged by that address (see embeddedIpv4).
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  // ::/96 holds ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d (routed as IPv4 by some stacks);
  // ::ffff:0:0:0/96 is SIIT's IPv4-translated form; neither is a destination a fetch has any use for.
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:2::', 48],
  ['2001:10::', 28], ['2001:20::', 28], ['2001:db8::', 32], ['3fff::', 20], ['fc00::', 7], ['fe80::', 10],
  ['fec0::', 10], ['ff00::', 8],
] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (zone index dropped, a trailing dotted IPv4 read as two groups). */
function groups(address: string): number[] {
  let text = address.split('%')[0].toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address an IPv6 address stands for, where it stands for one: IPv4-mapped (`::ffff:a.b.c.d`,
 * also written `::ffff:7f00:1`), NAT64's well-known prefix (`64:ff9b::a.b.c.d`, RFC 6052) and 6to4
 * (`2002:AABB:CCDD::/48`). A fetch to one of them reaches that IPv4 host on a machine with the translator.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return ipv4(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4(g[6], g[7]);
  if (g[0] === 0x2002) return ipv4(g[1], g[2]);
  return undefined;
}

/** Whether an address is in one of those ranges; anything not an IP address counts as private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return PRIVATE.check(v4, 'ipv4');
  return PRIVATE.check(address.split('%')[0], 'ipv6');
}
