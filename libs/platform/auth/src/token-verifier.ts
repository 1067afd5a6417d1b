import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';
import { audiencesOf, isInternalAudience, NODE_PREFIX, type Principal, principalFromClaims, RUN_PREFIX, SERVICE_PREFIX } from './principal';

export interface AuthOptions {
  /** HS256 secret for user tokens (development). */
  jwtSecret?: string;
  /** JWKS endpoint for RS256/ES256 user tokens (production). */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** HS256 secret for service tokens; defaults to `jwtSecret`. */
  serviceSecret?: string;
  /**
   * This service's name: service tokens are accepted only when their audience is `svc:<service>`.
   * Unset (tools, tests), a service token for any service is accepted.
   */
  service?: string;
}

/** What the caller of `verify` accepts besides user and service tokens. */
export interface VerifyOptions {
  /** Accept the step token of this remote node type (audience `node:<type>`); refused otherwise. */
  node?: string;
}

/** Why a token was refused; the message is safe to show to the caller. */
export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/** Longest a verified token is trusted without checking its signature again. */
export const VERIFIED_CACHE_MS = 60_000;
/** Most verified tokens remembered (oldest dropped first). */
export const VERIFIED_CACHE_SIZE = 10_000;

/** Verifies bearer tokens: user tokens by HS256 secret or JWKS, service tokens by the service secret. */
export class TokenVerifier {
  private readonly userSecret?: Uint8Array;
  private readonly serviceSecret?: Uint8Array;
  private readonly jwks?: JWTVerifyGetKey;
  /**
   * Tokens verified recently: a client sends the same token with every request, and verifying an
   * HMAC or RSA signature (WebCrypto, off the main thread) is the largest cost of a small request.
   * An entry lives until the token expires and at most VERIFIED_CACHE_MS, so a JWKS key rotation or
   * an expiry is seen within that bound; failures are never cached.
   */
  private readonly verified = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly options: AuthOptions) {
    const enc = new TextEncoder();
    if (options.jwtSecret) this.userSecret = enc.encode(options.jwtSecret);
    const svc = options.serviceSecret ?? options.jwtSecret;
    if (svc) this.serviceSecret = enc.encode(svc);
    if (options.jwksUrl) this.jwks = createRemoteJWKSet(new URL(options.jwksUrl));
    if (!this.userSecret && !this.jwks) throw new Error('TokenVerifier needs a JWT secret or a JWKS URL');
  }

  /** Verifies a compact JWT and returns its principal; throws InvalidTokenError with a caller-safe reason. */
  async verify(token: string, options: VerifyOptions = {}): Promise<Principal> {
    return this.checkUse(await this.verifySignature(token), options);
  }

  /**
   * `verify` without waiting, for a token verified recently: its principal when the cache holds it
   * and the same checks pass, undefined otherwise (not cached, expired from the cache, or refused);
   * the caller then takes the path that awaits `verify`, which gives the refusal its reason.
   */
  verifyCached(token: string, options: VerifyOptions = {}): Principal | undefined {
    const hit = this.verified.get(token);
    if (!hit || hit.until <= Date.now()) return undefined;
    try {
      return this.checkUse(hit.principal, options);
    } catch {
      return undefined;
    }
  }

  /** Checked on every use, cached or not: the same token may be offered where it does not belong. */
  private checkUse(principal: Principal, options: VerifyOptions): Principal {
    if (principal.node !== undefined && principal.node !== options.node) {
      throw new InvalidTokenError(`token is valid only for a step of remote node ${principal.node}`);
    }
    const self = this.options.service;
    if (principal.service && self && !principal.audience?.includes(SERVICE_PREFIX + self)) {
      throw new InvalidTokenError(`service token is for ${principal.audience?.join(', ') || 'no service'}, not ${SERVICE_PREFIX + self}`);
    }
    return principal;
  }

  private async verifySignature(token: string): Promise<Principal> {
    const now = Date.now();
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.until > now) return hit.principal;
      this.verified.delete(token);
    }
    const { principal, exp } = await this.verifyUncached(token);
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    const until = Math.min(now + VERIFIED_CACHE_MS, exp === undefined ? now + VERIFIED_CACHE_MS : exp * 1000);
    if (until > now) this.verified.set(token, { principal, until });
    return principal;
  }

  private async verifyUncached(token: string): Promise<{ principal: Principal; exp?: number }> {
    let alg: string | undefined;
    let internal = false;
    try {
      alg = decodeProtectedHeader(token).alg;
      // Only a routing decision (which key, which claim checks); the signature check below decides.
      if (alg === 'HS256') internal = isInternalAudience(audiencesOf(decodeJwt(token)));
    } catch {
      throw new InvalidTokenError('malformed bearer token');
    }
    try {
      if (alg === 'HS256' && internal) {
        // Internal tokens (service and node step) are signed with the service secret and always expire.
        if (!this.serviceSecret) throw new InvalidTokenError('service tokens are not accepted');
        const { payload } = await jwtVerify(token, this.serviceSecret, { algorithms: ['HS256'], requiredClaims: ['exp'] });
        return { principal: principalFromClaims(payload, true), exp: payload.exp };
      }
      if (alg === 'HS256') {
        // With a JWKS configured, HS256 is accepted for internal tokens only.
        if (this.jwks) throw new InvalidTokenError('HS256 is accepted for service tokens only');
        if (!this.userSecret) throw new InvalidTokenError('HS256 tokens are not accepted');
        const { payload } = await jwtVerify(token, this.userSecret, { algorithms: ['HS256'], ...this.claimChecks() });
        return { principal: principalFromClaims(payload), exp: payload.exp };
      }
      if (!this.jwks) throw new InvalidTokenError(`signing algorithm ${alg ?? 'none'} is not accepted`);
      const { payload } = await jwtVerify(token, this.jwks, { algorithms: ['RS256', 'ES256'], ...this.claimChecks() });
      return { principal: principalFromClaims(payload), exp: payload.exp };
    } catch (e) {
      if (e instanceof InvalidTokenError) throw e;
      const code = (e as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') throw new InvalidTokenError('token expired');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') throw new InvalidTokenError(`token claim check failed: ${(e as Error).message}`);
      if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw new InvalidTokenError('token signature is invalid');
      throw new InvalidTokenError(code?.startsWith('ERR_J') ? 'token is invalid' : `token is invalid: ${(e as Error).message}`);
    }
  }

  private claimChecks(): { issuer?: string; audience?: string } {
    return { issuer: this.options.issuer, audience: this.options.audience };
  }
}

