/**
 * OpenAPI 3.0 ↔ ApiModel (spec: flows-compile-search-hub.md "Rules: format conversion", "Field
 * types", "Versioning": OpenAPI output is 3.0).
 *
 * Writer (`writeOpenApi`, OpenAPI 3.0.3):
 * - `info` from title (default "API"), apiVersion (else version, else "1.0.0") and description;
 *   `servers` from the model's servers (the map key in `x-name`, the protocol in `x-protocol`).
 * - Every action with both `method` and `path` is an operation under `paths[path][method]`:
 *   `operationId` = action name, `summary` = first line of the description, `description`,
 *   `tags` = [module]. `{x}` segments are required path parameters whose schema is the input
 *   field `x` (string when the input has none). For GET, DELETE, HEAD and OPTIONS the other input
 *   fields are query parameters; for the other methods they form a JSON `requestBody` (required
 *   when a field is). The output is the `application/json` schema of the `200` response (a
 *   `200` without content when there is none). `kind` and `emits` travel as `x-kind`, `x-emits`;
 *   action extensions are written on the operation. Actions without method or path have no
 *   OpenAPI form and are left out (a warning each).
 * - Entities are `components.schemas` (fieldsToSchema; description; `x-module`; extensions),
 *   `ref` fields are `$ref: '#/components/schemas/<name>'` (a ref to an unknown entity is written
 *   as an empty schema, with a warning). Modules are the top-level `tags` (version, provides and
 *   depends_on as `x-version`, `x-provides`, `x-depends_on`). Model extensions go to the root.
 *
 * Reader (`readOpenApi`, 3.0; 3.1 tolerated):
 * - Operations become actions in document order: name = operationId, else `<method><Path>`
 *   (`get /orders/{id}/items` → `getOrdersByIdItems`, a warning); description = description,
 *   else summary; module = first tag; path and query parameters (path-item and operation level,
 *   local `$ref`s resolved) and the properties of the JSON request body are the input (a
 *   non-object body is the single field `body`); the first 2xx JSON response (else `default`)
 *   gives the output (a non-object one the single field `result`). Header and cookie parameters,
 *   callbacks and non-JSON bodies are left out with a warning.
 * - Object component schemas are entities; `$ref`s to them stay `ref` fields; any other local
 *   `$ref` is inlined; allOf is merged and oneOf/anyOf approximated (warnings). Top-level tags
 *   and operation tags are modules.
 * - Every warning carries the JSON pointer of the source item.
 *
 * Round trip: IR → OpenAPI → IR keeps actions with method and path (a path parameter becomes a
 * required input field, an empty input or output is absent) and entities.
 */
import type { JsonSchema } from './field-types';
import {
  asString,
  child,
  cloneJson,
  extensionsOf,
  firstLine,
  fmt,
  isRecord,
  pointer,
  resolvePointer,
  safeFieldsToSchema,
  safeFieldToSchema,
  stringList,
  uniqueName,
  withPositions,
  type FormatReadOptions,
  type FormatReadResult,
  type FormatWriteResult,
} from './format-util';
import {
  ACTION_KINDS,
  HTTP_METHODS,
  emptyModel,
  type ActionKind,
  type ApiModel,
  type Diagnostic,
  type FieldMap,
  type HttpMethod,
  type ModelAction,
  type ModelEntity,
  type ModelModule,
} from './model';
import { bodyFields, componentRef, fieldOf, isObjectSchema, normalizeSchema, type SchemaReadContext } from './schema-reader';

export const OPENAPI_VERSION = '3.0.3';

/** An OpenAPI document (plain JSON value). */
export type OpenApiDocument = Record<string, unknown>;

const QUERY_METHODS = new Set<HttpMethod>(['GET', 'DELETE', 'HEAD', 'OPTIONS']);
const ACTION_X = ['x-kind', 'x-emits'];
const TAG_X = ['x-version', 'x-provides', 'x-depends_on'];

/** `{name}` segments of a path template, in order, without duplicates. */
export function pathParams(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/\{([^{}]+)\}/g)) if (!out.includes(m[1])) out.push(m[1]);
  return out;
}

