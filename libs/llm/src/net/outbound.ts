import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { HostList } from './host-list';
import { isIpLiteral, refusalReason } from './address-policy';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves every address of a host name (injectable for tests). */
export type ResolveAll = (hostname: string) => Promise<ResolvedAddress[]>;

/** The target the address policy refused. */
export class OutboundTargetRefusedError extends Error {
  readonly code: string = 'OUTBOUND_TARGET_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** How a caller's policy decides about private targets. */
export interface OutboundPolicy {
  /**
   * Whether a private (loopback, link-local, ...) address may be used for this host: `hostname`
   * is the host as written in the URL (lower case, no brackets), `address` the resolved address.
   */
  allowPrivate: (hostname: string, address: string) => boolean;
  resolve?: ResolveAll;
  /** Appended to a refusal: how to allow it (for example `set FLOW_HTTP_ALLOW_PRIVATE=true to allow`). */
  hint?: string;
}

export const defaultResolve: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The address a request will connect to. Every resolved address must pass the policy (one bad
 * record refuses the host, so round-robin DNS cannot smuggle an internal target in), then the
 * first is pinned for the connection, so a second DNS answer (rebinding) is never asked for.
 */
export async function resolvePinned(hostname: string, policy: OutboundPolicy): Promise<ResolvedAddress> {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  let addresses: ResolvedAddress[];
  if (isIpLiteral(bare)) {
    addresses = [{ address: bare, family: bare.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(bare);
    } catch (e) {
      throw new Error(`cannot resolve ${bare}: ${(e as Error).message}`);
    }
  }
  if (addresses.length === 0) throw new Error(`cannot resolve ${bare}: no addresses`);
  for (const a of addresses) {
    const reason = refusalReason(a.address);
    if (reason && !policy.allowPrivate(bare, a.address)) {
      throw new OutboundTargetRefusedError(`refused ${bare}: ${reason}${policy.hint ? ` (${policy.hint})` : ''}`);
    }
  }
  return addresses[0];
}

/** A `lookup` for `net.connect`/`tls.connect` that answers the pinned address whatever it is asked. */
export function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * The `LLM_ALLOWED_PRIVATE_HOSTS` list: comma- or space-separated host names (`localhost`,
 * `ollama`), IP addresses (`127.0.0.1`, `::1`) and CIDR ranges (`10.0.0.0/8`, `fd00::/8`); `*`
 * allows every private target. A host name entry matches the URL's host as written; an address or
 * range matches the resolved address, so `127.0.0.1` also admits a name that resolves there.
 */
export class PrivateHostAllowlist {
  private readonly list: HostList;

  constructor(spec: string | undefined) {
    this.list = new HostList(spec, 'LLM_ALLOWED_PRIVATE_HOSTS');
  }

  /** True when nothing is allowed. */
  get empty(): boolean {
    return this.list.empty;
  }

  allows(hostname: string, address: string): boolean {
    return this.list.hasHost(hostname) || this.list.hasAddress(address);
  }
}

/**
 * Checks an outbound base URL before any connection: http or https only, no credentials in it
 * (`https://api.openai.com@127.0.0.1/` is a classic trick, and keys belong in `apiKey`).
 * Returns the parsed URL. Numeric host forms (`2130706433`, `0177.0.0.1`, `[::ffff:7f00:1]`) are
 * normalised by the WHATWG parser into the addresses they mean, then judged by `resolvePinned`.
 */
export function parseOutboundUrl(raw: string, what = 'baseURL'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundTargetRefusedError(`${what} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundTargetRefusedError(`${what} must be http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundTargetRefusedError(`${what} must not contain credentials; put the key in apiKey`);
  return url;
}
