import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject } from '@nestjs/swagger';
import type { AccessDeclaration, RouteInfo } from '@flowplane/platform/auth';

/** The component every error response of the platform refers to (`ErrorBodyDto` of `@flowplane/platform/http`). */
export const ERROR_BODY_REF = '#/components/schemas/ErrorBodyDto';

/** The bearer scheme (`addBearerAuth()`), named per operation: the documents carry no default. */
export const BEARER_SECURITY: Array<Record<string, string[]>> = [{ bearer: [] }];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The JSON content of an error response. */
export function errorContent(): ResponseObject['content'] {
  return { 'application/json': { schema: { $ref: ERROR_BODY_REF } } };
}

/** Who may call, in words, for a 403 description. */
function forbiddenReason(a: AccessDeclaration): string | undefined {
  const needs: string[] = [];
  if (a.superuser) needs.push('a superuser');
  if (a.active) needs.push('an active user (`active` not false)');
  if (a.allPerms?.length) needs.push(`every permission of ${a.allPerms.map((p) => `\`${p}\``).join(', ')}`);
  if (a.anyPerms?.length) needs.push(`one permission of ${a.anyPerms.map((p) => `\`${p}\``).join(', ')}`);
  if (a.node) needs.push(`the step token of a \`${a.node}\` node`);
  if (a.internal) needs.push('a service token for this service');
  return needs.length ? `The token is valid but not enough: the route needs ${needs.join(' and ')}.` : undefined;
}

/**
 * Completes every operation of a service's document from what the routes declare, so no controller
 * has to repeat it: `security` from the access declaration (`@Public()` → `[]`, anything else the
 * bearer scheme), and the error answers the platform gives on every route (400 with parameters or a
 * body, 401/403 when protected, 404 with a path parameter, 413 with a body, 429 from the gateway's
 * limits), all with the standard error body. Responses a controller declared keep their description;
 * they gain the error body when they describe none.
 *
 * `operationId` must be the factory the document was built with (controller class, handler name).
 */
export function completeOperations(doc: OpenAPIObject, routes: RouteInfo[], operationId: (controller: string, handler: string) => string): OpenAPIObject {
  const access = new Map<string, AccessDeclaration | undefined>();
  for (const r of routes) access.set(operationId(r.controller, r.handler), r.access);
  delete doc.security;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const declared = op.operationId !== undefined && access.has(op.operationId) ? access.get(op.operationId) : undefined;
      const isPublic = declared ? !!declared.public : Array.isArray(op.security) && op.security.length === 0;
      op.security = isPublic ? [] : BEARER_SECURITY.map((s) => ({ ...s }));
      addErrorResponses(op, [...(item.parameters ?? []), ...(op.parameters ?? [])], isPublic ? undefined : (declared ?? {}));
    }
  }
  return doc;
}

/**
 * What a protected operation asks of a user token beyond a valid signature, as the `x-access`
 * extension of the operation: machine-readable, so clients and the authz matrix test derive the
 * expected 401/403 answers from the document rather than from the code.
 */
export interface AccessPolicy {
  active?: true;
  superuser?: true;
  /** Every one of these permissions (superusers pass). */
  allPerms?: string[];
  /** At least one of these permissions (superusers pass). */
  anyPerms?: string[];
  /** A service token for this service (internal routes). */
  internal?: true;
  /** The step token of this remote node type. */
  node?: string;
}

function accessPolicy(a: AccessDeclaration): AccessPolicy {
  return {
    ...(a.active ? { active: true as const } : {}),
    ...(a.superuser ? { superuser: true as const } : {}),
    ...(a.allPerms?.length ? { allPerms: [...a.allPerms] } : {}),
    ...(a.anyPerms?.length ? { anyPerms: [...a.anyPerms] } : {}),
    ...(a.internal ? { internal: true as const } : {}),
    ...(a.node ? { node: a.node } : {}),
  };
}

/**
 * The platform's error answers of one operation. `protectedBy` is the access declaration of a
 * protected route (undefined for a public one).
 */
export function addErrorResponses(op: OperationObject, parameters: Array<ParameterObject | ReferenceObject>, protectedBy: AccessDeclaration | undefined): void {
  const params = parameters.filter((p): p is ParameterObject => !('$ref' in p));
  const hasBody = !!op.requestBody;
  const standard: Record<string, string | undefined> = {
    '400': hasBody || params.length ? 'Invalid input: a malformed body or a parameter that fails validation (`details` lists each field and reason).' : undefined,
    '401': protectedBy ? 'Missing, expired or invalid bearer token.' : undefined,
    '403': protectedBy ? forbiddenReason(protectedBy) : undefined,
    '404': params.some((p) => p.in === 'path') ? 'Nothing exists under this path (`message` names what is missing).' : undefined,
    '413': hasBody ? 'The request body is larger than the limit.' : undefined,
    '429': 'Too many requests from this client; retry after the seconds in `Retry-After`.',
  };
  if (protectedBy) (op as OperationObject & { 'x-access'?: AccessPolicy })['x-access'] = accessPolicy(protectedBy);
  const responses = (op.responses ??= {}) as Record<string, ResponseObject | ReferenceObject>;
  for (const [status, description] of Object.entries(standard)) if (description && !responses[status]) responses[status] = { description };
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) >= 400 && !('$ref' in response) && !response.content) response.content = errorContent();
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))) as OperationObject['responses'];
}