export function writeOpenApi(model: ApiModel): FormatWriteResult<OpenApiDocument> {
  const diagnostics: Diagnostic[] = [];
  const known = new Set(model.entities.map((e) => e.name));
  const info: Record<string, unknown> = { title: model.title ?? 'API', version: model.apiVersion ?? model.version ?? '1.0.0' };
  if (model.description) info.description = model.description;
  const doc: OpenApiDocument = { openapi: OPENAPI_VERSION, info };

  const servers = Object.entries(model.servers ?? {}).map(([name, s]) => ({
    url: s.url,
    ...(s.description !== undefined && { description: s.description }),
    'x-name': name,
    ...(s.protocol !== undefined && { 'x-protocol': s.protocol }),
  }));
  if (servers.length) doc.servers = servers;
  if (model.modules.length) doc.tags = model.modules.map(moduleTag);

  const paths: Record<string, Record<string, unknown>> = {};
  model.actions.forEach((a, i) => {
    const at = pointer('actions', i);
    if (!a.method || !a.path) {
      diagnostics.push(fmt('warning', at, `action "${a.name}" has no method and path; it has no OpenAPI operation`));
      return;
    }
    let path = a.path;
    if (!path.startsWith('/')) {
      path = `/${path}`;
      diagnostics.push(fmt('warning', `${at}/path`, `path "${a.path}" written as "${path}"`));
    }
    const method = a.method.toLowerCase();
    const item = (paths[path] ??= {});
    if (item[method] !== undefined) {
      diagnostics.push(fmt('warning', at, `${a.method} ${path} is already the operation of another action; "${a.name}" left out`));
      return;
    }
    item[method] = operationOf(a, path, known, at, diagnostics);
  });
  doc.paths = paths;

  if (model.entities.length) {
    const schemas: Record<string, JsonSchema> = {};
    model.entities.forEach((e, i) => (schemas[e.name] = entitySchema(e, known, pointer('entities', i), diagnostics)));
    doc.components = { schemas };
  }
  Object.assign(doc, cloneJson(model.extensions ?? {}));
  return { document: doc, diagnostics };
}

/** Tag of a module (also used by the AsyncAPI writer). */
export function moduleTag(m: ModelModule): Record<string, unknown> {
  const tag: Record<string, unknown> = { name: m.name };
  if (m.description !== undefined) tag.description = m.description;
  if (m.version !== undefined) tag['x-version'] = m.version;
  if (m.provides !== undefined) tag['x-provides'] = [...m.provides];
  if (m.depends_on !== undefined) tag['x-depends_on'] = [...m.depends_on];
  return { ...tag, ...cloneJson(m.extensions ?? {}) };
}

/** Component schema of an entity (also used by the AsyncAPI writer). */
export function entitySchema(e: ModelEntity, known: Set<string>, at: string, diagnostics: Diagnostic[]): JsonSchema {
  const body = safeFieldsToSchema(e.fields, known, `${at}/fields`, diagnostics);
  const schema: JsonSchema = { type: 'object' };
  if (e.description !== undefined) schema.description = e.description;
  Object.assign(schema, body);
  if (e.module !== undefined) schema['x-module'] = e.module;
  return { ...schema, ...cloneJson(e.extensions ?? {}) };
}

