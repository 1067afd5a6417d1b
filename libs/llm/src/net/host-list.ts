import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Lower case, without IPv6 brackets or a trailing dot: the form hosts are compared in. */
export function bareHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

/**
 * A list of hosts from configuration, comma- or space-separated: host names (`ollama`), suffix
 * wildcards (`*.svc.cluster.local`), IP addresses (`127.0.0.1`, `::1`) and CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`); `*` matches every host. Names match a host as written; addresses and
 * ranges match an address (IPv4-mapped IPv6 addresses count as their IPv4 address).
 */
export class HostList {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges: Range[] = [];
  /** True when the list holds `*`. */
  readonly all: boolean;

  /** @param variable named in the error thrown for an entry that looks like a range but is not one */
  constructor(spec: string | undefined, variable = 'host list') {
    let all = false;
    for (const raw of (spec ?? '').split(/[\s,]+/)) {
      const entry = bareHost(raw);
      if (!entry) continue;
      if (entry === '*') all = true;
      else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1));
      else if (entry.includes('/')) {
        try {
          this.ranges.push(ipaddr.parseCIDR(entry));
        } catch {
          throw new Error(`${variable}: ${JSON.stringify(raw)} is not a CIDR range`);
        }
      } else if (ipaddr.isValid(entry)) {
        const addr = normalise(ipaddr.parse(entry));
        this.ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      } else this.names.add(entry);
    }
    this.all = all;
  }

  /** True when nothing matches. */
  get empty(): boolean {
    return !this.all && this.names.size === 0 && this.suffixes.length === 0 && this.ranges.length === 0;
  }

  /** True when the host as written (a name or an address literal) is on the list. */
  hasHost(hostname: string): boolean {
    if (this.all) return true;
    const host = bareHost(hostname);
    if (this.names.has(host) || this.suffixes.some((s) => host.endsWith(s))) return true;
    return ipaddr.isValid(host) && this.hasAddress(host);
  }

  /** True when the address (a zone id is ignored) is on the list. */
  hasAddress(address: string): boolean {
    if (this.all) return true;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = normalise(ipaddr.parse(address.replace(/%.*$/, '')));
    } catch {
      return false;
    }
    return this.ranges.some(([range, bits]) => range.kind() === parsed.kind() && (parsed as ipaddr.IPv4).match(range as ipaddr.IPv4, bits));
  }
}
