import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from './principal';

/** Metadata key of a route's access declaration. */
export const AUTH_DECLARATION = 'flowplane:auth';

/** Who may call a route. Several decorators on one route combine (all must hold). */
export interface AccessDeclaration {
  public?: boolean;
  authenticated?: boolean;
  active?: boolean;
  allPerms?: string[];
  anyPerms?: string[];
  superuser?: boolean;
  internal?: boolean;
  /** Permissions an internal route's service token must carry (all of them). */
  internalPerms?: string[];
  /** The remote node type whose step tokens this route serves. */
  node?: string;
}

const KEYS = new Set<keyof AccessDeclaration>(['public', 'authenticated', 'active', 'allPerms', 'anyPerms', 'superuser', 'internal', 'internalPerms', 'node']);

function declare(part: AccessDeclaration): MethodDecorator & ClassDecorator {
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = descriptor ? descriptor.value : target;
    const prev: AccessDeclaration = Reflect.getOwnMetadata(AUTH_DECLARATION, holder) ?? {};
    const next: AccessDeclaration = { ...prev, ...part };
    if (prev.allPerms && part.allPerms) next.allPerms = [...new Set([...prev.allPerms, ...part.allPerms])];
    for (const k of Object.keys(next)) if (!KEYS.has(k as keyof AccessDeclaration)) delete next[k as keyof AccessDeclaration];
    SetMetadata(AUTH_DECLARATION, next)(target, key as string | symbol, descriptor as PropertyDescriptor);
  };
}

/** Anyone may call the route, with or without a token. */
export const Public = () => declare({ public: true });
/** Any caller with a valid token. */
export const Authenticated = () => declare({ authenticated: true });
/** A valid token whose `active` claim is not false (403 for inactive users). */
export const ActiveUser = () => declare({ active: true });
/** The token must carry every listed permission (superusers pass). */
export const RequirePerms = (...perms: string[]) => declare({ allPerms: perms });
/** The token must carry at least one listed permission (superusers pass). */
export const RequireAnyPerm = (...perms: string[]) => declare({ anyPerms: perms });
/** Only superusers. */
export const Superuser = () => declare({ superuser: true });
/**
 * Only other services of the platform: a service token whose audience is this service
 * (`aud: svc:<this service>`) and that carries every listed permission (`INTERNAL_PERMS` of
 * `@flowplane/contracts`; name the one the route's group needs).
 */
export const Internal = (...perms: string[]) => declare(perms.length ? { internal: true, internalPerms: perms } : { internal: true });
/**
 * The handler of remote node `nodeType`, called by flow-runtime once per step with that step's token
 * (`sub: run:<runId>/<nodeId>`, `aud: node:<nodeType>`); no other token is accepted.
 */
export const RemoteNodeHandler = (nodeType: string) => declare({ node: nodeType });
/** The usual admin route: an active user with `admin:access` plus any further permissions. */
export const AdminRoute = (...perms: string[]) => applyDecorators(ActiveUser(), RequirePerms('admin:access', ...perms));

/** Injects the verified principal (undefined on public routes called without a token). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal | undefined => {
  return (ctx.switchToHttp().getRequest<Request & { principal?: Principal }>()).principal;
});
