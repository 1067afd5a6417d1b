import { type CanActivate, type ExecutionContext, ForbiddenException, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { type AccessDeclaration, AUTH_DECLARATION } from './auth.decorators';
import type { Principal } from './principal';
import { InvalidTokenError, TokenVerifier } from './token-verifier';

/** The access declaration of a handler: class-level declaration overridden by the method's. */
export function accessDeclarationOf(reflector: Reflector, handler: object, cls: object): AccessDeclaration | undefined {
  const onClass = reflector.get<AccessDeclaration | undefined>(AUTH_DECLARATION, cls as never);
  const onMethod = reflector.get<AccessDeclaration | undefined>(AUTH_DECLARATION, handler as never);
  if (!onClass && !onMethod) return undefined;
  return { ...onClass, ...onMethod };
}

function bearer(req: Request): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m ? m[1] : '';
}

/**
 * Global guard: verifies the bearer token and enforces the route's declaration.
 * A route without a declaration is denied (default deny), so nothing is open by accident.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly log = new Logger('AuthGuard');

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const req = ctx.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const decl = accessDeclarationOf(this.reflector, ctx.getHandler(), ctx.getClass());
    if (!decl) {
      this.log.error(`route ${req.method} ${req.path} has no access declaration; denied`);
      throw new ForbiddenException('route is not open to any caller');
    }
    const token = bearer(req);
    if (decl.public) {
      // A token on a public route is optional but, when present, must be valid to be used.
      if (token) req.principal = await this.verifier.verify(token, { node: decl.node }).catch(() => undefined);
      return true;
    }
    if (token === undefined) throw new UnauthorizedException('missing bearer token');
    if (token === '') throw new UnauthorizedException('authorization header must be "Bearer <token>"');
    let principal: Principal;
    try {
      principal = await this.verifier.verify(token, { node: decl.node });
    } catch (e) {
      throw new UnauthorizedException(e instanceof InvalidTokenError ? e.message : 'token is invalid');
    }
    req.principal = principal;
    enforce(decl, principal);
    return true;
  }
}

/** Throws 403 when the principal does not satisfy the declaration. */
export function enforce(decl: AccessDeclaration, p: Principal): void {
  if (decl.node !== undefined) {
    if (p.node !== decl.node) throw new ForbiddenException(`remote node route: a step token of ${decl.node} is required`);
    return;
  }
  // The verifier admits a step token only where a route asks for its node; this keeps it that way.
  if (p.node !== undefined) throw new ForbiddenException('a remote node step token is valid only for its node');
  if (decl.internal) {
    if (!p.service) throw new ForbiddenException('internal route: service token required');
    const missing = (decl.internalPerms ?? []).filter((perm) => !p.perms.includes(perm));
    if (missing.length) throw new ForbiddenException(`internal route: service token lacks ${missing.join(', ')}`);
    return;
  }
  if (decl.active && !p.active) throw new ForbiddenException('user is inactive');
  if (decl.superuser && !p.superuser) throw new ForbiddenException('superuser required');
  if (p.superuser) return;
  const missing = (decl.allPerms ?? []).filter((perm) => !p.perms.includes(perm));
  if (missing.length) throw new ForbiddenException(`missing permission: ${missing.join(', ')}`);
  if (decl.anyPerms?.length && !decl.anyPerms.some((perm) => p.perms.includes(perm))) {
    throw new ForbiddenException(`requires one of: ${decl.anyPerms.join(', ')}`);
  }
}
