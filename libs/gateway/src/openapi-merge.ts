import type { OpenAPIObject } from '@nestjs/swagger';
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
  return out;
}
