import { bareHost, HostList } from '@flowplane/llm';
import { SERVICE_NAMES, serviceUrl } from '@flowplane/contracts';

/** Hosts that are always allowed over plain http: the loopback interface. */
const LOOPBACK = 'localhost, *.localhost, 127.0.0.0/8, ::1';

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
  private readonly hosts: HostList;

  /**
   * @param allowedHosts REMOTE_NODE_ALLOWED_HOSTS
   * @param platformUrls the platform's service URLs, read at each check (the launcher fills them as services start)
   */
  constructor(
    allowedHosts: string | undefined,
    private readonly platformUrls: () => Iterable<string> = () => [],
  ) {
    this.hosts = new HostList(`${LOOPBACK},${allowedHosts ?? ''}`, 'REMOTE_NODE_ALLOWED_HOSTS');
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
    if (this.hosts.hasHost(hostname)) return true;
    const host = bareHost(hostname);
    for (const u of this.platformUrls()) {
      try {
        if (bareHost(new URL(u).hostname) === host) return true;
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
