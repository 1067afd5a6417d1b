import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_BODY_REF } from '@flowplane/platform/service';
import { serviceForTopLevelPath, TOP_LEVEL_MOUNTS, type TopLevelMounts } from './route-table';

/**
 * Merges service OpenAPI documents into one: keeps the paths under /api/v1 and those of a top-level
 * mount the gateway forwards to the document's own service (the hub's `/ws/*`), makes operation ids
 * unique (prefixing the service on a clash) and merges components, renaming a schema that two
 * services define differently.
 */
export function mergeOpenApi(base: OpenAPIObject, docs: Array<{ service: string; doc: OpenAPIObject }>, mounts: TopLevelMounts = TOP_LEVEL_MOUNTS): OpenAPIObject {
  const out: OpenAPIObject = { ...base, paths: {}, components: { ...(base.components ?? {}), schemas: { ...(base.components?.schemas ?? {}) } }, tags: [...(base.tags ?? [])] };
  const opIds = new Set<string>();
  const tagNames = new Set(out.tags!.map((t) => t.name));
  const all = [{ service: 'gateway', doc: base }, ...docs];
  for (const { service, doc } of all) {
    const renames = new Map<string, string>();
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      const existing = out.components!.schemas![name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
        const renamed = `${service}_${name}`;
        renames.set(name, renamed);
        out.components!.schemas![renamed] = schema;
      } else {
        out.components!.schemas![name] = schema;
      }
    }
    for (const [scheme, def] of Object.entries(doc.components?.securitySchemes ?? {})) {
      out.components!.securitySchemes = { ...(out.components!.securitySchemes ?? {}), [scheme]: def };
    }
    for (const t of doc.tags ?? []) {
      if (tagNames.has(t.name)) continue;
      tagNames.add(t.name);
      out.tags!.push(t);
    }
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const routed = path.startsWith('/api/v1/') || serviceForTopLevelPath(path, mounts) === service;
      if (!routed || out.paths[path]) continue;
      let json = JSON.stringify(item);
      for (const [from, to] of renames) json = json.split(`"#/components/schemas/${from}"`).join(`"#/components/schemas/${to}"`);
      const copy = JSON.parse(json) as Record<string, { operationId?: string }>;
      for (const op of Object.values(copy)) {
        if (!op || typeof op !== 'object' || !('responses' in op)) continue;
        let id = op.operationId ?? `${service}_${path}`;
        if (opIds.has(id)) id = `${service}_${id}`;
        for (let i = 2; opIds.has(id); i++) id = `${op.operationId}_${i}`;
        opIds.add(id);
        op.operationId = id;
      }
      out.paths[path] = copy as OpenAPIObject['paths'][string];
    }
  }
  delete out.security;
  out.servers = [{ url: '/', description: 'The gateway serving this document; every path carries its full prefix (/api/v1 or a top-level mount such as /ws).' }];
  out.components!.schemas![ERROR_BODY_NAME] ??= ERROR_BODY_FALLBACK;
  normalizeNullable(out, out.components!.schemas! as Record<string, Schema>);
  pruneUnusedSchemas(out);
  return out;
}

type Schema = Record<string, unknown>;

const ERROR_BODY_NAME = ERROR_BODY_REF.slice(ERROR_BODY_REF.lastIndexOf('/') + 1);

/** The standard error body, for a merge whose services are all too old to describe it. */
const ERROR_BODY_FALLBACK = {
  type: 'object',
  required: ['statusCode', 'error', 'code', 'message', 'requestId'],
  properties: {
    statusCode: { type: 'number' },
    error: { type: 'string' },
    code: { type: 'string' },
    message: { type: 'string' },
    requestId: { type: 'string' },
    details: { type: 'array', items: { type: 'object', additionalProperties: true } },
    errorId: { type: 'string' },
  },
};

/**
 * OpenAPI 3.0's `nullable` only widens a `type` beside it; without one it means nothing and
 * validators refuse it (Redocly's nullable-type-sibling). Swagger emits it beside `$ref`, `allOf`
 * and `oneOf`/`anyOf` for `T | null` properties: give a reference the type of its target, move the
 * flag into the first typed alternative of a union, and drop it where any value is allowed anyway.
 */
function normalizeNullable(node: unknown, schemas: Record<string, Schema>): void {
  if (Array.isArray(node)) {
    for (const v of node) normalizeNullable(v, schemas);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Schema;
  if (typeof o['nullable'] === 'boolean' && !('type' in o)) {
    const nullable = o['nullable'];
    delete o['nullable'];
    const union = (o['oneOf'] ?? o['anyOf']) as Schema[] | undefined;
    const ref = typeof o['$ref'] === 'string' ? (o['$ref'] as string) : ((o['allOf'] as Schema[] | undefined)?.find((s) => typeof s?.['$ref'] === 'string')?.['$ref'] as string | undefined);
    if (nullable && Array.isArray(union)) {
      const typed = union.find((s) => s && typeof s === 'object' && 'type' in s);
      if (typed) typed['nullable'] = true;
    } else if (nullable && ref) {
      // Beside `$ref` every other keyword is ignored: the reference moves into `allOf`.
      if (!o['allOf']) {
        delete o['$ref'];
        o['allOf'] = [{ $ref: ref }];
      }
      const target = schemas[ref.slice(ref.lastIndexOf('/') + 1)];
      o['type'] = typeof target?.['type'] === 'string' ? target['type'] : 'object';
      o['nullable'] = true;
    }
  }
  for (const v of Object.values(o)) normalizeNullable(v, schemas);
}

/** Drops component schemas no operation reaches (those of routes the document leaves out, such as /internal). */
function pruneUnusedSchemas(doc: OpenAPIObject): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const used = new Set<string>();
  const visit = (value: unknown) => {
    for (const m of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = m[1].replace(/~1/g, '/').replace(/~0/g, '~');
      if (used.has(name)) continue;
      used.add(name);
      visit(schemas[name] ?? null);
    }
  };
  visit({ paths: doc.paths, responses: doc.components?.responses, parameters: doc.components?.parameters, requestBodies: doc.components?.requestBodies });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