function operationOf(a: ModelAction, path: string, known: Set<string>, at: string, diagnostics: Diagnostic[]): Record<string, unknown> {
  const op: Record<string, unknown> = { operationId: a.name };
  if (a.description) {
    op.summary = firstLine(a.description);
    op.description = a.description;
  }
  if (a.module !== undefined) op.tags = [a.module];
  const input = a.input ?? {};
  const inPath = pathParams(path);
  const parameters: Array<Record<string, unknown>> = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: input[name] ? safeFieldToSchema(input[name], known, child(`${at}/input`, name), diagnostics) : { type: 'string' },
  }));
  const rest: FieldMap = {};
  for (const [name, f] of Object.entries(input)) if (!inPath.includes(name)) rest[name] = f;
  if (QUERY_METHODS.has(a.method as HttpMethod)) {
    for (const [name, f] of Object.entries(rest)) {
      parameters.push({ name, in: 'query', ...(f.required && { required: true }), schema: safeFieldToSchema(f, known, child(`${at}/input`, name), diagnostics) });
    }
  } else if (Object.keys(rest).length) {
    const required = Object.values(rest).some((f) => f.required);
    op.requestBody = { ...(required && { required: true }), content: { 'application/json': { schema: safeFieldsToSchema(rest, known, `${at}/input`, diagnostics) } } };
  }
  if (parameters.length) op.parameters = parameters;
  const output = a.output ?? {};
  op.responses = {
    '200': Object.keys(output).length
      ? { description: 'OK', content: { 'application/json': { schema: safeFieldsToSchema(output, known, `${at}/output`, diagnostics) } } }
      : { description: 'OK' },
  };
  if (a.kind !== undefined) op['x-kind'] = a.kind;
  if (a.emits !== undefined) op['x-emits'] = [...a.emits];
  return { ...op, ...cloneJson(a.extensions ?? {}) };
}

/** Deterministic action name of an operation without operationId: `get /orders/{id}/items` → `getOrdersByIdItems`. */
export function operationName(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg);
      const parts = (param ? param[1] : seg).split(/[^A-Za-z0-9]+/).filter(Boolean);
      const word = parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('');
      return param ? `By${word}` : word;
    });
  return method.toLowerCase() + words.join('');
}

const OPERATION_KEYS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function readOpenApi(source: unknown, options: FormatReadOptions = {}): FormatReadResult {
  const result = readOpenApiValue(source);
  withPositions(result.diagnostics, options.map);
  return result;
}

function readOpenApiValue(source: unknown): FormatReadResult {
  const diagnostics: Diagnostic[] = [];
  const model = emptyModel({ version: '1.0' });
  if (!isRecord(source)) {
    diagnostics.push(fmt('error', '', 'an OpenAPI document must be an object'));
    return { model, diagnostics };
  }
  const version = asString(source.openapi);
  if (version === undefined || !/^3\.[01]\./.test(version)) {
    diagnostics.push(fmt('error', '/openapi', version === undefined ? (source.swagger !== undefined ? 'Swagger 2.0 is not supported; convert it to OpenAPI 3 first' : 'missing "openapi" version') : `OpenAPI ${version} is not supported (3.0 and 3.1 are)`));
    if (version === undefined) return { model, diagnostics };
  }
  const info = isRecord(source.info) ? source.info : {};
  if (typeof info.title === 'string') model.title = info.title;
  if (typeof info.version === 'string') model.apiVersion = info.version;
  if (typeof info.description === 'string') model.description = info.description;
  readServers(source, model);

  const components = isRecord(source.components) ? source.components : {};
  const schemas = isRecord(components.schemas) ? components.schemas : {};
  const ctx: SchemaReadContext = { root: source, entityRefs: new Map(), diagnostics };
  for (const [name, s] of Object.entries(schemas)) if (isObjectSchema(s)) ctx.entityRefs.set(componentRef('schemas', name), name);

  const modules = new Map<string, ModelModule>();
  (Array.isArray(source.tags) ? source.tags : []).forEach((t) => {
    if (isRecord(t) && typeof t.name === 'string' && !modules.has(t.name)) modules.set(t.name, tagModule(t));
  });

  const usedNames = new Set<string>();
  const paths = isRecord(source.paths) ? source.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemAt = pointer('paths', path);
    const item = deref(rawItem, itemAt, ctx);
    if (!isRecord(item)) continue;
    for (const [key, op] of Object.entries(item)) {
      if (!OPERATION_KEYS.includes(key) || !isRecord(op)) continue;
      const opAt = `${itemAt}/${key}`;
      const method = key.toUpperCase();
      if (!(HTTP_METHODS as readonly string[]).includes(method)) {
        diagnostics.push(fmt('warning', opAt, `${method} operations have no IR form; left out`));
        continue;
      }
      const action = readOperation(op, item, method as HttpMethod, path, opAt, ctx, usedNames);
      model.actions.push(action);
      if (action.module !== undefined && !modules.has(action.module)) modules.set(action.module, { name: action.module });
    }
  }
  model.modules = [...modules.values()];

  for (const [name, s] of Object.entries(schemas)) {
    if (!ctx.entityRefs.has(componentRef('schemas', name)) || !isRecord(s)) continue;
    model.entities.push(readEntity(name, s, pointer('components', 'schemas', name), ctx));
  }
  const ext = extensionsOf(source);
  if (ext) model.extensions = ext;
  return { model, diagnostics };
}

