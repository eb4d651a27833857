import ipaddr from 'ipaddr.js';

/** The address as ipaddr.js parses it, IPv4-mapped IPv6 taken as the IPv4 address inside. */
function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(ip);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/**
 * The special-purpose range an address is in (IANA's IPv4 and IPv6 special-purpose registries,
 * as ipaddr.js names them: private, loopback, linkLocal, carrierGradeNat, reserved, multicast,
 * uniqueLocal, ...), or null for a public unicast address.
 */
export function reservedRange(ip: string): string | null {
  const range = parse(ip).range();
  return range === 'unicast' ? null : range;
}

const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
const V4_MAPPED = '00000000000000000000ffff';

/** An address as 32 hex digits, IPv4 mapped into IPv6: ordered as text the way addresses order. */
export function ipHex(ip: string): string {
  const a = parse(ip);
  return a.kind() === 'ipv4' ? V4_MAPPED + hex(a.toByteArray()) : hex(a.toByteArray());
}

/** First and last address of a CIDR block (or of one address), as ipHex gives them. */
export function cidrRange(block: string): { start: string; end: string; cidr: string } {
  const [addr, bits] = block.includes('/') ? ipaddr.parseCIDR(block) : [ipaddr.parse(block), undefined];
  const isV4 = addr.kind() === 'ipv4';
  const width = isV4 ? 32 : 128;
  const prefix = bits ?? width;
  const value = BigInt(`0x${hex(addr.toByteArray())}`);
  const hostBits = BigInt(width - prefix);
  const start = (value >> hostBits) << hostBits;
  const end = start | ((1n << hostBits) - 1n);
  const pad = (v: bigint) => v.toString(16).padStart(width / 4, '0');
  return {
    start: isV4 ? V4_MAPPED + pad(start) : pad(start),
    end: isV4 ? V4_MAPPED + pad(end) : pad(end),
    cidr: bits === undefined ? addr.toString() : `${ipaddr.fromByteArray(bytesOf(start, width)).toString()}/${prefix}`,
  };
}

function bytesOf(v: bigint, width: number): number[] {
  const out: number[] = [];
  for (let i = width / 8 - 1; i >= 0; i--) out.push(Number((v >> BigInt(i * 8)) & 0xffn));
  return out;
}
