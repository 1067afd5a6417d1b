import ipaddr from 'ipaddr.js';
import { SERVICE_NAMES, serviceUrl } from '@flowplane/contracts';

/** Hosts that are always allowed over plain http: the loopback interface. */
const LOOPBACK = ['localhost', '*.localhost', '127.0.0.0/8', '::1'];

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Which remote node invoke URLs may use plain http. A step carries its packet, config and a step
 * token, so outside a trusted network it must travel over TLS: http is allowed only to loopback, to
 * the hosts of the platform's own services (`<SERVICE>_URL`, or the launcher's URLs), and to the
 * hosts listed in REMOTE_NODE_ALLOWED_HOSTS; every other host needs https.
 *
 * List entries, comma- or space-separated: host names (`crm`), suffix wildcards (`*.svc.cluster.local`),
 * IP addresses and CIDR ranges (`10.0.0.0/8`); `*` allows plain http everywhere. Hosts are judged as
 * written in the URL (no DNS lookup).
 */
export class RemoteNodeUrlPolicy {
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges: Range[] = [];
  private readonly any: boolean;

  /**
   * @param allowedHosts REMOTE_NODE_ALLOWED_HOSTS
   * @param platformUrls the platform's service URLs, read at each check (the launcher fills them as services start)
   */
  constructor(
    allowedHosts: string | undefined,
    private readonly platformUrls: () => Iterable<string> = () => [],
  ) {
    let any = false;
    for (const raw of [...LOOPBACK, ...(allowedHosts ?? '').split(/[\s,]+/)]) {
      const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
      if (!entry) continue;
      if (entry === '*') any = true;
      else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1));
      else if (entry.includes('/')) {
        const range = parseCidr(entry);
        if (range) this.ranges.push(range);
        else throw new Error(`REMOTE_NODE_ALLOWED_HOSTS: ${JSON.stringify(raw)} is not a CIDR range`);
      } else if (ipaddr.isValid(entry)) {
        const addr = normalise(ipaddr.parse(entry));
        this.ranges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      } else this.names.add(entry);
    }
    this.any = any;
  }

  /** Why `url` may not be an invoke URL, or undefined when it may. */
  problem(url: URL): string | undefined {
    if (url.protocol === 'https:') return undefined;
    if (url.protocol !== 'http:') return `invokeUrl must use http or https, not ${url.protocol.replace(/:$/, '')}`;
    if (this.allowsHttp(url.hostname)) return undefined;
    return `invokeUrl must use https: plain http is allowed only to loopback, the platform's own services and REMOTE_NODE_ALLOWED_HOSTS, and ${url.hostname} is none of them`;
  }

  /** True when plain http to `hostname` (as the URL writes it) is allowed. */
  allowsHttp(hostname: string): boolean {
    if (this.any) return true;
    const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
    if (this.names.has(host) || this.suffixes.some((s) => host.endsWith(s))) return true;
    if (ipaddr.isValid(host)) {
      const addr = normalise(ipaddr.parse(host));
      if (this.ranges.some(([range, bits]) => range.kind() === addr.kind() && (addr as ipaddr.IPv4).match(range as ipaddr.IPv4, bits))) return true;
    }
    for (const u of this.platformUrls()) {
      try {
        if (new URL(u).hostname.toLowerCase().replace(/^\[|\]$/g, '') === host) return true;
      } catch {
        // an unparsable URL allows nothing
      }
    }
    return false;
  }
}

/** The base URLs of the platform's services as this service knows them: the launcher's, then `<SERVICE>_URL`. */
export function platformServiceUrls(launcher: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>): string[] {
  const urls = Object.values(launcher);
  for (const name of SERVICE_NAMES) {
    try {
      urls.push(serviceUrl(name, env));
    } catch {
      // an invalid <SERVICE>_URL fails where that service is called; it allows nothing here
    }
  }
  return urls;
}

function parseCidr(entry: string): Range | undefined {
  try {
    return ipaddr.parseCIDR(entry);
  } catch {
    return undefined;
  }
}

function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}
