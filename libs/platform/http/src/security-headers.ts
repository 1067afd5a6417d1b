import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Env variable with the origins allowed to frame the platform's pages (empty: none may). */
export const FRAME_ANCESTORS_ENV = 'GATEWAY_FRAME_ANCESTORS';

const ANCESTOR = /^('self'|https?:\/\/[A-Za-z0-9.*-]+(:\d+)?)$/;

/** Parses a comma-separated frame-ancestors allow list (`'self'` or origins such as `https://shop.example.com`). */
export function parseFrameAncestors(value: string | undefined): string[] {
  const list = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !ANCESTOR.test(s));
  if (bad.length) throw new Error(`${FRAME_ANCESTORS_ENV}: not an origin or 'self': ${bad.join(', ')}`);
  return list;
}

/** The allow list from an environment (see `FRAME_ANCESTORS_ENV`). */
export function frameAncestorsFromEnv(env: Record<string, string | undefined>): string[] {
  return parseFrameAncestors(env[FRAME_ANCESTORS_ENV]);
}

export type SecurityHeadersMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** What helmet does to a response: the headers it sets, in order and as cased, and those it removes. */
interface HeaderEffects {
  set: Array<readonly [string, string]>;
  removed: string[];
}

/**
 * Helmet with the platform's policy. HTML (Swagger UI, later the console) may only run scripts
 * loaded from its own origin, never inline ones, and may not be framed except by the allow list.
 * API responses stay usable from other sites (bearer tokens, CORS as configured), so resources are
 * `cross-origin` for CORP; `nosniff` keeps browsers from running a JSON or text answer as script.
 * This is helmet's own middleware: the reference whose effect `securityHeaders` replays.
 */
export function platformHelmet(frameAncestors: readonly string[]): SecurityHeadersMiddleware {
  const framable = frameAncestors.length > 0;
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': ["'self'"],
        'font-src': ["'self'", 'data:'],
        'form-action': ["'self'"],
        'frame-ancestors': framable ? [...frameAncestors] : ["'none'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        // Swagger UI's page and components style elements inline; styles cannot run code.
        'style-src': ["'self'", "'unsafe-inline'"],
      },
    },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    // frame-ancestors governs framing; the legacy header can only say DENY or SAMEORIGIN.
    xFrameOptions: framable ? false : { action: 'deny' },
  }) as SecurityHeadersMiddleware;
}

/**
 * Runs the helmet policy once against a recording response. Every directive of the policy is
 * static (no per-request nonce or function), so its effect on any response is this same list.
 */
function headerEffects(frameAncestors: readonly string[]): HeaderEffects {
  const set = new Map<string, readonly [string, string]>();
  const removed = new Set<string>();
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      const key = name.toLowerCase();
      set.delete(key);
      removed.delete(key);
      set.set(key, [name, Array.isArray(value) ? value.join(', ') : String(value)]);
      return res;
    },
    removeHeader(name: string) {
      const key = name.toLowerCase();
      set.delete(key);
      removed.add(name);
    },
  };
  let done = false;
  platformHelmet(frameAncestors)({} as IncomingMessage, res as unknown as ServerResponse, () => (done = true));
  if (!done) throw new Error('helmet did not complete synchronously');
  return { set: [...set.values()], removed: [...removed] };
}

/**
 * The platform's security headers as middleware. Helmet's own middleware walks a chain of a dozen
 * functions and rebuilds the CSP string on every request; the outcome never varies, so it is
 * computed once here and applied with one loop.
 */
export function securityHeaders(frameAncestors: readonly string[] = []): SecurityHeadersMiddleware {
  const { set, removed } = headerEffects(frameAncestors);
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}

/**
 * The headers `securityHeaders` sets, as name/value pairs, for paths that answer without Express
 * (the gateway's proxy fast path sets them once per response, upstream headers take precedence).
 */
export function securityHeaderList(frameAncestors: readonly string[] = []): ReadonlyArray<readonly [string, string]> {
  return headerEffects(frameAncestors).set.map(([name, value]) => [name.toLowerCase(), value] as const);
}