/** Entity of an object component schema (also used by the AsyncAPI reader). */
export function readEntity(name: string, s: Record<string, unknown>, at: string, ctx: SchemaReadContext): ModelEntity {
  const normalized = normalizeSchema(s, at, ctx);
  const entity: ModelEntity = { name, fields: {} };
  if (typeof s.description === 'string') entity.description = s.description;
  if (typeof s['x-module'] === 'string') entity.module = s['x-module'];
  const field = fieldOf({ ...normalized, type: 'object', properties: isRecord(normalized.properties) ? normalized.properties : {} });
  entity.fields = field.fields ?? {};
  const ext = extensionsOf(s, ['x-module']);
  if (ext) entity.extensions = ext;
  return entity;
}

function readServers(source: Record<string, unknown>, model: ApiModel): void {
  if (!Array.isArray(source.servers) || source.servers.length === 0) return;
  const servers: NonNullable<ApiModel['servers']> = {};
  const used = new Set<string>();
  source.servers.forEach((s, i) => {
    if (!isRecord(s) || typeof s.url !== 'string') return;
    const name = uniqueName(typeof s['x-name'] === 'string' ? s['x-name'] : i === 0 ? 'default' : `server${i + 1}`, used);
    used.add(name);
    servers[name] = { url: s.url, ...(typeof s['x-protocol'] === 'string' && { protocol: s['x-protocol'] }), ...(typeof s.description === 'string' && { description: s.description }) };
  });
  if (used.size) model.servers = servers;
}

/** Module of a tag (also used by the AsyncAPI reader). */
export function tagModule(t: Record<string, unknown>): ModelModule {
  const m: ModelModule = { name: t.name as string };
  if (typeof t.description === 'string') m.description = t.description;
  if (typeof t['x-version'] === 'string') m.version = t['x-version'];
  const provides = stringList(t['x-provides']);
  if (provides) m.provides = provides;
  const depends = stringList(t['x-depends_on']);
  if (depends) m.depends_on = depends;
  const ext = extensionsOf(t, TAG_X);
  if (ext) m.extensions = ext;
  return m;
}

/** A local `$ref` (parameters, request bodies, responses, path items) followed, or the value itself. */
function deref(value: unknown, at: string, ctx: SchemaReadContext): unknown {
  let cur = value;
  for (let hops = 0; isRecord(cur) && typeof cur.$ref === 'string'; hops++) {
    const ref = cur.$ref;
    const target = ref.startsWith('#') && hops < 16 ? resolvePointer(ctx.root, ref) : undefined;
    if (target === undefined) {
      ctx.diagnostics.push(fmt('warning', `${at}/$ref`, `$ref "${ref}" is not resolved; item left out`));
      return undefined;
    }
    cur = target;
  }
  return cur;
}