export interface MintOptions {
  sub: string;
  perms?: string[];
  superuser?: boolean;
  active?: boolean;
  /** Lifetime such as `1h`, `15m`, `7d`, `300s`. */
  ttl?: string;
  issuer?: string;
  audience?: string | string[];
  /** Further claims. */
  claims?: Record<string, unknown>;
}

/** Signs an HS256 token (development tokens and service tokens). */
export async function mintToken(secret: string, o: MintOptions): Promise<string> {
  const claims: Record<string, unknown> = { ...o.claims, perms: o.perms ?? [] };
  if (o.superuser) claims.superuser = true;
  if (o.active === false) claims.active = false;
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(o.sub).setIssuedAt().setExpirationTime(o.ttl ?? '1h');
  if (o.issuer) jwt = jwt.setIssuer(o.issuer);
  if (o.audience) jwt = jwt.setAudience(o.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** Signs a service token: `sub: svc:<from>`, `aud: svc:<to>`, exactly `perms`. */
export function mintServiceToken(secret: string, o: { from: string; to: string; perms?: readonly string[]; ttlSeconds?: number }): Promise<string> {
  return mintToken(secret, { sub: SERVICE_PREFIX + o.from, audience: SERVICE_PREFIX + o.to, perms: [...(o.perms ?? [])], ttl: `${o.ttlSeconds ?? 300}s` });
}

/** One step of a remote node, as its step token names it. */
export interface NodeStepIdentity {
  runId: string;
  nodeId: string;
  /** The step's idempotency key. */
  stepKey: string;
  /** The node type (`crm/lookup`): the token's audience. */
  nodeType: string;
}

/**
 * Signs the token a remote node step gets: `sub: run:<runId>/<nodeId>`, `aud: node:<type>`, the
 * step key in `step`, no permissions. It tells the node's handler which run step calls it, and
 * every service refuses it anywhere but on a route serving that node type.
 */
export function mintNodeStepToken(secret: string, step: NodeStepIdentity, ttlSeconds: number): Promise<string> {
  return mintToken(secret, { sub: `${RUN_PREFIX}${step.runId}/${step.nodeId}`, audience: NODE_PREFIX + step.nodeType, perms: [], ttl: `${Math.max(1, Math.ceil(ttlSeconds))}s`, claims: { step: step.stepKey } });
}

/** Most (target, perms) pairs whose service token is kept. */
const SERVICE_TOKEN_CACHE_SIZE = 256;

/**
 * Mints this service's tokens for calls to other services: one short-lived token per (target,
 * perms) pair, cached until less than a minute of its life is left; and the step tokens of remote
 * node calls.
 */
export class ServiceTokenProvider {
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    private readonly service: string,
    private readonly secret: string,
    private readonly ttlSeconds = 300,
  ) {}

  /** A valid token for `target` carrying exactly `perms`. */
  async token(target: string, perms: readonly string[] = []): Promise<string> {
    const wanted = [...new Set(perms)].sort();
    const key = `${target}\n${wanted.join(' ')}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt - now > 60_000) return hit.token;
    const token = await mintServiceToken(this.secret, { from: this.service, to: target, perms: wanted, ttlSeconds: this.ttlSeconds });
    this.cache.delete(key);
    if (this.cache.size >= SERVICE_TOKEN_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { token, expiresAt: now + this.ttlSeconds * 1000 });
    return token;
  }

  /** The token of one remote node step (see `mintNodeStepToken`). */
  stepToken(step: NodeStepIdentity, ttlSeconds: number): Promise<string> {
    return mintNodeStepToken(this.secret, step, ttlSeconds);
  }
}

/** Fixed secret used by standalone and `npm run token` when AUTH_JWT_SECRET is unset. Never for production. */
export const DEV_JWT_SECRET = 'flowplane-development-secret-not-for-production';
