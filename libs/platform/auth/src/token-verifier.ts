import { createRemoteJWKSet, decodeProtectedHeader, type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';
import { type Principal, principalFromClaims, INTERNAL_PERM } from './principal';

export interface AuthOptions {
  /** HS256 secret for user tokens (development). */
  jwtSecret?: string;
  /** JWKS endpoint for RS256/ES256 user tokens (production). */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** HS256 secret for service tokens; defaults to `jwtSecret`. */
  serviceSecret?: string;
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
  async verify(token: string): Promise<Principal> {
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
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new InvalidTokenError('malformed bearer token');
    }
    try {
      if (alg === 'HS256') {
        // Service tokens are always HS256; with a JWKS configured, HS256 is accepted for services only.
        const key = this.jwks ? this.serviceSecret : (this.userSecret ?? this.serviceSecret);
        if (!key) throw new InvalidTokenError('HS256 tokens are not accepted');
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], ...this.claimChecks(!this.jwks) });
        const principal = principalFromClaims(payload);
        if (this.jwks && !principal.service) throw new InvalidTokenError('HS256 is accepted for service tokens only');
        return { principal, exp: payload.exp };
      }
      if (!this.jwks) throw new InvalidTokenError(`signing algorithm ${alg ?? 'none'} is not accepted`);
      const { payload } = await jwtVerify(token, this.jwks, { algorithms: ['RS256', 'ES256'], ...this.claimChecks(true) });
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

  private claimChecks(userToken: boolean): { issuer?: string; audience?: string } {
    return userToken ? { issuer: this.options.issuer, audience: this.options.audience } : {};
  }
}

export interface MintOptions {
  sub: string;
  perms?: string[];
  superuser?: boolean;
  active?: boolean;
  /** Lifetime such as `1h`, `15m`, `7d`. */
  ttl?: string;
  issuer?: string;
  audience?: string;
}

/** Signs an HS256 token (development tokens and service tokens). */
export async function mintToken(secret: string, o: MintOptions): Promise<string> {
  const claims: Record<string, unknown> = { perms: o.perms ?? [] };
  if (o.superuser) claims.superuser = true;
  if (o.active === false) claims.active = false;
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(o.sub).setIssuedAt().setExpirationTime(o.ttl ?? '1h');
  if (o.issuer) jwt = jwt.setIssuer(o.issuer);
  if (o.audience) jwt = jwt.setAudience(o.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}

/** Mints and caches short-lived service tokens (`sub: svc:<name>`, perm `internal`) for calls between services. */
export class ServiceTokenProvider {
  private cached?: { token: string; expiresAt: number };

  constructor(
    private readonly service: string,
    private readonly secret: string,
    private readonly ttlSeconds = 300,
  ) {}

  /** A valid token, renewed when less than a minute of its life is left. */
  async token(): Promise<string> {
    const now = Date.now();
    if (this.cached && this.cached.expiresAt - now > 60_000) return this.cached.token;
    const token = await mintToken(this.secret, { sub: `svc:${this.service}`, perms: [INTERNAL_PERM], ttl: `${this.ttlSeconds}s` });
    this.cached = { token, expiresAt: now + this.ttlSeconds * 1000 };
    return token;
  }
}

/** Fixed secret used by standalone and `npm run token` when AUTH_JWT_SECRET is unset. Never for production. */
export const DEV_JWT_SECRET = 'flowplane-development-secret-not-for-production';
