import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses an outbound request (the http-request node, model and embedding calls)
 * may connect to. Only global unicast passes:
 * private (10/8, 172.16/12, 192.168/16), loopback, link-local (169.254/16 holds the cloud metadata
 * services, fe80::/10), unique-local (fc00::/7), CGNAT (100.64/10), unspecified, multicast,
 * broadcast, documentation/reserved, NAT64/6to4/Teredo (they embed IPv4 targets) and the
 * deprecated site-local fec0::/10 are refused. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as
 * the IPv4 address it carries.
 */
export function refusalReason(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() unwraps IPv4-mapped IPv6 into plain IPv4.
    parsed = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  if (range !== 'unicast') return `${parsed.toString()} is a ${range} address`;
  if (parsed.kind() === 'ipv4' && (parsed as ipaddr.IPv4).match(ipaddr.IPv4.parse('198.18.0.0'), 15)) {
    return `${parsed.toString()} is a benchmarking address`;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parse('fec0::'), 10)) {
    return `${parsed.toString()} is a site-local address`;
  }
  return undefined;
}

/** True for a literal IPv4 or IPv6 address (brackets allowed). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