function readOperation(
  op: Record<string, unknown>,
  item: Record<string, unknown>,
  method: HttpMethod,
  path: string,
  at: string,
  ctx: SchemaReadContext,
  usedNames: Set<string>,
): ModelAction {
  let name = typeof op.operationId === 'string' && op.operationId ? op.operationId : undefined;
  if (name === undefined) {
    name = operationName(method, path);
    ctx.diagnostics.push(fmt('warning', at, `operation has no operationId; named "${uniqueName(name, usedNames)}"`));
  }
  if (usedNames.has(name)) {
    const renamed = uniqueName(name, usedNames);
    ctx.diagnostics.push(fmt('warning', `${at}/operationId`, `duplicate operationId "${name}"; read as "${renamed}"`));
    name = renamed;
  }
  usedNames.add(name);
  const action: ModelAction = { name };
  const description = asString(op.description) ?? asString(op.summary);
  if (description) action.description = description;
  const tags = stringList(op.tags);
  if (tags?.length) action.module = tags[0];
  if ((ACTION_KINDS as readonly unknown[]).includes(op['x-kind'])) action.kind = op['x-kind'] as ActionKind;
  action.method = method;
  action.path = path;

  const input: FieldMap = {};
  const params = new Map<string, { p: Record<string, unknown>; at: string }>();
  const collect = (list: unknown, base: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, i) => {
      const pAt = `${base}/parameters/${i}`;
      const p = deref(raw, pAt, ctx);
      if (isRecord(p) && typeof p.name === 'string') params.set(`${String(p.in)}:${p.name}`, { p, at: pAt });
    });
  };
  collect(item.parameters, at.slice(0, at.lastIndexOf('/')));
  collect(op.parameters, at);
  for (const { p, at: pAt } of params.values()) {
    if (p.in !== 'path' && p.in !== 'query') {
      ctx.diagnostics.push(fmt('warning', pAt, `${String(p.in)} parameter "${String(p.name)}" has no IR form; left out`));
      continue;
    }
    let schema: unknown = p.schema;
    let schemaAt = `${pAt}/schema`;
    if (schema === undefined && isRecord(p.content)) {
      const [mt, media] = Object.entries(p.content)[0] ?? [];
      if (mt !== undefined && isRecord(media)) {
        schema = media.schema;
        schemaAt = child(`${pAt}/content`, mt, 'schema');
      }
    }
    const field = fieldOf(normalizeSchema(schema, schemaAt, ctx), p.in === 'path' || p.required === true);
    if (field.description === undefined && typeof p.description === 'string') field.description = p.description;
    input[p.name as string] = field;
  }
  for (const name of pathParams(path)) if (!input[name]) input[name] = { type: 'string', required: true };

  const body = deref(op.requestBody, `${at}/requestBody`, ctx);
  if (isRecord(body)) {
    const media = jsonMedia(body.content, `${at}/requestBody`, ctx);
    if (media) {
      for (const [n, f] of Object.entries(bodyFields(media.schema, media.at, ctx, 'body'))) {
        if (input[n]) ctx.diagnostics.push(fmt('warning', child(`${media.at}/properties`, n), `body property "${n}" shadows a parameter of the same name`));
        input[n] = f;
      }
    }
  }
  if (Object.keys(input).length) action.input = input;

  const output = readResponses(op.responses, `${at}/responses`, ctx);
  if (output && Object.keys(output).length) action.output = output;
  const emits = stringList(op['x-emits']);
  if (emits) action.emits = emits;
  if (op.callbacks !== undefined) ctx.diagnostics.push(fmt('warning', `${at}/callbacks`, 'callbacks have no IR form; left out'));
  const ext = extensionsOf(op, ACTION_X);
  if (ext) action.extensions = ext;
  return action;
}

/** The JSON media type of a content map (application/json, else any `+json`/`json`, else none with a warning). */
function jsonMedia(content: unknown, at: string, ctx: SchemaReadContext): { schema: unknown; at: string } | undefined {
  if (!isRecord(content)) return undefined;
  const types = Object.keys(content);
  const mt = types.find((t) => t === 'application/json') ?? types.find((t) => /json/i.test(t));
  if (mt === undefined) {
    if (types.length) ctx.diagnostics.push(fmt('warning', `${at}/content`, `no JSON media type (${types.join(', ')}); body left out`));
    return undefined;
  }
  const media = content[mt];
  return isRecord(media) && media.schema !== undefined ? { schema: media.schema, at: child(`${at}/content`, mt, 'schema') } : undefined;
}

function readResponses(responses: unknown, at: string, ctx: SchemaReadContext): FieldMap | undefined {
  if (!isRecord(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort();
  const code = codes[0] ?? (responses.default !== undefined ? 'default' : undefined);
  if (code === undefined) return undefined;
  const rAt = child(at, code);
  const response = deref(responses[code], rAt, ctx);
  if (!isRecord(response)) return undefined;
  const media = jsonMedia(response.content, rAt, ctx);
  return media ? bodyFields(media.schema, media.at, ctx, 'result') : undefined;
}

