import type { RouteSpec } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';

/** 400 with `details` naming each offending field. */
export function invalidDeployment(problems: Array<{ field: string; problem: string }>): DomainException {
  return new DomainException('INVALID_DEPLOYMENT', 400, `invalid deployment: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`, {
    details: problems.map((p) => ({ field: p.field, problems: [p.problem] })),
  });
}

/** The spec's 409 body of a route claimed by another deployment (Errors table). */
export function routeConflict(route: RouteSpec, owner: { id: string; name: string }): DomainException {
  return new DomainException('ROUTE_CONFLICT', 409, `route ${route.method} ${route.path} belongs to deployment ${owner.id}`, {
    detail: `route ${route.method} ${route.path} is already owned by deployment "${owner.name}" (${owner.id}); a route belongs to at most one deployment, enabled or disabled`,
    conflicting_deployment_id: owner.id,
    conflicting_deployment_name: owner.name,
    method: route.method,
    path: route.path,
  });
}

export function deploymentNotFound(id: string): DomainException {
  return new DomainException('DEPLOYMENT_NOT_FOUND', 404, `no deployment ${id}`);
}

/** 409: a flow belongs to one deployment (rule 5); the body names the deployment that has it, like the route conflict. */
export function flowConflict(flowId: string, owner: { id: string; name: string }): DomainException {
  return new DomainException('FLOW_CONFLICT', 409, `flow ${flowId} belongs to deployment ${owner.id}`, {
    detail: `flow ${flowId} is already named by deployment "${owner.name}" (${owner.id}); a flow belongs to at most one deployment (remove it there first)`,
    conflicting_deployment_id: owner.id,
    conflicting_deployment_name: owner.name,
    flowId,
  });
}

/** 409: the route is a path a service answers itself, so a deployment on it could never be reached. */
export function routeOwned(route: RouteSpec, owner: string): DomainException {
  return new DomainException('ROUTE_OWNED', 409, `route ${route.method} ${route.path} belongs to the ${owner} service`, {
    detail: `${route.method} ${route.path} is answered by the ${owner} service itself; a route deployment may not claim it`,
    owner,
    method: route.method,
    path: route.path,
  });
}

/**
 * 409: every variant of the deployment has weight 0 (rule 13: zero is never selected). The
 * deployment's own state, which only an operator can change, so not a 503 a retry would cure.
 */
export function noEligibleVariant(id: string): DomainException {
  return new DomainException('NO_ELIGIBLE_VARIANT', 409, `deployment ${id} has no eligible variant: every variant has weight 0; give at least one a weight above 0 (PATCH /deployments/${id})`, {
    deploymentId: id,
  });
}
